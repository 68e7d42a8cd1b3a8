public import Foundation

/// Mirrors a channel's store to DIR/live/<channel>/ for nginx, a CDN origin or a recording.
///
/// Every file is written to a temporary name and renamed into place, so a reader of the folder
/// never sees a partial segment or playlist; segments are written before the playlist that
/// names them, and removed only after they left it.
public final class DirectoryMirror: Sendable {
    public let folder: URL

    /// Creates the channel folder. Throws when it cannot be created or written.
    public init(root: URL, channel: String) throws {
        folder = root.appendingPathComponent("live").appendingPathComponent(channel)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let probe = folder.appendingPathComponent(".onair-write-test")
        try Data().write(to: probe)
        try FileManager.default.removeItem(at: probe)
    }

    /// Applies one store change in order: written files, then removals.
    public func apply(_ change: SegmentStore.Change) throws {
        for (name, bytes) in change.written {
            let target = folder.appendingPathComponent(name)
            let temporary = folder.appendingPathComponent(".\(name).tmp")
            try Data(bytes).write(to: temporary)
            guard rename(temporary.path, target.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
            }
        }
        for name in change.removed {
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }
}
