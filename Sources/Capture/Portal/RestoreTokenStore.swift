import FoundationEssentials
import Runtime
#if canImport(Glibc)
    import Glibc
#endif

/// Where the portal's restore tokens are kept between runs, one per channel and kind of source, so
/// that a broadcast restarted by a service manager shares the same screen without asking again,
/// and two channels sharing two screens each keep their own. In onair's state folder (given:
/// `$XDG_STATE_HOME/onair/`, default `~/.local/state/onair/`), files
/// `<channel>.portal-screen.token` and `<channel>.portal-window.token`, readable by the user
/// only. A token is used once: each start stores the one the portal gives back.
public struct RestoreTokenStore: Sendable {
    public let directory: String
    /// The channel the tokens are kept for (a channel name is safe in a file name).
    public let channel: String
    private let warn: @Sendable (String) -> Void

    public init(directory: String, channel: String, warn: @escaping @Sendable (String) -> Void) {
        self.directory = directory
        self.channel = channel
        self.warn = warn
    }

    public func path(for kind: ScreenCastPortal.Kind) -> String {
        directory + "/\(channel).portal-\(kind.rawValue).token"
    }

    /// Where earlier versions kept one token per kind of source, for every channel.
    func legacyPath(for kind: ScreenCastPortal.Kind) -> String { directory + "/portal-\(kind.rawValue).token" }

    /// The channel's token; else a token an earlier version kept for every channel, taken by the
    /// first channel to start (a token is used once, so it is removed) rather than a dialog more.
    func load(_ kind: ScreenCastPortal.Kind) -> String? {
        if let token = Self.read(path(for: kind)) { return token }
        guard let token = Self.read(legacyPath(for: kind)) else { return nil }
        unlink(legacyPath(for: kind))
        return token
    }

    private static func read(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path),
            let token = String(data: data, encoding: .utf8)?.trimmingWhitespace(),
            !token.isEmpty
        else { return nil }
        return token
    }

    func save(_ token: String, for kind: ScreenCastPortal.Kind) {
        do {
            try FileManager.default.createDirectory(
                atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let temporary = path(for: kind) + ".tmp"
            guard
                FileManager.default.createFile(
                    atPath: temporary, contents: Data((token + "\n").utf8), attributes: [.posixPermissions: 0o600])
            else { throw CocoaError(.fileWriteUnknown) }
            guard rename(temporary, path(for: kind)) == 0 else { throw CocoaError(.fileWriteUnknown) }
        } catch {
            warn("cannot keep the portal's restore token in \(directory): the next start will ask again")
        }
    }
}
