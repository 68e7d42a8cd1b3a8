public import Foundation

/// Files in a folder of this machine's disk: each written under a temporary name and renamed into
/// place, so a reader sees the whole file or none and a failure (a full disk) leaves nothing
/// behind. Folders are made by ``makeFolder(_:)`` only: a folder removed under a sink is a failure
/// it reports, not one it quietly makes again.
public struct DiskStore: FileStore {
    public let root: URL

    public init(root: URL) {
        self.root = root
    }

    /// The file at `path`.
    public func url(of path: String) -> URL {
        path.isEmpty ? root : root.appendingPathComponent(path)
    }

    public func put(_ path: String, bytes: [UInt8], timeout: Double = 0) throws(StoreFailure) {
        let target = url(of: path)
        do {
            try writeAtomically(bytes, as: target.lastPathComponent, in: target.deletingLastPathComponent())
        } catch {
            throw .disk(Self.reason(error))
        }
    }

    public func delete(_ path: String, timeout: Double = 0) throws(StoreFailure) {
        guard unlink(url(of: path).path) == 0 || errno == ENOENT else {
            throw .disk(String(cString: strerror(errno)))
        }
    }

    /// Makes the folder at `path` (the root itself by default) and those above it.
    public func makeFolder(_ path: String = "") throws(StoreFailure) {
        do {
            try FileManager.default.createDirectory(at: url(of: path), withIntermediateDirectories: true)
        } catch {
            throw .disk(Self.reason(error))
        }
    }

    /// What went wrong, as the error says it.
    static func reason(_ error: any Error) -> String { "\(error)" }
}

/// Writes a file under a temporary name and renames it into place.
private func writeAtomically(_ bytes: [UInt8], as name: String, in folder: URL) throws {
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
