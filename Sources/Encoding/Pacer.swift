public import Media

/// Turns whatever a source delivers into a constant frame rate on the broadcast clock.
///
/// Once per frame slot it asks the source for a picture; when the source has nothing new, or
/// the slot was missed because capture ran late, the last picture is repeated: a gap never
/// reaches the encoder. Late frames are dropped downstream by the queue's newest-kept policy.
public final class Pacer {
    public let fps: Int
    public let clock: MediaClock
    public let captured = Counter()
    public let repeated = Counter()
    /// Nanoseconds spent preparing fresh pictures, to show what the watermark costs.
    public let preparing = Counter()
    /// Work done once per fresh picture (the watermark): a repeat shares its picture with the
    /// frame before, so it must not be stamped again.
    private let prepare: ((VideoFrame) -> Void)?

    public init(fps: Int, clock: MediaClock, prepare: ((VideoFrame) -> Void)? = nil) {
        self.fps = fps
        self.clock = clock
        self.prepare = prepare
    }

    /// Runs until the stop signal's media time; closes `output` when done.
    public func run(source: any VideoSource, into output: BoundedQueue<VideoFrame>, until stop: StopSignal) throws {
        defer { output.close() }
        var last: VideoFrame?
        var index: Int64 = 0
        while true {
            let due = Double(index) / Double(fps)
            if stop.shouldStop(at: due) { return }
            clock.sleep(until: due)
            let missedSlot = last != nil && clock.elapsed() > due + 1 / Double(fps)
            let fresh = missedSlot ? nil : try source.capture(index: index, at: due)
            let frame: VideoFrame
            if let fresh {
                captured.add()
                if let prepare {
                    let start = MediaClock.monotonicNanoseconds()
                    prepare(fresh)
                    preparing.add(Int(MediaClock.monotonicNanoseconds() - start))
                }
                frame = fresh
            } else if let last {
                repeated.add()
                frame = try last.reference(index: index)
            } else {
                throw PacerError.noFirstPicture
            }
            last = frame
            output.push(frame)
            index += 1
        }
    }
}

public enum PacerError: Error, CustomStringConvertible {
    case noFirstPicture

    public var description: String { "the video source gave no first picture" }
}
