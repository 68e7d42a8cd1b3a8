import Synchronization

/// Tells every source of a broadcast where to stop, as one media time, so audio and video
/// end together.
public final class StopSignal: Sendable {
    private let stopAtMilliseconds = Atomic<Int64>(.max)

    public init(after seconds: Double? = nil) {
        if let seconds { stopAtMilliseconds.store(Int64(seconds * 1000), ordering: .relaxed) }
    }

    /// Asks the sources to stop at `seconds` (the earliest request wins).
    public func requestStop(at seconds: Double) {
        stopAtMilliseconds.min(Int64(seconds * 1000), ordering: .relaxed)
    }

    /// True once media time `seconds` has reached the stop point.
    public func shouldStop(at seconds: Double) -> Bool {
        Int64(seconds * 1000) >= stopAtMilliseconds.load(ordering: .relaxed)
    }
}
