import CompressNIO
public import HLS
import Hummingbird
import Media

/// `/live/<channel>/<file>`: playlists (never cached stale, gzip'd when the client accepts it)
/// and segments (immutable once listed). Playlist requests count viewers.
struct LiveRoutes {
    let directory: ChannelDirectory
    let viewers: ViewerRegistry
    /// Sent on every response, not only to requests with an Origin: a segment cached from a
    /// plain request is then still usable by a page on another site.
    let allowOrigin: String
    let bodies = BodyCache()

    func register(on router: Router<ServerContext>) {
        router.get("/live/:channel/:file") { request, context in
            try await serve(request: request, context: context)
        }
        router.head("/live/:channel/:file") { request, context in
            let response = try await serve(request: request, context: context)
            return Response(status: response.status, headers: response.headers)
        }
    }

    private func serve(request: Request, context: ServerContext) async throws -> Response {
        let channelName = try context.parameters.require("channel")
        let fileName = try context.parameters.require("file")
        let live: LiveRequest
        do throws(LiveRequest.Problem) {
            live = try LiveRequest.parse(channel: channelName, file: fileName, query: request.uri.query)
        } catch {
            throw HTTPError(error == .notFound ? .notFound : .badRequest, message: error.description)
        }
        let channel = live.channel
        let name = live.file
        guard let store = directory.store(named: channel), var file = try await file(for: live, in: store) else {
            throw HTTPError(.notFound, message: "No such channel or file.")
        }
        let now = Double(MediaClock.monotonicNanoseconds()) / 1e9
        if file.immutable {
            viewers.mediaRequested(channel: channel, at: now)
        } else {
            let session = live.session
            let viewer = ViewerRegistry.viewerKey(
                session: session, address: context.remoteAddress?.ipAddress,
                userAgent: request.headers[.userAgent])
            viewers.playlistRequested(
                channel: channel, by: viewer, at: now, window: store.viewerWindow)
            if name == SegmentStore.multivariantPlaylistName, let session, ViewerRegistry.isSession(session) {
                file.bytes = store.multivariantPlaylist(variantQuery: "session=" + session)
            }
        }
        var headers: HTTPFields = [
            .contentType: file.contentType,
            .cacheControl: file.immutable ? "public, max-age=31536000, immutable" : "no-cache",
            .accessControlAllowOrigin: allowOrigin,
        ]
        let gzip = !file.immutable && Self.acceptsGzip(request.headers[.acceptEncoding])
        // Variants of one file (a delta update, a session's playlist) are cached apart.
        var key = channel + "/" + name
        if live.skip != nil { key += "?skip" }
        if name == SegmentStore.multivariantPlaylistName, let session = live.session { key += "?" + session }
        let body = try bodies.body(for: key, bytes: file.bytes, gzip: gzip)
        if gzip {
            headers[.contentEncoding] = "gzip"
            headers[.vary] = "Accept-Encoding"
        }
        headers[.contentLength] = String(body.readableBytes)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
    }

    /// The file as this request should get it. For Low-Latency HLS: a media playlist request with
    /// `_HLS_msn` (and `_HLS_part`) waits until the playlist holds that segment (part), and
    /// `_HLS_skip=YES` gets the delta update; a request for the hinted next part waits for it.
    /// Held at most three target durations, then 503.
    func file(for request: LiveRequest, in store: SegmentStore) async throws -> SegmentStore.File? {
        let name = request.file
        guard store.configuration.partDuration != nil else { return store.file(named: name) }
        let timeout = Duration.seconds(3 * Double(store.configuration.targetDuration))
        if name.hasPrefix("part") {
            return await store.part(named: name, timeout: timeout)
        }
        guard name == SegmentStore.mediaPlaylistName, var file = store.file(named: name) else {
            return store.file(named: name)
        }
        do {
            try store.checkReload(msn: request.msn, part: request.part)
        } catch {
            throw HTTPError(.badRequest, message: error.description)
        }
        if let msn = request.msn, await !store.waitUntilListed(msn: msn, part: request.part, timeout: timeout) {
            throw HTTPError(.serviceUnavailable, message: "_HLS_msn=\(msn) did not come in three target durations")
        }
        file.bytes = store.mediaPlaylist(skip: request.skip != nil)
        return file
    }

    /// True when an Accept-Encoding value lists gzip with a non-zero quality.
    static func acceptsGzip(_ value: String?) -> Bool {
        guard let value else { return false }
        return value.split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { $0.filter { $0 != " " && $0 != "\t" }.lowercased() }
            guard parts.first == "gzip" else { return false }
            return !parts.dropFirst().contains { $0 == "q=0" || $0 == "q=0.0" || $0 == "q=0.00" || $0 == "q=0.000" }
        }
    }
}

extension SegmentStore {
    /// How long a player counts as watching after its last playlist reload: three target
    /// durations, so one slow reload does not drop it.
    public var viewerWindow: Double { 3 * configuration.segmentDuration.rounded(.up) }
}
