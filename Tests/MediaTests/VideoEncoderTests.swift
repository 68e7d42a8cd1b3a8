import Runtime
import Testing

@testable import Media

/// The key frames a real encoder makes: on the segment grid only, also when frames were dropped
/// before it (the encoder then sees fewer frames between two grid points than the interval).
@Suite struct VideoEncoderTests {
    /// The indices of the frames encoded as key frames when `indices` are encoded in order.
    static func keyframes(_ codec: VideoCodec, indices: [Int64], interval: Int) throws -> [Int64] {
        let settings = VideoEncoderSettings(
            codec: codec, width: 160, height: 90, fps: 30, bitrate: 300_000, keyframeInterval: interval)
        let encoder = try VideoEncoder(settings: settings, track: TrackID(0))
        let pool = try VideoFramePool(width: 160, height: 90)
        var packets: [EncodedPacket] = []
        for index in indices {
            let frame = try pool.makeFrame(index: index)
            for plane in 0..<3 {
                frame.withPlane(plane) { bytes, stride, width, height in
                    for row in 0..<height {
                        for column in 0..<width {
                            bytes[row * stride + column] = UInt8((row + column + Int(index)) & 0xFF)
                        }
                    }
                }
            }
            packets += try encoder.encode(frame)
        }
        packets += try encoder.flush()
        #expect(packets.count == indices.count)
        return packets.filter(\.isKeyframe).map(\.pts)
    }

    /// Four grid intervals of 30 frames with every seventh frame dropped, and the frame on the
    /// second grid point among them (and the one after it: its key frame comes two frames late).
    static let withDrops: [Int64] = (0..<120).filter { $0 % 7 != 3 && $0 != 30 }

    @Test(arguments: [VideoCodec.h264, .av1])
    func keyFramesFallOnlyOnTheGridWhenFramesWereDropped(codec: VideoCodec) throws {
        guard VideoEncoder.isAvailable(codec) else {
            Issue.record("\(codec.encoderName) is not in this libavcodec")
            return
        }
        #expect(try Self.keyframes(codec, indices: Self.withDrops, interval: 30) == [0, 32, 60, 90])
    }
}
