import Foundation
import Testing

@testable import Media

@Suite struct AudioEncoderTests {
    /// Encodes `chunks` runs of `chunk` samples of a 440 Hz tone, then flushes.
    static func encode(chunks: Int, of chunk: Int) throws -> [EncodedPacket] {
        let encoder = try AudioEncoder(bitrate: 128_000, track: TrackID(0))
        var packets: [EncodedPacket] = []
        for index in 0..<chunks {
            let frame = try AudioFrame(
                format: .s16Interleaved, sampleRate: 48_000, channelCount: 2, sampleCount: chunk,
                position: Int64(index * chunk))
            frame.withInterleavedSamples { samples in
                for sample in 0..<chunk {
                    let value = Int16(8000 * sin(Double(index * chunk + sample) * 2 * .pi * 440 / 48_000))
                    samples[2 * sample] = value
                    samples[2 * sample + 1] = value
                }
            }
            packets += try encoder.encode(frame)
        }
        return packets + (try encoder.flush())
    }

    /// Every packet carries a frame of sound, so none may last zero samples: a muxer would write a
    /// zero-length sample and players would lose the track's end.
    @Test(arguments: [(16, 960), (15, 960), (4, 1024)])
    func packetsFollowEachOtherWithNoneEmpty(chunks: Int, chunk: Int) throws {
        let packets = try Self.encode(chunks: chunks, of: chunk)
        let input = Int64(chunks * chunk)
        #expect(packets.first?.pts == 0)
        for (packet, next) in zip(packets, packets.dropFirst()) {
            #expect(packet.duration > 0)
            #expect(packet.pts + packet.duration == next.pts)
        }
        let last = try #require(packets.last)
        #expect(last.duration > 0)
        // The encoder's 1024 samples of delay come out as one frame more than the input.
        #expect(last.pts + last.duration == input + 1024)
    }
}
