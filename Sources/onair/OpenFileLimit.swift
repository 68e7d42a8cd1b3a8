#if canImport(Glibc)
    import Glibc
#endif

/// Every viewer connection is a file descriptor, and held LL-HLS reloads keep thousands open:
/// lift the soft limit (often 1024) to the hard one, as servers do.
enum OpenFileLimit {
    static func raise() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// The connections the server may hold: `wanted`, or fewer when the descriptor limit would
    /// not leave 512 for everything else (files, outgoing pushes, the encoders).
    static func connections(wanted: Int) -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return wanted }
        return max(64, min(wanted, Int(clamping: limit.rlim_cur) - 512))
    }
}
