public import FoundationEssentials
import HLS
public import HLSModel

/// Where the built-in HTTP server listens and whom it lets in.
public struct ServerConfiguration: Sendable, Equatable {
    public var host: String
    public var port: Int
    /// The `Access-Control-Allow-Origin` value (`*` lets any web page play the stream).
    public var allowOrigin: String
    /// With a certificate: HTTPS, HTTP/2 for clients that offer it (ALPN), HTTP/1.1 otherwise.
    public var tls: TLSFiles?
    /// The bearer token the control API asks for; empty refuses every control request.
    public var controlToken: String
    /// With it, every channel is private: its playlists and media need a signed, expiring URL.
    public var viewerAccess: ViewerAccess?
    /// Seconds a connection may sit without a request in progress (before its first request's
    /// headers are complete, or after a response) before it is closed. A held Low-Latency HLS
    /// reload is a request in progress, so it is not cut.
    public var idleTimeout: Double
    /// Plain HTTP/1 connections held at once (see `ConnectionGuard`).
    public var maxConnections: Int
    /// A `--record` folder whose recordings the server lists and plays (`/api/recordings`,
    /// `/recordings/…`, `/watch/<channel>/<recording>`); public servers only.
    public var recordings: URL?
    /// Every origin serving these channels (`--pathway`): the multivariant playlists offer each
    /// one to players, who move to the next when one stops answering. Empty with one origin.
    public var pathways: [Pathway] = []

    public init(
        host: String = "0.0.0.0", port: Int = 8080, allowOrigin: String = "*", tls: TLSFiles? = nil,
        controlToken: String = "", viewerAccess: ViewerAccess? = nil, idleTimeout: Double = 30,
        maxConnections: Int = 10_000
    ) {
        self.host = host
        self.port = port
        self.allowOrigin = allowOrigin
        self.tls = tls
        self.controlToken = controlToken
        self.viewerAccess = viewerAccess
        self.idleTimeout = idleTimeout
        self.maxConnections = maxConnections
    }

    public var scheme: String { tls == nil ? "http" : "https" }

    /// The host a person on this machine types into a browser.
    public var displayHost: String {
        host == "0.0.0.0" || host == "::" ? "localhost" : host
    }

    /// The playlist address of a channel (signed now, for a private channel).
    public func playlistURL(channel: ChannelName) -> String {
        "\(scheme)://\(displayHost):\(port)/live/\(channel)/index.m3u8" + signedQuery(channel: channel)
    }

    /// The control API of a channel.
    public func apiURL(channel: ChannelName) -> String {
        "\(scheme)://\(displayHost):\(port)/api/channels/\(channel)"
    }

    /// The watch page of a channel (signed now, for a private channel).
    public func watchURL(channel: ChannelName) -> String {
        "\(scheme)://\(displayHost):\(port)/watch/\(channel)" + signedQuery(channel: channel)
    }

    /// `?token=…` as handed out now, for a private channel; empty otherwise.
    private func signedQuery(channel: ChannelName) -> String {
        guard let viewerAccess else { return "" }
        return "?token=" + viewerAccess.token(channel: channel, now: Date().timeIntervalSince1970)
    }
}
