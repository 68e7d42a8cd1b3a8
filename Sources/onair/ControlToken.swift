import Foundation

/// The control API's bearer token when none is given: random, and kept in a file only its owner
/// can read, where scripts on this machine find it.
enum ControlToken {
    /// 32 characters of base64url: 192 random bits.
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<24).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }

    /// `$XDG_STATE_HOME/onair/<channel>.token`, or under `$HOME/.local/state` (the account's home
    /// folder when `$HOME` is unset): where the portal's restore tokens are kept too. Relative
    /// paths are ignored, as the XDG base directory rules ask.
    static func file(channel: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let state: URL
        if let folder = environment["XDG_STATE_HOME"], folder.hasPrefix("/") {
            state = URL(fileURLWithPath: folder)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            state = URL(fileURLWithPath: home).appendingPathComponent(".local/state")
        } else {
            state = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/state")
        }
        return state.appendingPathComponent("onair").appendingPathComponent("\(channel).token")
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
            throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: folder.path])
        }
        let bytes = Array((token + "\n").utf8)
        let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == bytes.count, rename(temporary.path, file.path) == 0 else {
            unlink(temporary.path)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
    }
}
