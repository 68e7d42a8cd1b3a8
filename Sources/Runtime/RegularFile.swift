import Glibc

/// Reads a file a user names (a watermark, a certificate): only a regular file, never a device, a
/// FIFO or a folder (which could block forever or never end), and never more than a limit.
public enum RegularFile {
    public enum Problem: Error, Equatable {
        /// It does not exist, or this user may not read it.
        case unreadable
        /// A device, FIFO, socket or folder.
        case notRegular
        /// Larger than the limit.
        case tooLarge(limit: Int)
    }

    /// The bytes of the regular file at `path`, at most `limit` of them. `followingLinks: false`
    /// for files a server serves from its folders: a symbolic link there is not followed.
    public static func read(_ path: String, limit: Int, followingLinks: Bool = true) throws(Problem) -> [UInt8] {
        let (descriptor, size) = try open(path, followingLinks: followingLinks)
        defer { close(descriptor) }
        guard size <= limit else { throw .tooLarge(limit: limit) }
        var bytes = [UInt8](repeating: 0, count: size)
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(descriptor, buffer.baseAddress! + filled, buffer.count - filled)
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }  // the file shrank while it was read
            filled += count
        }
        return Array(bytes[0..<filled])
    }

    /// Opens the regular file at `path` for reading, never through a symbolic link: its descriptor
    /// (the caller's to close) and its size; nil for anything else.
    public static func openForReading(_ path: String) -> (descriptor: Int32, size: Int)? {
        try? open(path, followingLinks: false)
    }

    /// Opens a regular file for reading: its descriptor (the caller's to close) and its size.
    /// Opened without blocking, so a FIFO without a writer cannot hold the open; then looked at.
    private static func open(_ path: String, followingLinks: Bool) throws(Problem) -> (descriptor: Int32, size: Int) {
        let descriptor = Glibc.open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | (followingLinks ? 0 : O_NOFOLLOW))
        guard descriptor >= 0 else { throw .unreadable }
        var status = stat()
        let looked = fstat(descriptor, &status) == 0
        guard looked, status.st_mode & S_IFMT == S_IFREG else {
            close(descriptor)
            throw looked ? .notRegular : .unreadable
        }
        return (descriptor, Int(status.st_size))
    }

    /// Whether `path` is a folder itself, not a symbolic link to one.
    public static func isFolder(_ path: String) -> Bool {
        var status = stat()
        return lstat(path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }
}
