import FoundationEssentials
import HLS
import HLSModel
import Hummingbird
import Runtime

/// The viewer-facing pages and their API: `/` (channel list), `/watch/<channel>` (player,
/// state, latency, viewers, embed code), `/embed/<channel>` (chromeless player for an iframe),
/// `/web/<file>` (scripts and styles) and `GET /api/channels`.
///
/// A private channel's entry carries signed links only for a request that may have them: one with
/// the channel's working `?token=` (the same token back), or the host's `Authorization: Bearer
/// <viewer secret>` (a token of now).
struct WebRoutes {
    let registry: ChannelRegistry
    let viewers: ViewerRegistry
    let files: EmbeddedFiles
    let access: ViewerAccess?
    /// `http` or `https`, for the absolute addresses of link previews.
    let scheme: String

    func register(on router: Router<ServerContext>) {
        // Only requests under /web pass the file middleware: a group's middleware runs for its routes.
        router.group("/web")
            .add(
                middleware: FileMiddleware(
                    fileProvider: files, urlBasePath: "/web",
                    cacheControl: .init([
                        (MediaType(type: .any), [.noCache])
                    ]))
            )
            .get("**") { _, _ -> Response in throw HTTPError(.notFound, message: "No such file.") }
        router.get("/") { _, _ in try files.page("index.html", framing: .none) }
        router.get("/watch/:channel") { request, context in
            let channel = try context.parameters.channel()
            // A private server's picture answers only the link's working token: without one, none is named.
            let now = Double(Date().timeIntervalSince1970)
            let mayShow =
                access.map { access in
                    request.uri.queryParameters["token"].map {
                        access.secondsLeft(token: String($0), channel: channel, now: now) != nil
                    } ?? false
                } ?? true
            return try files.page(
                "watch.html", framing: .none,
                head: LinkPreview(
                    request: request, scheme: scheme, channel: channel,
                    hasPicture: mayShow && registry.entry(named: channel)?.thumbnail?.isReady() == true)?.tags ?? "")
        }
        router.get("/embed/:channel") { _, context in
            _ = try context.parameters.channel()
            return try files.page("embed.html", framing: .anySite)
        }
        router.get("/api/channels") { request, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: try ChannelInfo.json(channels(grant: grant(request))))))
        }
    }

    /// What the request may have of private channels' links.
    func grant(_ request: Request) -> LinkGrant {
        guard let access else { return .none }
        if access.isSecret(bearer: request.headers[.authorization]) { return .host }
        let token = request.uri.queryParameters["token"].map(String.init)
        return token.map(LinkGrant.token) ?? .none
    }

    /// Every channel, with its viewers now; a private channel's links as `grant` allows.
    func channels(grant: LinkGrant) -> [ChannelInfo] {
        let now = Double(MediaClock.monotonicNanoseconds()) / 1e9
        let wall = Int64(Date().timeIntervalSince1970 * 1000)
        return registry.all().map { entry in
            let channel = entry.channel
            var info = ChannelInfo(
                summary: channel.summary(), paused: entry.control?.isPaused == true,
                viewers: viewers.count(channel: channel.name, at: now, window: channel.viewerWindow),
                nowMilliseconds: wall)
            if entry.thumbnail?.isReady() == true {
                info.thumbnail = "/live/\(channel.name)/\(LiveRoutes.thumbnailName)"
            }
            if let dvr = entry.dvr {
                info.dvrSeconds = Int(dvr.seconds.rounded())
                info.dvrPlaylist = "/live/\(channel.name)/\(MediaFileName.dvrMultivariantPlaylist)"
            }
            if let access {
                info.sign(with: access.linkToken(channel: channel.name, grant: grant, now: Double(wall) / 1000))
            }
            return info
        }
    }
}
