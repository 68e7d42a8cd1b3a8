internal import CGlibc

#if canImport(Glibc)
    import Glibc
#endif

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

    /// Gives every block of 128 KiB or more that no free block of a heap fits a mapping of its
    /// own, handed back to the system whole when it is freed, unless `MALLOC_MMAP_THRESHOLD_` sets
    /// another size.
    ///
    /// glibc starts at that size, then raises it to the size of each mapped block freed, up to
    /// 32 MiB. Once a broadcast has freed its first pictures (a plane of a 1280x720 one is 0.9 MB),
    /// every segment, upload body and cached response below that size grows a heap instead, among
    /// the small blocks that live on around it, and `malloc_trim` cannot give back a page that a
    /// small block still touches. With the size held, a ladder's publisher kept 3.2–3.8 MiB less
    /// (5 %), within a range a third as wide (docs/production.md). Call it first in `main`, before
    /// any thread allocates.
    public static func mapLargeBlocks() {
        guard getenv("MALLOC_MMAP_THRESHOLD_") == nil else { return }
        _ = mallopt(M_MMAP_THRESHOLD, 128 * 1024)
    }

    /// Caps glibc's arenas at one a core, unless `MALLOC_ARENA_MAX` sets another number.
    ///
    /// glibc gives each thread that allocates an arena of its own, up to eight a core: on 2 cores
    /// a broadcast's 33 threads spread over 16. A block freed in one arena is taken again only
    /// from that arena, so each keeps its own high-water mark, and `malloc_trim` can give back
    /// only the pages of it that hold no block at all. Over hours the sum of those marks rises
    /// (a long broadcast's memory grew by megabytes an hour, in the arenas and not in the heap in
    /// use). With an arena a core, the threads reuse each other's freed blocks. Call it first in
    /// `main`, before any thread allocates.
    public static func limitArenas() {
        guard getenv("MALLOC_ARENA_MAX") == nil else { return }
        let cores = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        _ = mallopt(M_ARENA_MAX, Int32(clamping: max(2, cores)))
    }
}
