public import FoundationEssentials

/// How a packet destination (RTMP, SRT) is reached: the container libavformat muxes the
/// broadcast's packets into, the URL its protocol opens, and that protocol's options. Each kind
/// of packet destination is a folder beside this one that makes its link from a `--push` URL.
public struct PacketLink: Sendable, Equatable, CustomStringConvertible {
    public struct Option: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// libavformat's muxer: `flv`, `mpegts`.
    public var format: String
    public var url: URL
    /// Given to `avio_open2`, after the ones every link has (a 5 s stall timeout).
    public var options: [Option]
    /// The destination as logs, events and the status line name it: no key, no password.
    public var description: String
    /// Why a broadcast sent this way keeps a constant frame rate (a still screen's frames are not
    /// skipped), or nil when it need not.
    public var steadyRateReason: String?
    /// Over TLS (RTMPS): the server's certificate is verified, against the system's authorities and
    /// `--push-ca`'s.
    public var verifiesTLS: Bool

    public init(
        format: String, url: URL, options: [Option] = [], description: String, steadyRateReason: String?,
        verifiesTLS: Bool = false
    ) {
        self.format = format
        self.url = url
        self.options = options
        self.description = description
        self.steadyRateReason = steadyRateReason
        self.verifiesTLS = verifiesTLS
    }
}
