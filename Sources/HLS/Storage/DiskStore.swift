public import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#endif

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
        try put(path, timeout: timeout) { emit throws(StoreFailure) in try emit(bytes) }
    }

    /// Each piece is written as it comes: the file is never whole in memory.
    public func put(_ path: String, timeout: Double = 0, streaming body: StreamedBody) throws(StoreFailure) {
        let target = url(of: path)
        try writeAtomically(as: target.lastPathComponent, in: target.deletingLastPathComponent()) {
            descriptor throws(StoreFailure) in
            try body { piece throws(StoreFailure) in try writeAll(piece, to: descriptor) }
        }
    }

    public func delete(_ path: String, timeout: Double = 0) throws(StoreFailure) {
        guard unlink(url(of: path).path) == 0 || errno == ENOENT else {
            throw systemFailure(errno)
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

/// Writes a file under a temporary name and renames it into place. The bytes are written into a
/// file with no name (`O_TMPFILE`) that is given its temporary name only once it is whole, so a
/// process killed while writing (SIGKILL, power) leaves nothing in the folder: the only moment a
/// temporary name exists is between two system calls, the link and the rename. A file system
/// without unnamed files gets the plain way: written under the temporary name, then renamed.
private func writeAtomically(
    as name: String, in folder: URL, writing body: (_ descriptor: Int32) throws(StoreFailure) -> Void
) throws(StoreFailure) {
    let target = folder.appendingPathComponent(name)
    let temporary = folder.appendingPathComponent(".\(name).tmp")
    let unnamed = open(folder.path, unnamedFileFlags, 0o644)
    if unnamed < 0 {
        guard errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL else {
            throw systemFailure(errno)
        }
        try writeNamed(to: temporary, writing: body)
    } else {
        defer { close(unnamed) }
        try body(unnamed)
        unlink(temporary.path)  // one a killed run may have left
        guard linkat(AT_FDCWD, "/proc/self/fd/\(unnamed)", AT_FDCWD, temporary.path, AT_SYMLINK_FOLLOW) == 0 else {
            throw systemFailure(errno)
        }
    }
    guard rename(temporary.path, target.path) == 0 else {
        let code = errno
        unlink(temporary.path)
        throw systemFailure(code)
    }
}

/// A failed system call, said as the system says it: `No space left on device`.
private func systemFailure(_ code: Int32) -> StoreFailure { .disk(String(cString: strerror(code))) }

/// `O_TMPFILE | O_WRONLY | O_CLOEXEC`: Linux's `O_TMPFILE` is a compound macro Swift does not import.
private let unnamedFileFlags: Int32 = 0o20000000 | O_DIRECTORY | O_WRONLY | O_CLOEXEC

private func writeAll(_ bytes: [UInt8], to descriptor: Int32) throws(StoreFailure) {
    var written = 0
    while written < bytes.count {
        let count = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, $0.count - written) }
        if count < 0 {
            if errno == EINTR { continue }
            throw systemFailure(errno)
        }
        written += count
    }
}

private func writeNamed(
    to temporary: URL, writing body: (_ descriptor: Int32) throws(StoreFailure) -> Void
) throws(StoreFailure) {
    let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { throw systemFailure(errno) }
    defer { close(descriptor) }
    do {
        try body(descriptor)
    } catch {
        // A full disk leaves a partial temporary file: take it back.
        unlink(temporary.path)
        throw error
    }
}
