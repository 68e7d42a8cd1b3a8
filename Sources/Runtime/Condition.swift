#if canImport(Glibc)
    import Glibc
#endif

/// A lock with a condition to wait on (POSIX threads): what a queue between two threads needs,
/// with waits timed on the monotonic clock, so a change of the wall clock neither cuts one short
/// nor stretches it. Foundation's `NSCondition` would do the same, but it alone would link full
/// Foundation, and with it ICU's 34 MB of data, into the binary.
// Unchecked Sendable: a POSIX mutex and condition, which guard themselves.
public final class Condition: @unchecked Sendable {
    // Unchecked Sendable: the mutex and the condition are made for use from many threads; they
    // are allocated once, so their addresses never move.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Waits, the lock held, until signalled (or woken spuriously: wait in a loop on the state).
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Waits, the lock held, until signalled or until `deadline`; false when the deadline passed.
    public func wait(until deadline: Deadline) -> Bool {
        var time = deadline.time
        return pthread_cond_timedwait(condition, mutex, &time) != ETIMEDOUT
    }

    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }

    /// A moment on the monotonic clock, for ``Condition/wait(until:)``.
    public struct Deadline: Sendable {
        let time: timespec

        /// `seconds` from now; a negative or non-finite number is now, a huge one a day from now.
        public init(after seconds: Double) {
            let bounded = seconds.isFinite ? min(max(seconds, 0), 86_400) : 0
            let target = MediaClock.monotonicNanoseconds() &+ UInt64(bounded * 1e9)
            time = timespec(tv_sec: Int(target / 1_000_000_000), tv_nsec: Int(target % 1_000_000_000))
        }
    }
}

/// Sleeps the calling thread for `seconds` (a blocking stage's pause; none for 0 or less).
public func sleepThread(seconds: Double) {
    guard seconds > 0, seconds.isFinite else { return }
    let whole = Int(min(seconds, 86_400))
    var request = timespec(tv_sec: whole, tv_nsec: Int((min(seconds, 86_400) - Double(whole)) * 1e9))
    var left = timespec()
    while nanosleep(&request, &left) == -1, errno == EINTR { request = left }
}
