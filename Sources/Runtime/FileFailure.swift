#if canImport(Glibc)
    import Glibc
#endif

/// A file or folder that could not be made, written or used, with its path and why: what the
/// user reads, so it names both.
public struct FileFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public let path: String
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    /// The system's reason for an error number (`errno` after a failed call).
    public init(path: String, errorNumber: Int32) {
        self.init(path: path, reason: String(cString: strerror(errorNumber)))
    }

    public var description: String { "\(path): \(reason)" }
}
