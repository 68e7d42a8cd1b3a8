public import Foundation

/// Mirrors a channel's store to DIR/live/<channel>/ for nginx, a CDN origin or a recording.
///
/// Every file is written to a temporary name and renamed into place, so a reader of the folder
/// never sees a partial segment or playlist; segments are written before the playlist that
/// names them, and removed only after they left it. When the disk fills or turns read-only,
/// the folder is left as it was (its playlist still names only files it holds) and each later
/// change tries to bring it up to date in one go; the failure and the recovery are said once.
/// Used by the packaging thread only.
public final class DirectoryMirror {
    public enum Outcome: Equatable {
        case failed(String)
        case recovered
    }

    public let folder: URL
    private var failing = false

    /// Creates the channel folder. Throws when it cannot be created or written.
    public init(root: URL, channel: String) throws {
        folder = Self.folder(root: root, channel: channel)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let probe = folder.appendingPathComponent(".onair-write-test")
        try Data().write(to: probe)
        try FileManager.default.removeItem(at: probe)
    }

    static func folder(root: URL, channel: String) -> URL {
        root.appendingPathComponent("live").appendingPathComponent(channel)
    }

    /// What an earlier run left in the channel's folder, if its playlist is there and readable.
    public static func previousRun(root: URL, channel: String) -> SegmentStore.PreviousRun? {
        let folder = folder(root: root, channel: channel)
        guard
            let data = FileManager.default.contents(
                atPath: folder.appendingPathComponent(SegmentStore.mediaPlaylistName).path),
            let playlist = MediaPlaylist.parse(String(decoding: data, as: UTF8.self))
        else { return nil }
        var files: [String: [UInt8]] = [:]
        for name in Set(playlist.segments.flatMap { [$0.uri] + ($0.map.map { [$0] } ?? []) })
        where Self.isOurs(name) && !name.contains("/") {
            if let bytes = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path) {
                files[name] = Array(bytes)
            }
        }
        return SegmentStore.PreviousRun(playlist: playlist, files: files)
    }

    /// Makes the folder hold what the store holds at the start of a run, and nothing else of
    /// ours: an earlier run's leftovers (segments a killed run never removed) go.
    public func start(from snapshot: SegmentStore.Change) -> Outcome? {
        do {
            try synchronize(with: snapshot)
            return nil
        } catch {
            failing = true
            return .failed("\(error)")
        }
    }

    /// Applies one store change; while the folder cannot be written, brings it up to date from
    /// `snapshot` instead. Returns what changed in the folder's health.
    public func apply(_ change: SegmentStore.Change, snapshot: () -> SegmentStore.Change) -> Outcome? {
        do {
            if failing {
                try synchronize(with: snapshot())
                failing = false
                return .recovered
            }
            try write(change)
            return nil
        } catch {
            defer { failing = true }
            return failing ? nil : .failed("\(error)")
        }
    }

    /// Writes the files in order, then removes what the change removed.
    private func write(_ change: SegmentStore.Change) throws {
        for (name, bytes) in change.written {
            try write(bytes, as: name)
        }
        for name in change.removed {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// Makes the folder hold exactly the snapshot's files (of those this program writes).
    private func synchronize(with snapshot: SegmentStore.Change) throws {
        try write(snapshot)
        let kept = Set(snapshot.written.map(\.name))
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path)
        where Self.isOurs(name) && !kept.contains(name) {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    private func write(_ bytes: [UInt8], as name: String) throws {
        let target = folder.appendingPathComponent(name)
        let temporary = folder.appendingPathComponent(".\(name).tmp")
        do {
            try Data(bytes).write(to: temporary)
        } catch {
            // A full disk leaves a partial temporary file: take it back.
            unlink(temporary.path)
            throw error
        }
        guard rename(temporary.path, target.path) == 0 else {
            let code = errno
            unlink(temporary.path)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO)
        }
    }

    /// The names this program writes into a channel folder.
    static func isOurs(_ name: String) -> Bool {
        name.hasSuffix(".m3u8") || name.hasPrefix("seg") || name.hasPrefix("init") || name.hasPrefix("part")
            || (name.hasPrefix(".") && name.hasSuffix(".tmp"))
    }
}
