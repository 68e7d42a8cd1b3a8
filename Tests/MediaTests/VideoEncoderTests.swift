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

    /// A picture of "text": dark and light pixels at random, each row drawn from `seed`, and the rows
    /// of the bands of 8 rows in `changed` drawn from `changedSeed` instead (lines that changed).
    static func text(
        _ frame: VideoFrame, seed: UInt64, changed: Range<Int> = 0..<0, changedSeed: UInt64 = 0
    ) {
        frame.withPlane(0) { bytes, stride, width, height in
            for row in 0..<height {
                var state = (row / 8) >= changed.lowerBound && (row / 8) < changed.upperBound ? changedSeed : seed
                state = state &* 6_364_136_223_846_793_005 &+ UInt64(row)
                for column in 0..<width {
                    state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    bytes[row * stride + column] = state >> 63 == 0 ? 30 : 220
                }
            }
        }
        for plane in 1..<3 {
            frame.withPlane(plane) { bytes, stride, width, height in
                for row in 0..<height { for column in 0..<width { bytes[row * stride + column] = 128 } }
            }
        }
    }

    /// A new AV1 encoder codes a change nearly as finely as one that has run for a while: libaom's
    /// rate control starts its quantizer halfway up its range, and the warm-up brings it down before
    /// the stream's first frame. A screen's cadence encodes few frames, so without it the changes of
    /// the first half minute were coded coarsely and stayed blurred (here: 0.76 of the later
    /// change's bytes with the warm-up, 0.61 without).
    @Test func aNewAV1EncoderCodesAChangeAsFinelyAsAWarmOne() throws {
        guard VideoEncoder.isAvailable(.av1) else {
            Issue.record("libaom-av1 is not in this libavcodec")
            return
        }
        let settings = VideoEncoderSettings(
            codec: .av1, width: 640, height: 360, fps: 30, bitrate: 1_000_000, keyframeInterval: 100_000)
        let encoder = try VideoEncoder(settings: settings, track: TrackID(0))
        let pool = try VideoFramePool(width: 640, height: 360)
        func bytes(index: Int64, changedSeed: UInt64) throws -> Int {
            let frame = try pool.makeFrame(index: index)
            Self.text(frame, seed: 1, changed: 20..<24, changedSeed: changedSeed)
            return try encoder.encode(frame).reduce(0) { $0 + $1.size }
        }
        // The key frame (the page), a second of it still, and four lines changed.
        _ = try bytes(index: 0, changedSeed: 1)
        _ = try bytes(index: 30, changedSeed: 1)
        let early = try bytes(index: 45, changedSeed: 2)
        // Forty seconds of the page still, a frame a second, and the same four lines changed again.
        for index in stride(from: 60, to: 60 + 30 * 40, by: 30) { _ = try bytes(index: Int64(index), changedSeed: 2) }
        let late = try bytes(index: 60 + 30 * 40 + 15, changedSeed: 3)
        #expect(Double(early) >= 0.7 * Double(late), "\(early) bytes for the early change, \(late) for the late one")
    }
}
