public import FoundationEssentials
public import HLSModel
import Runtime
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// Where a channel's rewind window (`--dvr`) lives on disk while the broadcast runs:
/// `<root>/<channel>.<process id>/`, with a folder per rendition for a ladder, as the live files
/// are laid out. It is scratch space: made at the start, removed at the end, and a folder a killed
/// run left behind is removed by the next start (its process is gone). Only folders onair made (they
/// hold a `.onair-dvr` mark) are ever removed: `--dvr-dir` may be a folder with other things in it.
public struct DVRFolder: Sendable {
    public let url: URL
    /// How far back viewers may go, in seconds.
    public let seconds: Double
    /// Each rendition's window as its sink last wrote it, for the requests that cut a span of it:
    /// one board for the folder, shared by the sink that posts and the server that reads.
    public let windows: Windows

    public init(url: URL, seconds: Double, windows: Windows = Windows()) {
        self.url = url
        self.seconds = seconds
        self.windows = windows
    }

    /// The window playlists of a channel's renditions as values: the sink posts each one it writes,
    /// and a request for a span of the window (`from=`, `delay=`) is cut from the value, never
    /// read back from the file and parsed.
    public final class Windows: Sendable {
        private let playlists = Mutex<[String: Posted]>([:])

        public init() {}

        /// A rendition's window and its I-frame playlist's presence.
        public struct Posted: Sendable {
            public var playlist: MediaPlaylist
            public var hasIFrames: Bool
        }

        /// `rendition`: nil for a channel of one.
        public func post(_ playlist: MediaPlaylist, hasIFrames: Bool, rendition: String?) {
            playlists.withLock { $0[rendition ?? ""] = Posted(playlist: playlist, hasIFrames: hasIFrames) }
        }

        public func window(of rendition: String?) -> Posted? {
            playlists.withLock { $0[rendition ?? ""] }
        }

        /// Lets go of every window: the folder is gone.
        func clear() {
            playlists.withLock { $0.removeAll() }
        }
    }

    /// `~/.cache/onair/dvr` (or under `$XDG_CACHE_HOME`): on disk, per user, kept out of backups.
    public static func defaultRoot(environment: [String: String]) -> URL {
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return URL(fileURLWithPath: cache).appendingPathComponent("onair/dvr")
        }
        if let home = environment["HOME"], home.hasPrefix("/") {
            return URL(fileURLWithPath: home).appendingPathComponent(".cache/onair/dvr")
        }
        return FileManager.default.temporaryDirectory.appendingPathComponent("onair-dvr")
    }

    /// The mark in every folder onair made: nothing without it is removed.
    static let mark = ".onair-dvr"

    /// Makes this folder anew, for `channel`'s broadcast, after removing the folders onair made
    /// for runs whose process is gone. Throws when the folder cannot be made, or is there already
    /// and not onair's.
    public func makeAnew(channel: ChannelName) throws {
        let root = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        Self.removeAbandoned(in: root, channel: channel)
        if Self.exists(url) {
            guard Self.isOurs(url) else {
                throw FileFailure(path: url.path, reason: Self.notOurs)
            }
            try FileManager.default.removeItem(at: url)
        }
        try prepare()
    }

    /// This process's folder for `channel` under `root`, not made yet: an origin's channel makes it
    /// with its first segment, on the thread that writes it (``prepare()``). `windows`: the
    /// folder's board, when another value of the same folder has one already.
    public static func ofThisProcess(
        root: URL, channel: ChannelName, seconds: Double, windows: Windows = Windows()
    ) -> DVRFolder {
        DVRFolder(url: root.appendingPathComponent("\(channel).\(getpid())"), seconds: seconds, windows: windows)
    }

    /// Makes the folder, with its mark, when it is not there yet; refuses one that is not onair's.
    /// In a shared `--dvr-dir` someone may plant a link under the folder's name: the folder is made
    /// with `mkdir` (which never follows one), opened without following links, checked to be a
    /// folder of this user, and its mark is made inside it through that open folder. A ladder's
    /// renditions make it from their own threads, so one makes it at a time: another would see the
    /// folder before its mark, and refuse it.
    public func prepare() throws {
        try Self.preparing.withLock { _ in try makeWithMark() }
    }

    /// Folders are made one at a time in a process (``prepare()``).
    private static let preparing = Mutex(())

    private func makeWithMark() throws {
        if Self.exists(url) {
            guard Self.isOurs(url) else {
                throw FileFailure(path: url.path, reason: Self.notOurs)
            }
            return
        }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        guard mkdir(url.path, 0o700) == 0 else { throw Self.failure(url) }
        let folder = open(url.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard folder >= 0 else { throw Self.failure(url) }
        defer { close(folder) }
        var info = stat()
        guard fstat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, info.st_uid == getuid() else {
            throw FileFailure(path: url.path, reason: Self.notOurs)
        }
        let mark = openat(folder, Self.mark, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard mark >= 0 else { throw Self.failure(url) }
        close(mark)
    }

    private static func failure(_ url: URL) -> any Error {
        FileFailure(path: url.path, errorNumber: errno)
    }

    /// Why a folder under the window's name is not used.
    private static let notOurs = "is there already and is not a rewind folder of this user's (no .onair-dvr mark)"

    /// Something is there under the name, a link included (not followed).
    private static func exists(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0
    }

    /// A folder (not a link to one) of this user, holding onair's mark as a plain file.
    private static func isOurs(_ url: URL) -> Bool {
        var folder = stat()
        var mark = stat()
        return lstat(url.path, &folder) == 0 && folder.st_mode & S_IFMT == S_IFDIR && folder.st_uid == getuid()
            && lstat(url.appendingPathComponent(Self.mark).path, &mark) == 0 && mark.st_mode & S_IFMT == S_IFREG
    }

    /// Removes the folders onair made under `root` for runs whose process is gone: `channel`'s, or
    /// every channel's.
    public static func removeAbandoned(in root: URL, channel: ChannelName? = nil) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [] {
            let folder = root.appendingPathComponent(name)
            let owner =
                channel.map { ownerProcess(of: name, channel: $0.text) }
                ?? name.lastIndex(of: ".").flatMap { ownerProcess(of: name, channel: String(name[..<$0])) }
            guard let owner, owner != getpid(), !isRunning(owner), isOurs(folder) else { continue }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// `2 h`, `90 min`, `45 s`, for messages.
    public static func describe(seconds: Double) -> String {
        let whole = Int(seconds.rounded())
        if whole % 3600 == 0 { return "\(whole / 3600) h" }
        if whole % 60 == 0 { return "\(whole / 60) min" }
        return "\(whole) s"
    }

    /// The folder of a rendition (`nil`: the channel has one, whose files are at the top).
    public func folder(of rendition: String?) -> URL {
        rendition.map { url.appendingPathComponent($0) } ?? url
    }

    /// Removes the window: the broadcast is over.
    public func remove() {
        windows.clear()
        try? FileManager.default.removeItem(at: url)
    }

    /// The process id in `<channel>.<pid>`, when `name` is such a folder of this channel.
    static func ownerProcess(of name: String, channel: String) -> pid_t? {
        guard name.hasPrefix(channel + ".") else { return nil }
        let digits = name.dropFirst(channel.count + 1)
        guard !digits.isEmpty, digits.count <= 10, digits.allSatisfy(\.isNumber) else { return nil }
        return pid_t(digits)
    }

    private static func isRunning(_ pid: pid_t) -> Bool {
        kill(pid, 0) == 0 || errno == EPERM
    }
}
