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

    public init(
        host: String = "0.0.0.0", port: Int = 8080, allowOrigin: String = "*", tls: TLSFiles? = nil,
        controlToken: String = ""
    ) {
        self.host = host
        self.port = port
        self.allowOrigin = allowOrigin
        self.tls = tls
        self.controlToken = controlToken
    }

    public var scheme: String { tls == nil ? "http" : "https" }

    /// The host a person on this machine types into a browser.
    public var displayHost: String {
        host == "0.0.0.0" || host == "::" ? "localhost" : host
    }

    /// The playlist address of a channel.
    public func playlistURL(channel: String) -> String {
        "\(scheme)://\(displayHost):\(port)/live/\(channel)/index.m3u8"
    }

    /// The control API of a channel.
    public func apiURL(channel: String) -> String {
        "\(scheme)://\(displayHost):\(port)/api/channels/\(channel)"
    }

    /// The watch page of a channel.
    public func watchURL(channel: String) -> String {
        "\(scheme)://\(displayHost):\(port)/watch/\(channel)"
    }
}
