import Media
import Runtime
import Synchronization
import Testing

@testable import Encoding

/// A rendition's encoder thread, run on this one: what it hands packaging, what it counts and
/// feeds besides, with a real libx264 encoder on small pictures.
@Suite struct VideoEncodingStageTests {
    /// Every packet the tap was given, in order.
    final class Tapped: Sendable {
        let packets = Mutex<[EncodedPacket]>([])
    }

    static func frames(_ count: Int, width: Int = 160, height: Int = 90) throws -> BoundedQueue<VideoFrame> {
        let pool = try VideoFramePool(width: width, height: height)
        let queue = BoundedQueue<VideoFrame>(capacity: count, policy: .dropOldest)
        for index in 0..<count { queue.push(try pool.makeFrame(index: Int64(index))) }
        queue.close()
        return queue
    }

    static func stage(width: Int, height: Int, scaler: RungScaler? = nil) throws -> VideoEncodingStage {
        let settings = VideoEncoderSettings(
            width: width, height: height, fps: 30, bitrate: 500_000, keyframeInterval: 60)
        return VideoEncodingStage(
            id: "test", encoder: try VideoEncoder(settings: settings, track: TrackID(0)), scaler: scaler)
    }

    @Test func everyFrameIsEncodedCountedAndHandedOnThenTheTrackEnds() throws {
        let packets = BoundedQueue<PacketMessage>(capacity: 64, policy: .block)
        let (broadcast, rung, bytes) = (Counter(), Counter(), Counter())
        let tapped = Tapped()
        try Self.stage(width: 160, height: 90).run(
            from: try Self.frames(5), into: packets,
            .init(
                counts: .init(encoded: [broadcast, rung], dropped: [], bytes: bytes),
                tap: { packet in tapped.packets.withLock { $0.append(packet) } }, report: { _, _ in }))
        packets.close()
        var messages: [PacketMessage] = []
        while let message = packets.pop() { messages.append(message) }
        let sent = messages.compactMap { if case .packet(let packet) = $0 { packet } else { nil } }
        // Five pictures, no B-frames: five packets, the first a key frame, in order, then the end.
        #expect(sent.count == 5)
        #expect(sent.first?.isKeyframe == true)
        #expect(sent.map(\.pts) == [0, 1, 2, 3, 4])
        guard case .end(let track) = messages.last else {
            Issue.record("the last message is not the track's end")
            return
        }
        #expect(track == TrackID(0))
        #expect(broadcast.current == 5 && rung.current == 5)
        #expect(bytes.current == sent.map(\.size).reduce(0, +))
        // The tap got the same packets, the same objects, in the same order.
        #expect(tapped.packets.withLock { $0.map(ObjectIdentifier.init) } == sent.map(ObjectIdentifier.init))
    }

    @Test func aRungIsEncodedAtItsOwnSize() throws {
        let packets = BoundedQueue<PacketMessage>(capacity: 64, policy: .block)
        let encoded = Counter()
        try Self.stage(width: 80, height: 46, scaler: try RungScaler(width: 80, height: 46)).run(
            from: try Self.frames(3), into: packets,
            .init(counts: .init(encoded: [encoded], dropped: [], bytes: Counter()), report: { _, _ in }))
        #expect(encoded.current == 3)
    }
}
