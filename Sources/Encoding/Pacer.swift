public import Runtime
public import Media

/// Turns whatever a source delivers into frames on the broadcast clock's slots (`fps` a second).
///
/// Once per frame slot it asks the source for a picture; when the source has nothing new, or
/// the slot was missed because capture ran late, the last picture is repeated. Which slots reach
/// the encoder is the ``Cadence``'s decision: every one (a constant rate), or only new pictures and
/// what the stream needs (a still screen costs almost nothing). Late frames are dropped downstream
/// by the queue's newest-kept policy.
/// While the broadcast is paused, or the source cannot see its screen, a ``StandbyCard`` over the
/// last picture is sent instead, on the same clock: resuming makes no jump in time.
public final class Pacer {
    public let fps: Int
    public let clock: MediaClock
    /// Slots with a new picture.
    public let captured = Counter()
    /// Slots without one (the last picture, or the standby card, again), encoded or not.
    public let repeated = Counter()
    /// Slots the cadence left out: no frame went to the encoder.
    public let skipped = Counter()
    /// Nanoseconds spent preparing fresh pictures, to show what the watermark costs.
    public let preparing = Counter()
    /// Work done once per fresh picture (the watermark): a repeat shares its picture with the
    /// frame before, so it must not be stamped again.
    private let prepare: ((CapturedPicture) -> Void)?
    private let pause: PauseSwitch
    private var cadence: Cadence?
    /// Slots in a Low-Latency HLS part (nil without parts): a part starts on every multiple.
    public let partSlots: Int?

    /// The pacer's counters, read by others while it runs on its own thread.
    public struct Counts: Sendable {
        public let captured: Counter
        public let repeated: Counter
        public let skipped: Counter
        public let preparing: Counter
    }

    public var counts: Counts {
        Counts(captured: captured, repeated: repeated, skipped: skipped, preparing: preparing)
    }

    /// Whether the frame of slot `index` starts a segment (on the keyframe grid of `keyframeInterval`
    /// slots) or a Low-Latency HLS part (every `partSlots`): a frame queue never drops one, or the segment or part it
    /// starts would begin a frame late and last longer than its target.
    public static func startsSegmentOrPart(_ index: Int64, keyframeInterval: Int, partSlots: Int?) -> Bool {
        index % Int64(max(1, keyframeInterval)) == 0 || partSlots.map { index % Int64(max(1, $0)) == 0 } == true
    }

    /// `cadence`: which slots reach the encoder; nil for every one.
    public init(
        fps: Int, clock: MediaClock, pause: PauseSwitch = PauseSwitch(), cadence: Cadence? = nil,
        prepare: ((CapturedPicture) -> Void)? = nil
    ) {
        self.fps = fps
        self.clock = clock
        self.pause = pause
        self.cadence = cadence
        partSlots = cadence?.configuration.partSlots
        self.prepare = prepare
    }

    /// Runs until the stop signal's media time; closes `output` when done.
    public func run(source: any VideoSource, into output: BoundedQueue<VideoFrame>, until stop: StopSignal) throws {
        try run(source: source, into: [output], until: stop)
    }

    /// The same, each frame going to every queue: one per rendition's encoder, each dropping its
    /// own late frames, so a slow encoder never holds back another.
    public func run(source: any VideoSource, into outputs: [BoundedQueue<VideoFrame>], until stop: StopSignal) throws {
        defer { outputs.forEach { $0.close() } }
        /// The newest slot that reached the encoder.
        var lastEncoded: Int64 = -1
        func push(_ frame: VideoFrame) {
            lastEncoded = frame.index
            for output in outputs { output.push(frame) }
        }
        /// Whether slot `index` reaches the encoder; counted when it does not.
        func encodes(_ index: Int64, changed: Bool) -> Bool {
            guard var decider = cadence else { return true }
            defer { cadence = decider }
            if decider.decide(slot: index, changed: changed) != nil { return true }
            skipped.add()
            return false
        }
        var last: VideoFrame?
        var card: (kind: StandbyCard, frame: VideoFrame)?
        var index: Int64 = 0
        while true {
            let due = Double(index) / Double(fps)
            if stop.shouldStop(at: due) {
                // The last slot goes to the encoder whatever the cadence said: the picture lasts to
                // the end of the stream, as the sound does.
                if index > 0, lastEncoded < index - 1, let final = card?.frame ?? last {
                    push(try final.reference(index: index - 1))
                }
                return
            }
            clock.sleep(until: due)
            let paused = pause.isPaused
            let missedSlot = last != nil && clock.elapsed() > due + 1 / Double(fps)
            let fresh = paused || missedSlot ? nil : try source.capture(index: index, at: due)
            if let fresh {
                captured.add()
                if let prepare {
                    let start = MediaClock.monotonicNanoseconds()
                    prepare(fresh)
                    preparing.add(Int(MediaClock.monotonicNanoseconds() - start))
                }
                last = fresh.frame
                card = nil
                if encodes(index, changed: true) { push(fresh.frame) }
            } else if let standby = paused ? StandbyCard.paused : source.isInterrupted ? .unavailable : nil {
                let appears = card?.kind != standby
                if appears {
                    card = (
                        standby, try standby.render(over: last, width: source.width, height: source.height, index: 0)
                    )
                }
                repeated.add()
                if encodes(index, changed: appears) { push(try card!.frame.reference(index: index)) }
            } else if let last {
                // The standby card going is a change back to the picture.
                let returns = card != nil
                card = nil
                repeated.add()
                if encodes(index, changed: returns) { push(try last.reference(index: index)) }
            } else {
                throw EncodingError.noFirstPicture
            }
            index += 1
        }
    }
}
