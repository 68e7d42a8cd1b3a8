import Runtime
import Capture
import Encoding
import HLS
import Packaging
import Logging
import Media
import Push
import ServiceLifecycle
import UnixSignals

/// One rendition's own stages, each waiting for the thread that runs it: its encoder (with the
/// scaler that makes its picture from the captured one) and its packaging.
struct RenditionStages: Sendable {
    let id: String
    let encoding: Handoff<VideoEncodingStage>
    let packaging: Handoff<PackagingStage>
}

/// The capture thread's work: the pacer offers the source's pictures on the clock's slots.
struct CaptureStage {
    let pacer: Pacer
    let source: any VideoSource
}

/// The media pipeline of one broadcast as a Service: each stage on its own thread, joined by
/// bounded queues (video keeps the newest frames, packets are never dropped), end of stream
/// travelling downstream so a stop flushes the last segment and ends the playlist. Each rendition
/// has its own frame queue, encoder thread and packaging thread; capture and audio are shared.
/// The stages hold libav contexts and X or PipeWire handles: each is handed to its thread once
/// (``Handoff``), so this service only wires queues and threads.
final class PipelineService: Service {
    private let capture: Handoff<CaptureStage>
    /// Slots between IDRs, and in a Low-Latency HLS part: the frames a queue never drops.
    private let keyframeInterval: Int
    private let partSlots: Int?
    /// Largest first: the first is the captured picture's size, and what packet destinations (RTMP, SRT) get.
    private let renditions: [RenditionStages]
    private let sound: Handoff<AudioEncodingStage>?
    /// A ladder's audio rendition, when its sound is not muxed into each video rendition.
    private let audioPackaging: Handoff<PackagingStage>?
    /// Kept a picture of the largest rendition now and then.
    private let thumbnailer: Thumbnailer
    private let sinks: [SinkRunner]
    /// Packet destinations (RTMP, SRT), fed the encoders' packets.
    private let packetSinks: [any PacketSink]
    /// `--captions-from`: the program the sound is also written to.
    private let captioner: Captioner?
    private let stop: StopSignal
    private let pause: PauseSwitch
    private let finished: @Sendable () -> Void
    private let clock: MediaClock
    private let stats: BroadcastStats
    private let logger: Logger
    private let report: EventReporter

    struct Stages: Sendable {
        let capture: Handoff<CaptureStage>
        let keyframeInterval: Int
        let partSlots: Int?
        let renditions: [RenditionStages]
        let sound: Handoff<AudioEncodingStage>?
        let audioPackaging: Handoff<PackagingStage>?
    }

    init(
        _ stages: Stages, thumbnailer: Thumbnailer, sinks: [SinkRunner], packetSinks: [any PacketSink],
        captioner: Captioner?, stop: StopSignal, pause: PauseSwitch, clock: MediaClock, stats: BroadcastStats,
        logger: Logger, report: @escaping EventReporter, finished: @escaping @Sendable () -> Void
    ) {
        capture = stages.capture
        keyframeInterval = stages.keyframeInterval
        partSlots = stages.partSlots
        renditions = stages.renditions
        sound = stages.sound
        audioPackaging = stages.audioPackaging
        self.report = report
        self.pause = pause
        self.finished = finished
        self.thumbnailer = thumbnailer
        self.sinks = sinks
        self.packetSinks = packetSinks
        self.captioner = captioner
        self.stop = stop
        self.clock = clock
        self.stats = stats
        self.logger = logger
    }

    func run() async throws {
        // A frame on the keyframe grid is never the one dropped: its rung's IDR, and so its segment
        // boundary, stays where every other rung has it. Nor is one that starts a Low-Latency HLS
        // part: the packager cuts a part at its first frame past the part's length, so a part
        // whose first frame was dropped would last a frame longer than PART-TARGET, which HLS
        // forbids (origins refuse the playlist); an encoder stalled for longer than its queue's
        // worth of them keeps them all (up to four times the queue). The lower rungs of a ladder,
        // cheap to encode, may wait longer for their thread on a busy machine before they lose a
        // frame.
        let interval = keyframeInterval
        let partSlots = partSlots
        let frames = renditions.indices.map { number in
            BoundedQueue<VideoFrame>(capacity: number == 0 ? 4 : 8, policy: .dropOldest) { frame in
                Pacer.startsSegmentOrPart(frame.index, keyframeInterval: interval, partSlots: partSlots)
            }
        }
        let packets = renditions.map { _ in BoundedQueue<PacketMessage>(capacity: 256, policy: .block) }
        let tap = packetSinks.isEmpty ? nil : Self.tap(packetSinks)
        defer { finished() }
        try await withGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await self.stage("capture", closing: frames, self.capture) { (capture: CaptureStage) in
                        defer { capture.source.close() }
                        try capture.pacer.run(source: capture.source, into: frames, until: self.stop)
                    }
                }
                for (number, rendition) in self.renditions.enumerated() {
                    let suffix = self.renditions.count > 1 ? "-" + rendition.id : ""
                    let (encoderName, packagerName) = ("video-encoder" + suffix, "packager" + suffix)
                    let outlets = self.outlets(of: rendition.id, top: number == 0, tap: tap)
                    group.addTask {
                        try await self.stage(encoderName, closing: [packets[number]], rendition.encoding) {
                            (encoding: VideoEncodingStage) in
                            try encoding.run(from: frames[number], into: packets[number], outlets)
                        }
                    }
                    group.addTask {
                        try await self.stage(packagerName, closing: [packets[number]], rendition.packaging) {
                            (packaging: PackagingStage) in
                            try packaging.run(input: packets[number])
                        }
                    }
                }
                // The sound goes to the audio rendition, or into every video rendition.
                let sound = self.audioPackaging.map { _ in BoundedQueue<PacketMessage>(capacity: 256, policy: .block) }
                if let sound, let audioPackaging = self.audioPackaging {
                    group.addTask {
                        try await self.stage("packager-audio", closing: [sound], audioPackaging) {
                            (packaging: PackagingStage) in
                            try packaging.run(input: sound)
                        }
                    }
                }
                if let encoding = self.sound {
                    let targets = sound.map { [$0] } ?? packets
                    let outlets = self.soundOutlets(tap: tap)
                    group.addTask {
                        try await self.stage("audio", closing: targets, encoding) {
                            (encoding: AudioEncodingStage) in
                            try encoding.run(into: targets, outlets)
                        }
                    }
                }
                try await group.waitForAll()
            }
        } onGracefulShutdown: {
            self.stop.requestStop(at: self.clock.elapsed())
        }
        await finishSinks()
    }

    /// What a rendition's encoder counts and feeds: the broadcast's frame counts are the largest
    /// rendition's (`top`), and so are the thumbnail and what packet destinations get; the top
    /// rung of a ladder sheds when it cannot keep up (``RungShedding``).
    private func outlets(of id: String, top: Bool, tap: (@Sendable (EncodedPacket) -> Void)?)
        -> VideoEncodingStage.Outlets
    {
        let rung = stats.renditions.first { $0.id == id }
        return VideoEncodingStage.Outlets(
            counts: .init(
                encoded: (top ? [stats.framesEncoded] : []) + (rung.map { [$0.framesEncoded] } ?? []),
                dropped: (top ? [stats.framesDropped] : []) + (rung.map { [$0.framesDropped] } ?? []),
                shed: rung?.framesShed, bytes: stats.videoBytes),
            sheds: top && rung != nil, partSlots: partSlots, thumbnailer: top ? thumbnailer : nil,
            tap: top ? tap : nil, report: report)
    }

    /// What the sound's encoder feeds: the captions' program, and the packet destinations.
    private func soundOutlets(tap: (@Sendable (EncodedPacket) -> Void)?) -> AudioEncodingStage.Outlets {
        var listener: (@Sendable (AudioFrame) -> Void)?
        if let captioner { listener = { captioner.feed($0) } }
        return AudioEncodingStage.Outlets(pause: pause, listener: listener, tap: tap, bytes: stats.audioBytes)
    }

    /// Hands each packet to every packet destination (which never makes it wait).
    private static func tap(_ sinks: [any PacketSink]) -> @Sendable (EncodedPacket) -> Void {
        { packet in for sink in sinks { sink.send(packet) } }
    }

    /// Lets every sink and packet destination take the end of the stream, waiting a bounded time for
    /// slow ones (said in the log); another Ctrl-C stops waiting.
    private func finishSinks() async {
        let finishers: [(destination: String, finish: @Sendable (Duration) -> Bool)] =
            sinks.map { runner in (runner.destination, { runner.finish(within: $0) }) }
            + packetSinks.map { sink in (sink.destination, { sink.finish(within: $0) }) }
        let pending = finishers.filter { !$0.finish(.seconds(1)) }
        guard !pending.isEmpty else { return }
        let limit = 15
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        logger.notice(
            "still sending the end of the stream to \(pending.map(\.destination).joined(separator: ", ")): waiting up to \(limit) s (Ctrl-C again to quit now)"
        )
        let hurry = Flag()
        let late = await withTaskGroup(of: [String]?.self) { group in
            group.addTask {
                for await _ in signals {
                    hurry.set()
                    return nil
                }
                return nil
            }
            group.addTask {
                try? await WorkerThread.run(name: "onair-drain") {
                    let deadline = Double(MediaClock.monotonicNanoseconds()) / 1e9 + Double(limit)
                    var late = pending
                    while !late.isEmpty, !hurry.isSet, Double(MediaClock.monotonicNanoseconds()) / 1e9 < deadline {
                        late = late.filter { !$0.finish(.milliseconds(100)) }
                    }
                    return late.map(\.destination)
                }
            }
            var result: [String] = []
            for await outcome in group {
                if let outcome {
                    result = outcome
                    group.cancelAll()
                }
            }
            return result
        }
        for destination in late {
            logger.warning("\(destination) is not up to date: it did not take the end of the stream in time")
        }
    }

    /// Runs a stage on its thread, which takes it over; a failure stops the whole broadcast and
    /// unblocks its neighbours.
    private func stage<Element, Stage>(
        _ name: String, closing queues: [BoundedQueue<Element>], _ handoff: Handoff<Stage>,
        _ body: @escaping @Sendable (Stage) throws -> Void
    ) async throws {
        do {
            try await WorkerThread.run(name: "onair-\(name)") {
                guard let stage = handoff.take() else { preconditionFailure("stage \(name) was run twice") }
                try body(stage)
            }
        } catch {
            logger.error("\(name) failed: \(error)")
            stop.requestStop(at: 0)
            queues.forEach { $0.close() }
            throw error
        }
    }
}
