import FoundationEssentials
import Runtime
#if canImport(Glibc)
    import Glibc
#endif

/// The control API's bearer token when none is given: random, and kept in a file only its owner
/// can read, where scripts on this machine find it.
enum ControlToken {
    /// 32 characters of base64url: 192 random bits.
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacing("+", with: "-").replacing("/", with: "_")
    }

    /// `<channel>.token` in onair's state folder (`StateFolder`), beside the portal's restore tokens.
    static func file(channel: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        URL(fileURLWithPath: StateFolder.path(environment: environment)).appendingPathComponent("\(channel).token")
    }

    /// Writes the token with mode 0600 (the folder 0700), replacing an older one.
    static func write(_ token: String, to file: URL) throws {
        let folder = file.deletingLastPathComponent()
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = folder.appendingPathComponent(".\(file.lastPathComponent).tmp")
        unlink(temporary.path)
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw FileFailure(path: folder.path, errorNumber: errno)
        }
        let bytes = Array((token + "\n").utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == bytes.count, rename(temporary.path, file.path) == 0 else {
            let failure = FileFailure(path: file.path, errorNumber: errno)
            unlink(temporary.path)
            throw failure
        }
    }
}
