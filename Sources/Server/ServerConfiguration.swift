/// Where the built-in HTTP server listens and whom it lets in.
public struct ServerConfiguration: Sendable, Equatable {
    public var host: String
    public var port: Int
    /// The `Access-Control-Allow-Origin` value (`*` lets any web page play the stream).
    public var allowOrigin: String

    public init(host: String = "0.0.0.0", port: Int = 8080, allowOrigin: String = "*") {
        self.host = host
        self.port = port
        self.allowOrigin = allowOrigin
    }

    /// The host a person on this machine types into a browser.
    public var displayHost: String {
        host == "0.0.0.0" || host == "::" ? "localhost" : host
    }

    /// The playlist address of a channel.
    public func playlistURL(channel: String) -> String {
        "http://\(displayHost):\(port)/live/\(channel)/index.m3u8"
    }

    /// The watch page of a channel.
    public func watchURL(channel: String) -> String {
        "http://\(displayHost):\(port)/watch/\(channel)"
    }
}
