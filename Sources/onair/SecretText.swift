import ArgumentParser
import FoundationEssentials
import Media
import Runtime
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// A secret given to an option (`--push`, `--push-header`, `--control-token`, `--viewer-token`,
/// `--ingest-token`): the text itself, or `@PATH` for the first line of the file at PATH, so the
/// secret stays out of `/proc/PID/cmdline`, which every local user can read. With systemd,
/// `LoadCredential=push-header:/etc/onair/push-header` and `--push-header @%d/push-header`.
/// A file others may read is used, with one warning.
enum SecretText {
    /// The secret's text; `@PATH` read from its file. One line saying what to fix when it cannot be read.
    static func resolve(_ value: String, option: String) throws -> String {
        guard value.hasPrefix("@") else { return value }
        let path = String(value.dropFirst())
        let bytes: [UInt8]
        do throws(RegularFile.Problem) {
            bytes = try RegularFile.read(path, limit: 64 << 10)
        } catch {
            switch error {
            case .unreadable: throw ValidationError("\(option) @\(path): the file cannot be read; check the path")
            case .notRegular: throw ValidationError("\(option) @\(path) is not a regular file")
            case .tooLarge: throw ValidationError("\(option) @\(path) is larger than 64 KiB")
            }
        }
        let line = String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline).first.map(String.init)
        guard let text = line?.trimmingWhitespace(), !text.isEmpty else {
            throw ValidationError("\(option) @\(path) is empty: the secret goes on its first line")
        }
        warnIfShared(path, what: "\(option) @\(path)")
        return text
    }

    /// Says once, on standard error, that a file holding a secret can be read by other users.
    static func warnIfShared(_ path: String, what: String) {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & 0o077 != 0 else { return }
        let mode = String(status.st_mode & 0o777, radix: 8)
        let first = warned.withLock { $0.insert(path).inserted }
        guard first else { return }
        writeToStandardError("warning: \(what) can be read by other users (mode \(mode)); chmod 600 \(path)\n")
    }

    private static let warned = Mutex<Set<String>>([])
}
