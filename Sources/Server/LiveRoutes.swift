import CompressNIO
import FoundationEssentials
import HLS
import HLSModel
import Hummingbird
import NIOPosix
import Runtime

/// `/live/<channel>/<file>`: playlists (cacheable for a second, gzip'd when the client accepts it)
/// and segments (immutable once listed). Playlist requests count viewers. With viewer access,
/// every file needs the channel's token, and the playlists carry it into every URI they list.
struct LiveRoutes {
    let registry: ChannelRegistry
    let viewers: ViewerRegistry
    let access: ViewerAccess?
    /// Sent on every response, not only to requests with an Origin: a segment cached from a
    /// plain request is then still usable by a page on another site.
    let allowOrigin: String
    /// Twin origins offered to players (`--pathway`); empty with one origin.
    let pathways: [Pathway]
    /// Which of them answer (nil: all are taken to).
    let pathwayHealth: PathwayHealth?
    let bodies = BodyCache()

    func register(on router: Router<ServerContext>) {
        router.get("/live/:channel/:file") { request, context in
            try await serve(request: request, context: context)
        }
        // A rendition's file, for a channel published in several: `/live/<channel>/<rendition>/<file>`
        // (the router wants one name per depth, so the rendition comes as `:file` and the file as `:inner`).
        router.get("/live/:channel/:file/:inner") { request, context in
            try await serve(request: request, context: context)
        }
        if !pathways.isEmpty {
            router.get("/steering/:channel") { request, context in
                let channel = try context.parameters.channel()
                return try steeringManifest(channel: channel, current: request.uri.queryParameters["_HLS_pathway"])
            }
        }
    }

    /// Where a channel's steering manifest is, as its multivariant playlist names it.
    static func steeringPath(channel: ChannelName) -> String { "/steering/\(channel)" }

    /// The pathways that answer before those that do not, the asking player's own first, and the
    /// next reload on a twin (`SteeringManifest`); the same for a channel that does not exist (so
    /// it tells a stranger nothing). Kept by caches for a second, as a playlist is.
    private func steeringManifest(channel: ChannelName, current: Substring?) throws -> Response {
        let body = SteeringManifest.answer(
            pathways: pathways, current: current.map(String.init), down: pathwayHealth?.pathwaysDown ?? [],
            path: Self.steeringPath(channel: channel))
        return Response(
            status: .ok,
            headers: [
                .contentType: "application/json", .cacheControl: "public, max-age=1",
                .contentLength: String(body.utf8.count), .accessControlAllowOrigin: allowOrigin,
            ],
            body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    private func serve(request: Request, context: ServerContext) async throws -> Response {
        let channelName = try context.parameters.require("channel")
        let inner = context.parameters.get("inner")
        let fileName = try inner ?? context.parameters.require("file")
        var live: LiveRequest
        do throws(LiveRequest.Problem) {
            live = try LiveRequest.parse(
                channel: channelName, rendition: inner == nil ? nil : context.parameters.get("file"), file: fileName,
                query: request.uri.query)
        } catch {
            throw HTTPError(error)
        }
        let session = live.session
        // Only a plausible session is carried into the variant URIs; any other is counted by address.
        if let session, !ViewerRegistry.isSession(session) { live.session = nil }
        // Checked before anything of the channel is looked at: a stranger learns nothing, not even whether it exists.
        let tokenLife = try access.map { access in
            guard let token = live.token,
                let left = access.secondsLeft(token: token, channel: live.channel, now: Date().timeIntervalSince1970)
            else {
                throw HTTPError(
                    .forbidden,
                    message: "This channel is private: its URLs need a valid token=… (ask its host for a new link).")
            }
            return left
        }
        guard let entry = registry.entry(named: live.channel) else {
            throw HTTPError(.notFound, message: "No such channel or file.")
        }
        if live.rendition == nil, live.file == Self.thumbnailName {
            return try thumbnail(of: entry, tokenLife: tokenLife)
        }
        let channel = entry.channel
        var found = try await Self.file(for: live, in: channel)
        if found == nil, let dvr = entry.dvr { found = try await Self.rewindFile(for: live, in: channel, window: dvr) }
        guard let file = found else {
            throw HTTPError(.notFound, message: "No such channel or file.")
        }
        let now = Double(MediaClock.monotonicNanoseconds()) / 1e9
        if file.immutable {
            viewers.mediaRequested(channel: channel.name, at: now)
        } else {
            let viewer = ViewerRegistry.viewerKey(
                session: session, address: context.remoteAddress?.ipAddress,
                userAgent: request.headers[.userAgent])
            viewers.playlistRequested(channel: channel.name, by: viewer, at: now, window: channel.viewerWindow)
        }
        var headers: HTTPFields = [
            .contentType: file.contentType,
            .cacheControl: Self.cacheControl(for: file, blocking: live.msn != nil, tokenLife: tokenLife),
            .accessControlAllowOrigin: allowOrigin,
        ]
        let gzip = !file.immutable && Self.acceptsGzip(request.headers[.acceptEncoding])
        // Variants of one file (a delta update, a session's playlist) are cached apart.
        let carriesToken = access != nil && !file.immutable
        let key = BodyKey(live, file: file, carriesToken: carriesToken)
        // A playlist's decorations are rendered only when the cache has no body for them (media as it is).
        let view = PlaylistView(request: live, pathways: pathways, token: carriesToken ? live.token : nil)
        var body = try bodies.body(
            for: key, source: file.bytes, gzip: gzip, render: file.immutable ? nil : { view.render(file, of: channel) })
        if gzip {
            headers[.contentEncoding] = "gzip"
            headers[.vary] = "Accept-Encoding"
        }
        var status = HTTPResponse.Status.ok
        if file.immutable {
            // A media file answers one byte range (an I-frame playlist's EXT-X-BYTERANGE).
            headers[.acceptRanges] = "bytes"
            let size = body.readableBytes
            switch ByteRange(header: request.headers[.range], size: size) {
            case .whole: break
            case .part(let range):
                status = .partialContent
                body = body.getSlice(at: body.readerIndex + range.lowerBound, length: range.count) ?? body
                headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(size)"
                headers[.contentLength] = "0"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
        }
        headers[.contentLength] = String(body.readableBytes)
        return Response(status: status, headers: headers, body: .init(byteBuffer: body))
    }

    /// The rewind window's files (`--dvr`): `dvr.m3u8`, the channel's multivariant playlist over
    /// each rendition's `dvr-media.m3u8`; those playlists, and the segments that left the live
    /// store, read from the window's folder on the thread pool (never on an event loop).
    static func rewindFile(for request: LiveRequest, in channel: any LiveChannel, window: DVRFolder) async throws
        -> LiveFile?
    {
        guard let name = MediaFileName(request.file) else { return nil }
        switch name {
        case .dvrMultivariantPlaylist:
            guard request.rendition == nil else { return nil }
            var playlist = channel.multivariantPlaylist(session: request.session)
                .pointing(to: .dvrMediaPlaylist, iFrames: .dvrIFramePlaylist)
            if let from = request.from { playlist = playlist.adding(query: "from=\(from)") }
            if let delay = request.delay { playlist = playlist.adding(query: "delay=\(delay)") }
            return LiveFile(
                bytes: Array(playlist.render().utf8), contentType: name.contentType, immutable: false,
                perSession: request.session != nil)
        case .dvrMediaPlaylist, .dvrIFramePlaylist:
            guard request.from != nil || request.delay != nil else {
                return try await readFile(request, of: window).map {
                    LiveFile(bytes: $0, contentType: name.contentType, immutable: false)
                }
            }
            // A span of the window: cut from the window as its sink last wrote it, on the thread
            // pool (a week's window is a long playlist).
            guard let posted = window.windows.window(of: request.rendition),
                name == .dvrMediaPlaylist || posted.hasIFrames
            else { return nil }
            let (from, delay) = (request.from, request.delay)
            let now = MediaClock.wallMilliseconds()
            let bytes = try await NIOThreadPool.singleton.runIfActive { () -> [UInt8] in
                var playlist = posted.playlist
                let minimum = 3 * Double(playlist.targetDuration)
                if let delay { playlist = playlist.ending(atWallTime: now - Int64(delay) * 1000, keeping: minimum) }
                if let from { playlist = playlist.starting(at: from, keeping: minimum) }
                if name == .dvrIFramePlaylist { playlist = playlist.iFramePlaylist() }
                return Array(playlist.render().utf8)
            }
            return LiveFile(bytes: bytes, contentType: name.contentType, immutable: false)
        case .segment, .initSegment:
            return try await readFile(request, of: window).map {
                LiveFile(bytes: $0, contentType: name.contentType, immutable: true)
            }
        default:
            return nil
        }
    }

    /// A file of the window's folder, read on the thread pool (never on an event loop); nil when it is not there.
    private static func readFile(_ request: LiveRequest, of window: DVRFolder) async throws -> [UInt8]? {
        let path = window.folder(of: request.rendition).appendingPathComponent(request.file).path
        return try await NIOThreadPool.singleton.runIfActive { () -> [UInt8]? in
            try? RegularFile.read(path, limit: Self.rewindFileLimit, followingLinks: false)
        }
    }

    /// The most read of a window's file: its playlist at the longest window (7 days of 1 s
    /// segments, about 50 MB) and any segment fit.
    static let rewindFileLimit = 64 << 20

    /// `/live/<channel>/thumbnail.jpg`: the channel's newest picture, at most a few seconds old.
    static let thumbnailName = "thumbnail.jpg"

    /// The thumbnail of a channel this process captures (404 for one it only serves, or before its
    /// first picture). Kept by caches for two seconds; looking at it does not make a viewer.
    private func thumbnail(of entry: ChannelRegistry.Entry, tokenLife: Int?) throws -> Response {
        guard let picture = entry.thumbnail?.jpeg() else {
            throw HTTPError(.notFound, message: "This channel has no picture to show yet.")
        }
        return Response(
            status: .ok,
            headers: [
                .contentType: "image/jpeg", .contentLength: String(picture.bytes.count),
                .cacheControl: "public, max-age=\(min(2, tokenLife ?? 2))", .eTag: "\"\(picture.index)\"",
                .accessControlAllowOrigin: allowOrigin,
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: picture.bytes)))
    }

    /// The file as the channel answers the request: 400 for a reload it refuses, 503 for one that
    /// waited three target durations in vain.
    static func file(for request: LiveRequest, in channel: any LiveChannel) async throws -> LiveFile? {
        do {
            return try await channel.file(for: request)
        } catch {
            throw HTTPError(error)
        }
    }

    /// What a cache may do with a response (DESIGN 11). Media never changes once listed: a year,
    /// immutable. A playlist changes each part or segment: one second, the least `max-age` can
    /// say, and never `no-cache` (Varnish answers that with uncacheable hit-for-miss objects, so
    /// requests stop collapsing). A blocking reload's answer (`_HLS_msn`, `_HLS_part`) is for edge
    /// caches only (`s-maxage`), for that second: the viewers held for one part ask for it at once.
    /// A browser keeps none (`max-age=0`), because a player may ask the same URI again for what
    /// came since: Video.js does at the end of each segment, and answered from its browser's cache
    /// (6 s, the hold time, before) it got the same playlist again and again, froze, and played
    /// 6 s behind. A private channel's answers are kept no longer than their token works, so an
    /// edge stops serving a URL when its token expires.
    static func cacheControl(for file: LiveFile, blocking: Bool, tokenLife: Int? = nil) -> String {
        if file.immutable {
            return tokenLife.map { "public, max-age=\($0)" } ?? "public, max-age=31536000, immutable"
        }
        let age = min(tokenLife ?? 1, 1)
        return blocking ? "public, max-age=0, s-maxage=\(age)" : "public, max-age=\(age)"
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
