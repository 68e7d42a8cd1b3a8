internal import CGlibc

/// The process's heap, as glibc's allocator keeps it.
public enum Heap {
    /// Hands the heap's free pages back to the system, and says how long that took.
    ///
    /// glibc returns freed memory on its own only from the top of a heap. What a burst allocated
    /// (frames queued while the machine was overloaded, a segment a slow destination held) and then
    /// freed below a block still in use stays resident for good, so a long run's memory rises in
    /// steps and never comes down. `malloc_trim` releases those pages wherever they are. It holds
    /// each arena's lock while it walks that arena's free blocks (a few milliseconds for a hundred
    /// megabytes), so it runs off the live path, now and then.
    public static func giveBackFreePages() -> Duration {
        let start = MediaClock.monotonicNanoseconds()
        _ = malloc_trim(0)
        return .nanoseconds(Int64(MediaClock.monotonicNanoseconds() - start))
    }
}
