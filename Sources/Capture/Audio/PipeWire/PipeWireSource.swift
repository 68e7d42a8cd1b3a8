import FoundationEssentials
public import Media
public import Runtime

/// Sound taken straight from PipeWire: one application's playback streams (every one it opens,
/// followed as they come and go, mixed), a sink's monitor, or a source.
///
/// Samples are paced by the broadcast clock, 20 ms at a time, so the sound track runs on whether
/// anything plays or not: an application not playing, a node gone, or PipeWire away is silence,
/// with an event, never the end of the broadcast, and the picture never waits for sound. Each
/// stream collects in a ring of its own (filled on PipeWire's thread) and is taken from once it
/// holds a little more than PipeWire's cycle, so the 21 ms bursts PipeWire delivers in never run
/// dry; PipeWire's clock running slow or fast against ours (a sound card's crystal) is followed
/// by taking a frame more or less now and then (`FillFollower`), which the encoder's resampler
/// absorbs. PipeWire converts whatever a stream plays (mono, 5.1, 44.1 kHz) to
/// 48 kHz stereo. When PipeWire goes away (a restart), the source connects again once a second.
// Unchecked Sendable: it holds PipeWire captures (C handles), read by the audio thread only.
public final class PipeWireSource: AudioSource, @unchecked Sendable {
    public static let sampleRate = 48_000
    static let chunk = 960
    /// Frames a stream holds before it is taken from: two PipeWire cycles of 1024.
    static let prebuffer = 2048
    /// Frames above `prebuffer` at which a stream's excess is trimmed (its clock runs fast).
    static let excess = 4800
    /// How far behind the clock the sound is stamped: what a stream holds (`prebuffer`, 43 ms,
    /// less what the chunk takes) plus PipeWire's cycle (21 ms); measured against a reference
    /// recorder on the sink, sound then lands within ±10 ms of the picture.
    static let latency = 0.055
    /// Chunks between looks at PipeWire's nodes: 200 ms.
    static let followEvery = 10

    public let target: PipeWireTarget
    private let clock: MediaClock
    private let stop: StopSignal
    private let report: EventReporter
    private let log: @Sendable (String) -> Void
    private var session: PipeWireSession?
    private var follower: StreamFollower?
    private var streams: [Stream] = []
    private var anchor: Int64?
    private var index: Int64 = 0
    private var nextConnect = 0.0
    private var lost = false
    private var nodeMissing = false
    /// The stream whose buffer sets how much is taken (the first one primed), and its follower.
    private var reference: ObjectIdentifier?
    private var fill = FillFollower(rate: PipeWireSource.sampleRate)

    /// One captured stream and the samples read from its ring, not yet mixed.
    private final class Stream {
        let capture: PipeWireCapture
        var queue: [Float] = []
        var primed = false
        /// Frames held when it first primed: the level its sound's place on the clock rests on.
        var settled: Int?
        init(capture: PipeWireCapture) { self.capture = capture }

        /// Frames held.
        var held: Int { queue.count / 2 }

        /// Moves what the ring holds into the queue.
        func drain() {
            let waiting = capture.available
            if waiting > 0 { _ = capture.read(into: &queue, frames: waiting) }
        }

        /// Adds `count` frames to `out`, once the stream holds enough not to run dry; trims a
        /// queue grown far past that (a stream whose clock ran ahead while it was not followed).
        func mix(_ count: Int, into out: UnsafeMutableBufferPointer<Float>) {
            if !primed {
                guard held >= PipeWireSource.prebuffer else { return }
                primed = true
                let over = PipeWireSource.overflow(held: held, settled: settled)
                if over > 0 { queue.removeFirst(2 * over) }
                settled = settled ?? held
            }
            if held > PipeWireSource.prebuffer + PipeWireSource.excess {
                queue.removeFirst(2 * (held - PipeWireSource.prebuffer))
            }
            let take = min(count, held)
            queue.withUnsafeBufferPointer { queue in
                for i in 0..<(2 * take) { out[i] += queue[i] }
            }
            queue.removeFirst(2 * take)
            // Ran dry (the stream paused): fill up again before taking more.
            if take < count { primed = false }
        }
    }

    /// Connects to PipeWire now, so a missing PipeWire or node is refused before the broadcast
    /// starts.
    public init(
        target: PipeWireTarget, clock: MediaClock, stop: StopSignal, report: @escaping EventReporter,
        log: @escaping @Sendable (String) -> Void
    ) throws {
        self.target = target
        self.clock = clock
        self.stop = stop
        self.report = report
        self.log = log
        let session = try PipeWireSession()
        _ = try Self.node(for: target, in: session.nodes())
        self.session = session
        if case .application(let application) = target { follower = StreamFollower(application: application) }
    }

    /// Checks a target without capturing: PipeWire is running and a named node exists. Returns
    /// the application streams playing now for an application target (none is not an error).
    @discardableResult
    public static func probe(_ target: PipeWireTarget) throws -> [AudioNode] {
        let session = try PipeWireSession()
        let nodes = session.nodes()
        _ = try node(for: target, in: nodes)
        if case .application(let application) = target { return nodes.filter { application.matches($0) } }
        return []
    }

    /// The audio nodes of the user's PipeWire, for `onair devices`; nil when none is running.
    public static func nodes() -> [AudioNode]? {
        try? PipeWireSession(timeout: 1).nodes()
    }

    /// The node a `.node` target names (a sink's monitor or a source), checked to exist.
    private static func node(for target: PipeWireTarget, in nodes: [AudioNode]) throws(CaptureError)
        -> AudioNode?
    {
        guard case .node(let name) = target else { return nil }
        if let node = nodes.first(where: { $0.name == name && $0.kind != .applicationStream }) { return node }
        let known = nodes.filter { $0.kind != .applicationStream }.map { "pipewire:\($0.name)" }
        throw .pipeWireSound(
            "no PipeWire sink or source is called '\(name)'; use pipewire:monitor (what the desktop plays), pipewire:default (the microphone)"
                + (known.isEmpty ? "" : ", or one of \(known.prefix(12).joined(separator: ", "))")
                + " (onair devices lists them)")
    }

    public func read() throws -> AudioFrame? {
        if anchor == nil {
            // The first chunk is stamped a latency before it ends: never before the broadcast began.
            let latency = Int64(Self.latency * Double(Self.sampleRate))
            anchor = max(latency, Int64((clock.elapsed() * Double(Self.sampleRate)).rounded()))
            follow(at: clock.elapsed())
        }
        let start = anchor! + index * Int64(Self.chunk)
        let end = start + Int64(Self.chunk)
        // A chunk exists once its last sample was played; stamped a latency earlier.
        let position = start - Int64(Self.latency * Double(Self.sampleRate))
        if stop.shouldStop(at: Double(position) / Double(Self.sampleRate)) {
            close()
            return nil
        }
        clock.sleep(until: Double(end) / Double(Self.sampleRate))
        if index % Int64(Self.followEvery) == 0 { follow(at: Double(end) / Double(Self.sampleRate)) }
        index += 1
        for stream in streams { stream.drain() }
        let count = chunkLength()
        let frame = try AudioFrame(
            format: .floatInterleaved, sampleRate: Self.sampleRate, channelCount: 2, sampleCount: count,
            position: position)
        frame.withInterleavedBytes { bytes in
            let out = bytes.bindMemory(to: Float.self)
            out.initialize(repeating: 0)
            for stream in streams { stream.mix(count, into: out) }
            for i in out.indices { out[i] = min(1, max(-1, out[i])) }
        }
        return frame
    }

    /// Frames to drop from a stream that ran dry and holds `held` again, to bring it back to the
    /// level it first `settled` at. It runs dry when PipeWire's thread is held up (a loaded
    /// machine) past what the stream holds: the chunks meanwhile are silence, and the samples
    /// they missed come after in one burst. Played from that burst, its sound would come later
    /// than the picture by as long as the silence lasted, for good: the follower takes that back
    /// at 0.5 ms a second. Dropping the oldest puts it back at once. Pure.
    static func overflow(held: Int, settled: Int?) -> Int {
        guard let settled else { return 0 }
        return max(0, held - settled)
    }

    /// How many frames this chunk takes: `chunk`, a frame more or less now and then to keep the
    /// first primed stream's buffer where it settled.
    private func chunkLength() -> Int {
        guard let first = streams.first(where: { $0.primed || $0.held >= Self.prebuffer }) else {
            reference = nil
            return Self.chunk
        }
        if reference != ObjectIdentifier(first) {
            reference = ObjectIdentifier(first)
            fill = FillFollower(rate: Self.sampleRate)
        }
        return fill.take(level: first.held, chunk: Self.chunk)
    }

    /// Looks at PipeWire: reconnects after a restart, follows an application's streams, and
    /// keeps a named node's capture open while the node is there.
    private func follow(at now: Double) {
        if let session, let why = session.broken {
            streams = []
            self.session = nil
            follower?.reset()
            lost = true
            nextConnect = now + 1
            report(.audioDeviceLost, "PipeWire went away (\(why)): sending silence and connecting again every second")
            return
        }
        if session == nil {
            guard now >= nextConnect else { return }
            nextConnect = now + 1
            guard let connected = try? PipeWireSession(timeout: 0.5) else { return }
            session = connected
            if lost {
                lost = false
                report(.audioDeviceRecovered, "PipeWire is back: capturing \(target) again")
            }
        }
        guard let session else { return }
        let nodes = session.nodes()
        if var follower {
            let change = follower.update(nodes: nodes)
            self.follower = follower
            streams.removeAll { change.stop.contains($0.capture.serial) }
            for serial in change.start {
                guard let capture = try? session.capture(serial: serial, monitor: false) else { continue }
                streams.append(Stream(capture: capture))
                log("capturing \(target): stream \(serial)")
            }
            if change.playingChanged {
                if change.playing {
                    report(.audioAppPlaying, "\(target) is playing: its sound is in the broadcast")
                } else {
                    report(
                        .audioAppSilent, "\(target) plays nothing (not started, or quit): sending silence until it does"
                    )
                }
            }
            return
        }
        switch target {
        case .node(let name):
            let node = nodes.first { $0.name == name && $0.kind != .applicationStream }
            if let node, streams.first?.capture.serial != node.serial {
                streams = []
                if let capture = try? session.capture(serial: node.serial, monitor: node.kind == .sink) {
                    streams = [Stream(capture: capture)]
                }
                if nodeMissing {
                    nodeMissing = false
                    report(.audioDeviceRecovered, "\(target) is back")
                }
            } else if node == nil, !nodeMissing {
                nodeMissing = true
                streams = []
                report(.audioDeviceLost, "\(target) is gone: sending silence until it is back")
            }
        case .defaultSource, .defaultMonitor:
            if streams.isEmpty, let capture = try? session.capture(serial: 0, monitor: target == .defaultMonitor) {
                streams = [Stream(capture: capture)]
            }
        case .application:
            break
        }
    }

    /// Lets the streams and the connection go, on the reading thread as sound ends.
    private func close() {
        streams = []
        session = nil
    }
}
