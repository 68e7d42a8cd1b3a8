public import HLSModel

/// What the HTTP server reads of a channel: files by request, figures for the pages. How files are
/// named, numbered and held stays behind it.
public protocol LiveChannel: AnyObject, Sendable {
    var name: ChannelName { get }
    func summary() -> ChannelSummary
    /// How long a player counts as watching after its last playlist reload.
    var viewerWindow: Double { get }
    /// The file as `request` should get it, nil when there is no such file. With Low-Latency HLS a
    /// blocking playlist reload or a request for the hinted next part waits for it.
    func file(for request: LiveRequest) async throws(LiveFile.Refusal) -> LiveFile?
    /// The channel's multivariant playlist as it stands now, each variant's URI carrying
    /// `session=` when given: the value the server decorates (twin origins, the rewind window's)
    /// and renders once, never reading back what it rendered.
    func multivariantPlaylist(session: String?) -> MultivariantPlaylist
}

extension MultivariantPlaylist {
    /// The variants' and I-frame streams' URIs with `session=` added, so a player's playlist
    /// reloads carry what its first request did (the server tells viewers apart by it).
    func carrying(session: String?) -> MultivariantPlaylist {
        guard let session else { return self }
        var playlist = self
        for index in playlist.variants.indices { playlist.variants[index].uri += "?session=" + session }
        for index in playlist.iFrameStreams.indices { playlist.iFrameStreams[index].uri += "?session=" + session }
        return playlist
    }
}

/// A file as a viewer gets it.
public struct LiveFile: Sendable {
    /// Why a request is not answered with a file.
    public enum Refusal: RequestRefusal, Equatable {
        /// The request cannot be answered (HTTP 400).
        case badRequest(String)
        /// What it waits for did not come in time (HTTP 503).
        case timedOut(String)

        public var description: String {
            switch self {
            case .badRequest(let reason), .timedOut(let reason): reason
            }
        }

        public var status: Int {
            switch self {
            case .badRequest: 400
            case .timedOut: 503
            }
        }
    }

    public var bytes: [UInt8]
    public var contentType: String
    /// False for playlists, which change; true for media files, which never do once listed.
    public var immutable: Bool
    /// The bytes depend on the request's `session` (a multivariant playlist whose variant URIs carry it).
    public var perSession: Bool

    public init(bytes: [UInt8], contentType: String, immutable: Bool, perSession: Bool = false) {
        self.bytes = bytes
        self.contentType = contentType
        self.immutable = immutable
        self.perSession = perSession
    }
}
