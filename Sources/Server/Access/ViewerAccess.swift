import Crypto
import FoundationEssentials
public import HLSModel

/// Private channels: a channel's playlists and media need a signed, expiring token in the query
/// (`?token=EXPIRES.SIGNATURE`), which the server carries into every URI of the playlists it
/// serves, so a player that signs only its first request still plays.
///
/// A token is `EXPIRES.SIGNATURE`: `EXPIRES` the Unix time (seconds) it stops working,
/// `SIGNATURE` the unpadded base64url HMAC-SHA256, keyed by the secret, of
/// `onair-viewer:<channel>:<EXPIRES>`. It grants one channel, whatever file.
///
/// Edges cache by URI, so a token must be the same for many viewers: every token handed out in one
/// period (`lifetime` seconds, counted from the Unix epoch) expires at the end of the next one. A
/// link works for between one and two lifetimes, at most two tokens of a channel are alive at
/// once, and an edge fetches each object at most once per token alive.
public struct ViewerAccess: Sendable, Equatable {
    private let secret: String
    /// Seconds: a token handed out works for at least this long, at most twice.
    public let lifetime: Int

    public init(secret: String, lifetime: Int = 3600) {
        self.secret = secret
        self.lifetime = max(1, lifetime)
    }

    /// The token handed out at `now` (Unix seconds) for `channel`.
    public func token(channel: ChannelName, now: Double) -> String {
        let period = Int((now / Double(lifetime)).rounded(.down))
        return token(channel: channel, expires: (period + 2) * lifetime)
    }

    /// The token for `channel` that stops working at `expires` (Unix seconds).
    public func token(channel: ChannelName, expires: Int) -> String {
        "\(expires)." + Self.base64URL(signature(channel: channel, expires: expires))
    }

    /// Seconds the token has left for `channel` at `now`, nil when it is not valid: malformed,
    /// signed for another channel or with another secret, or expired.
    public func secondsLeft(token: String, channel: ChannelName, now: Double) -> Int? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, (1...12).contains(parts[0].utf8.count),
            parts[0].utf8.allSatisfy({ (48...57).contains($0) }),
            let expires = Int(parts[0]), String(expires) == parts[0],
            let given = Self.decodeBase64URL(parts[1]), given.count == 32,
            // One spelling per token (the last character has two bits to spare): one URI per grant.
            Self.base64URL(given) == parts[1]
        else { return nil }
        // Compared by CryptoKit's constant-time check: the time taken says nothing of a near guess.
        let message = Self.message(channel: channel, expires: expires)
        guard HMAC<SHA256>.isValidAuthenticationCode(given, authenticating: message, using: key) else { return nil }
        let left = Double(expires) - now
        return left > 0 ? Int(left.rounded(.up)) : nil
    }

    /// True when `header` is `Bearer <secret>`: the host's own backend, which may ask for links.
    public func isSecret(bearer header: String?) -> Bool {
        ControlRoutes.bearerMatches(header, token: secret)
    }

    /// The channel's token as a link may carry it: a fresh one for the host, the one a viewer
    /// gave while it works, nil otherwise.
    func linkToken(channel: ChannelName, grant: LinkGrant, now: Double) -> String? {
        switch grant {
        case .host: token(channel: channel, now: now)
        case .token(let given): secondsLeft(token: given, channel: channel, now: now) == nil ? nil : given
        case .none: nil
        }
    }

    /// When `token` stops working (Unix seconds).
    static func expiry(of token: String) -> Int? {
        token.split(separator: ".").first.flatMap { Int($0) }
    }

    /// Made on use: CryptoKit's key type is not Sendable, and an HMAC key costs nothing to make.
    private var key: SymmetricKey { SymmetricKey(data: Array(secret.utf8)) }

    private func signature(channel: ChannelName, expires: Int) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Self.message(channel: channel, expires: expires), using: key))
    }

    private static func message(channel: ChannelName, expires: Int) -> [UInt8] {
        Array("onair-viewer:\(channel):\(expires)".utf8)
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacing("+", with: "-").replacing("/", with: "_")
            .replacing("=", with: "")
    }

    static func decodeBase64URL(_ text: Substring) -> [UInt8]? {
        guard text.utf8.count <= 64 else { return nil }
        var standard = String(text.replacing("-", with: "+").replacing("_", with: "/"))
        guard !standard.contains("=") else { return nil }
        standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
        return Data(base64Encoded: standard).map(Array.init)
    }
}

/// Who asks for a private channel's links.
enum LinkGrant: Equatable {
    /// A stranger: no links.
    case none
    /// A viewer with a token: links with that same token, while it works (never a longer-lived one).
    case token(String)
    /// The host (the viewer secret, or the control token): links signed now.
    case host
}
