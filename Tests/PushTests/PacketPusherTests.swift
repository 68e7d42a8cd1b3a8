import FoundationEssentials
import HLSModel
import Media
import Runtime
import Synchronization
import Testing

@testable import Push

/// The packet sender (RTMP, SRT) over a link libavformat opens for real: an MPEG-TS file, which
/// is read back with libavformat's demuxer. It starts on a video keyframe, sends every packet
/// after it in order, ends the container on `finish`, says a failed connection once and its
/// recovery once.
@Suite struct PacketPusherTests {
    /// Events as the pusher reports them, in order.
    final class Events: Sendable {
        private let list = Mutex<[(BroadcastEvent.Code, String)]>([])
        var all: [(BroadcastEvent.Code, String)] { list.withLock { $0 } }
        var report: EventReporter { { code, message in self.list.withLock { $0.append((code, message)) } } }
    }

    /// `count` frames of 160x90 H.264, a keyframe every `interval`: the packets and their stream.
    static func video(count: Int, interval: Int) throws -> (packets: [EncodedPacket], stream: StreamDescription) {
        let settings = VideoEncoderSettings(
            codec: .h264, width: 160, height: 90, fps: 30, bitrate: 300_000, keyframeInterval: interval)
        let encoder = try VideoEncoder(settings: settings, track: TrackID(0))
        let pool = try VideoFramePool(width: 160, height: 90)
        var packets: [EncodedPacket] = []
        for index in 0..<Int64(count) {
            let frame = try pool.makeFrame(index: index)
            for plane in 0..<3 {
                frame.withPlane(plane) { bytes, stride, width, height in
                    for row in 0..<height {
                        for column in 0..<width {
                            bytes[row * stride + column] = UInt8((row * 3 + column + Int(index) * 5) & 0xFF)
                        }
                    }
                }
            }
            packets += try encoder.encode(frame)
        }
        packets += try encoder.flush()
        return (packets, encoder.stream)
    }

    static func link(to file: URL) -> PacketLink {
        PacketLink(format: "mpegts", url: file, description: "test \(file.lastPathComponent)", steadyRateReason: nil)
    }

    /// The video packets' keyframe flags and decode times (s) in the file, in order.
    static func readBack(_ file: URL) throws -> [(keyframe: Bool, seconds: Double)] {
        let demuxer = try Demuxer(address: file.path, name: "the pushed file")
        var found: [(keyframe: Bool, seconds: Double)] = []
        try demuxer.readPackets { packet in
            guard packet.stream.kind == .video else { return }
            found.append((packet.isKeyframe, packet.decodeSeconds))
        }
        return found
    }

    static func folder() throws -> URL {
        let url = URL(filePath: "/tmp").appending(path: "onair-packet-pusher-\(UInt64.random(in: 0...UInt64.max))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func startsOnAKeyframeAndSendsEveryPacketAfterItInOrder() throws {
        let (packets, stream) = try Self.video(count: 30, interval: 10)
        #expect(packets.map(\.isKeyframe).enumerated().filter(\.element).map(\.offset) == [0, 10, 20])
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "push.ts")
        let events = Events()
        let pusher = PacketPusher(
            link: Self.link(to: file), channel: "demo", streams: [stream], trust: .system,
            report: events.report)
        #expect(pusher.status.snapshot.state == .starting)
        // Joined mid-stream: the first five packets follow a keyframe the sender never saw.
        for packet in packets.dropFirst(5) { pusher.send(packet) }
        #expect(pusher.finish(within: .seconds(10)))
        let sent = try Self.readBack(file)
        // From frame 10 on, all of them: 20 packets, the keyframes at 0 and 10 of them, a frame apart.
        #expect(sent.count == 20)
        #expect(sent.enumerated().filter(\.element.keyframe).map(\.offset) == [0, 10])
        let steps = zip(sent, sent.dropFirst()).map { ($1.seconds - $0.seconds) * 30 }
        #expect(steps.allSatisfy { abs($0 - 1) < 0.01 }, "\(steps)")
        #expect(pusher.status.snapshot.state == .upToDate)
        #expect(events.all.isEmpty)
    }

    @Test func aConnectionThatFailsIsSaidOnceAndItsRecoveryOnceResumingOnAKeyframe() throws {
        let (packets, stream) = try Self.video(count: 30, interval: 10)
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A folder that is not there yet: opening the file fails until it is made.
        let file = folder.appending(path: "later/push.ts")
        let events = Events()
        let pusher = PacketPusher(
            link: Self.link(to: file), channel: "demo", streams: [stream], trust: .system,
            report: events.report)
        pusher.send(packets[0])
        try waitUntil("the failure said") { !events.all.isEmpty }
        guard case .failing = pusher.status.snapshot.state else {
            Issue.record("state \(pusher.status.snapshot.state)")
            return
        }
        // Tried again with backoff (0.5 s, then 1 s): still one event for the episode.
        for packet in packets[1..<10] { pusher.send(packet) }
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        for packet in packets[10...] { pusher.send(packet) }
        #expect(pusher.finish(within: .seconds(10)))
        let codes = events.all.map(\.0)
        #expect(codes == [.pushFailed, .pushRecovered], "\(events.all)")
        #expect(events.all[0].1.hasPrefix("pushing to test push.ts failed: "))
        #expect(events.all[1].1.hasSuffix("s: resumed on a keyframe"))
        let sent = try Self.readBack(file)
        // Sent from the first keyframe after the folder came (frame 10), nothing lost after it.
        #expect(sent.count == 20)
        #expect(sent.enumerated().filter(\.element.keyframe).map(\.offset) == [0, 10])
        #expect(pusher.status.snapshot.state == .upToDate)
    }
}

/// Polls `condition` every 10 ms for up to 10 s.
func waitUntil(_ what: String, _ condition: () -> Bool) throws {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() {
        if ContinuousClock.now > deadline {
            Issue.record("timed out waiting for \(what)")
            return
        }
        sleepThread(seconds: 0.01)
    }
}
