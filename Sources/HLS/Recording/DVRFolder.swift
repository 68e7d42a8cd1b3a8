public import Foundation
public import HLSModel

/// Where a channel's rewind window (`--dvr`) lives on disk while the broadcast runs:
/// `<root>/<channel>.<process id>/`, with a folder per rendition for a ladder, as the live files
/// are laid out. It is scratch space: made at the start, removed at the end, and a folder a killed
/// run left behind is removed by the next start (its process is gone). Only folders onair made (they
/// hold a `.onair-dvr` mark) are ever removed: `--dvr-dir` may be a folder with other things in it.
public struct DVRFolder: Sendable {
    public let url: URL
    /// How far back viewers may go, in seconds.
    public let seconds: Double

    public init(url: URL, seconds: Double) {
        self.url = url
        self.seconds = seconds
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

    /// Makes this process's folder for `channel` under `root`, after removing the folders onair made
    /// for runs whose process is gone. Throws when the folder cannot be made, or is there already
    /// and not onair's.
    public static func make(root: URL, channel: ChannelName, seconds: Double) throws -> DVRFolder {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        removeAbandoned(in: root, channel: channel)
        let window = ofThisProcess(root: root, channel: channel, seconds: seconds)
        if FileManager.default.fileExists(atPath: window.url.path) {
            guard isMarked(window.url) else {
                throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: window.url.path])
            }
            try FileManager.default.removeItem(at: window.url)
        }
        try window.prepare()
        return window
    }

    /// This process's folder for `channel` under `root`, not made yet: an origin's channel makes it
    /// with its first segment, on the thread that writes it (``prepare()``).
    public static func ofThisProcess(root: URL, channel: ChannelName, seconds: Double) -> DVRFolder {
        DVRFolder(url: root.appendingPathComponent("\(channel).\(getpid())"), seconds: seconds)
    }

    /// Makes the folder, with its mark, when it is not there yet; refuses one that is not onair's.
    public func prepare() throws {
        if FileManager.default.fileExists(atPath: url.path) {
            guard Self.isMarked(url) else {
                throw CocoaError(.fileWriteFileExists, userInfo: [NSFilePathErrorKey: url.path])
            }
            return
        }
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data().write(to: url.appendingPathComponent(Self.mark))
    }

    /// Removes the folders onair made under `root` for runs whose process is gone: `channel`'s, or
    /// every channel's.
    public static func removeAbandoned(in root: URL, channel: ChannelName? = nil) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? [] {
            let folder = root.appendingPathComponent(name)
            let owner =
                channel.map { ownerProcess(of: name, channel: $0.text) }
                ?? name.lastIndex(of: ".").flatMap { ownerProcess(of: name, channel: String(name[..<$0])) }
            guard let owner, owner != getpid(), !isRunning(owner), isMarked(folder) else { continue }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    private static func isMarked(_ folder: URL) -> Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent(mark).path)
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
