#if canImport(Glibc)
    import Glibc
#endif

/// The one clock of a broadcast: a monotonic anchor and the wall time read at the same instant.
///
/// Every timestamp is a duration since the anchor; wall times (PROGRAM-DATE-TIME, the test
/// pattern's clock) are the anchor's wall time plus that duration, so they never jump with NTP.
public struct MediaClock: Sendable {
    /// Monotonic nanoseconds at the anchor.
    public let anchorNanoseconds: UInt64
    /// Wall time at the anchor, in milliseconds since 1970.
    public let anchorWallMilliseconds: Int64

    public init(anchorNanoseconds: UInt64, anchorWallMilliseconds: Int64) {
        self.anchorNanoseconds = anchorNanoseconds
        self.anchorWallMilliseconds = anchorWallMilliseconds
    }

    /// Anchors a clock now.
    public static func start() -> MediaClock {
        MediaClock(anchorNanoseconds: monotonicNanoseconds(), anchorWallMilliseconds: wallMilliseconds())
    }

    /// Seconds since the anchor.
    public func elapsed() -> Double {
        Double(MediaClock.monotonicNanoseconds() &- anchorNanoseconds) / 1e9
    }

    /// Wall time in milliseconds since 1970 for a media time in seconds.
    public func wallMilliseconds(at seconds: Double) -> Int64 {
        anchorWallMilliseconds + Int64((seconds * 1000).rounded())
    }

    /// Sleeps the calling thread until `seconds` after the anchor (returns at once if that has passed).
    public func sleep(until seconds: Double) {
        let target = anchorNanoseconds &+ UInt64(max(0, seconds) * 1e9)
        var spec = timespec(tv_sec: Int(target / 1_000_000_000), tv_nsec: Int(target % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &spec, nil) == EINTR {}
    }

    public static func monotonicNanoseconds() -> UInt64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return UInt64(spec.tv_sec) * 1_000_000_000 + UInt64(spec.tv_nsec)
    }

    public static func wallMilliseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1000 + Int64(spec.tv_nsec) / 1_000_000
    }
}
