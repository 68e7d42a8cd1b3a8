import Runtime
import Capture
import Encoding
import HLS
import Logging
import Media
import Push
import ServiceLifecycle
import UnixSignals

/// One rendition's own stages: the scaler that makes its picture from the captured one (none for
/// the largest, which is the captured picture), its H.264 encoder and its packaging.
struct RenditionStages {
    let id: String
    let scaler: RungScaler?
    let encoder: VideoEncoder
    let packaging: PackagingStage
}

/// The media pipeline of one broadcast as a Service: each stage on its own thread, joined by
/// bounded queues (video keeps the newest frames, packets are never dropped), end of stream
/// travelling downstream so a stop flushes the last segment and ends the playlist. Each rendition
/// has its own frame queue, encoder thread and packaging thread; capture and audio are shared.
// Unchecked Sendable: its stages hold libav contexts (C handles), each used by its own thread.
final class PipelineService: Service, @unchecked Sendable {
    // The stages are handed to their threads once, at start; each is then used by that thread only.
    private let pacer: Pacer
    private let videoSource: any VideoSource
    /// Largest first: the first is the captured picture's size, and what packet destinations (RTMP, SRT) get.
    private let renditions: [RenditionStages]
    private let audioSource: (any AudioSource)?
    private let audioEncoder: AudioEncoder?
    /// A ladder's audio rendition, when its sound is not muxed into each video rendition.
    private let audioPackaging: PackagingStage?
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

    init(
        pacer: Pacer, videoSource: any VideoSource, renditions: [RenditionStages], audioSource: (any AudioSource)?,
        audioEncoder: AudioEncoder?, audioPackaging: PackagingStage?, thumbnailer: Thumbnailer, sinks: [SinkRunner],
        packetSinks: [any PacketSink], captioner: Captioner?,
        stop: StopSignal,
        pause: PauseSwitch,
        clock: MediaClock, stats: BroadcastStats, logger: Logger, report: @escaping EventReporter,
        finished: @escaping @Sendable () -> Void
    ) {
        self.report = report
        self.pause = pause
        self.finished = finished
        self.pacer = pacer
        self.videoSource = videoSource
        self.renditions = renditions
        self.audioSource = audioSource
        self.audioEncoder = audioEncoder
        self.audioPackaging = audioPackaging
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
        let interval = renditions[0].encoder.settings.keyframeInterval
        let partSlots = pacer.partSlots
        let frames = renditions.indices.map { number in
            BoundedQueue<VideoFrame>(capacity: number == 0 ? 4 : 8, policy: .dropOldest) { frame in
                Pacer.startsSegmentOrPart(frame.index, keyframeInterval: interval, partSlots: partSlots)
            }
        }
        let packets = renditions.map { _ in BoundedQueue<PacketMessage>(capacity: 256, policy: .block) }
        defer { finished() }
        try await withGracefulShutdownHandler {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    try await self.stage("capture", closing: frames) {
                        defer { self.videoSource.close() }
                        try self.pacer.run(source: self.videoSource, into: frames, until: self.stop)
                    }
                }
                // Each stage is reached through `self`: the stages are handed to their threads once.
                for number in self.renditions.indices {
                    let suffix = self.renditions.count > 1 ? "-" + self.renditions[number].id : ""
                    group.addTask {
                        try await self.stage("video-encoder" + suffix, closing: [packets[number]]) {
                            try self.encodeVideo(
                                self.renditions[number], top: number == 0, from: frames[number], into: packets[number])
                        }
                    }
                    group.addTask {
                        try await self.stage("packager" + suffix, closing: [packets[number]]) {
                            try self.renditions[number].packaging.run(input: packets[number])
                        }
                    }
                }
                // The sound goes to the audio rendition, or into every video rendition.
                let sound = self.audioPackaging.map { _ in BoundedQueue<PacketMessage>(capacity: 256, policy: .block) }
                if let sound {
                    group.addTask {
                        try await self.stage("packager-audio", closing: [sound]) {
                            try self.audioPackaging?.run(input: sound)
                        }
                    }
                }
                if audioSource != nil {
                    let targets = sound.map { [$0] } ?? packets
                    group.addTask {
                        try await self.stage("audio", closing: targets) {
                            try self.encodeAudio(into: targets)
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

    /// Runs a stage on its thread; a failure stops the whole broadcast and unblocks its neighbours.
    private func stage<Element>(
        _ name: String, closing queues: [BoundedQueue<Element>], _ body: @escaping @Sendable () throws -> Void
    ) async throws {
        do {
            try await WorkerThread.run(name: "onair-\(name)", body)
        } catch {
            logger.error("\(name) failed: \(error)")
            stop.requestStop(at: 0)
            queues.forEach { $0.close() }
            throw error
        }
    }

    /// One rendition's encoder thread: its picture scaled from the captured one, then encoded. The
    /// broadcast's frame counts are the largest rendition's (`top`); packet destinations get its packets. The
    /// largest rung of a ladder sheds when it cannot keep up (``RungShedding``).
    private func encodeVideo(
        _ rendition: RenditionStages, top: Bool, from frames: BoundedQueue<VideoFrame>,
        into packets: BoundedQueue<PacketMessage>
    ) throws {
        let encoder = rendition.encoder
        defer { packets.push(.end(encoder.stream.track)) }
        let counts = stats.renditions.first { $0.id == rendition.id }
        var shedding = top && counts != nil ? RungShedding() : nil
        var lastPicture: VideoFrame?
        var dropped = 0
        while let captured = frames.pop() {
            let newlyDropped = frames.droppedCount - dropped
            dropped = frames.droppedCount
            if newlyDropped > 0 {
                if top { stats.framesDropped.add(newlyDropped) }
                counts?.framesDropped.add(newlyDropped)
            }
            var picture = captured
            if var policy = shedding {
                switch policy.observe(dropped: newlyDropped, at: Double(captured.index) / Double(pacer.fps)) {
                case .started:
                    report(
                        .renditionOverloaded,
                        "rendition \(rendition.id) cannot be encoded in real time: it takes fewer new pictures "
                            + "until it can (the other renditions keep every frame)")
                case .ended:
                    report(.renditionRecovered, "rendition \(rendition.id) is encoded in real time again")
                case nil:
                    break
                }
                if !policy.takesNewPicture(index: captured.index), let lastPicture {
                    picture = try lastPicture.reference(index: captured.index)
                    counts?.framesShed.add()
                } else {
                    lastPicture = captured
                }
                shedding = policy
            }
            let frame = try rendition.scaler?.scale(picture) ?? picture
            if top { thumbnailer.offer(frame) }
            for packet in try encoder.encode(frame) {
                stats.videoBytes.add(packet.size)
                send(packet, to: [packets], packetSinks: top)
            }
            if top { stats.framesEncoded.add() }
            counts?.framesEncoded.add()
        }
        for packet in try encoder.flush() {
            send(packet, to: [packets], packetSinks: top)
        }
    }

    /// Capture and AAC encoding share a thread: encoding 20 ms of audio takes well under 1 ms.
    private func encodeAudio(into packets: [BoundedQueue<PacketMessage>]) throws {
        defer { if let track = audioEncoder?.stream.track { packets.forEach { $0.push(.end(track)) } } }
        guard let source = audioSource, let encoder = audioEncoder else { return }
        while let samples = try source.read() {
            // Paused: the device is still read, so the clock and the sample count stay together.
            if pause.isPaused { samples.silence() }
            captioner?.feed(samples)
            for packet in try encoder.encode(samples) {
                stats.audioBytes.add(packet.size)
                send(packet, to: packets)
            }
        }
        for packet in try encoder.flush() {
            send(packet, to: packets)
        }
    }

    /// To packaging (never dropped; muxed audio to every rendition's), and to each packet
    /// destination (which never makes it wait): the top rendition's video, and the sound.
    private func send(
        _ packet: EncodedPacket, to packets: [BoundedQueue<PacketMessage>], packetSinks: Bool = true
    ) {
        for queue in packets { queue.push(.packet(packet)) }
        if packetSinks { for sink in self.packetSinks { sink.send(packet) } }
    }
}
