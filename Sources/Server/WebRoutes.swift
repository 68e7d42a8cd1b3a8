import Foundation
import HLS
import Hummingbird
import Media

/// The viewer-facing pages and their API: `/` (channel list), `/watch/<channel>` (player,
/// state, latency, viewers, embed code), `/embed/<channel>` (chromeless player for an iframe),
/// `/web/<file>` (scripts and styles) and `GET /api/channels`.
struct WebRoutes {
    let registry: ChannelRegistry
    let viewers: ViewerRegistry
    let files: EmbeddedFiles

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
        router.get("/") { _, _ in files.page("index.html") }
        router.get("/watch/:channel") { _, _ in files.page("watch.html") }
        router.get("/embed/:channel") { _, _ in files.page("embed.html") }
        router.get("/api/channels") { _, _ in
            Response(
                status: .ok,
                headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: try ChannelInfo.json(channels()))))
        }
    }

    /// Every channel, with its viewers now.
    func channels() -> [ChannelInfo] {
        let now = Double(MediaClock.monotonicNanoseconds()) / 1e9
        let wall = Int64(Date().timeIntervalSince1970 * 1000)
        return registry.all().map { entry in
            let channel = entry.channel
            return ChannelInfo(
                summary: channel.summary(), paused: entry.control?.isPaused == true,
                viewers: viewers.count(channel: channel.name, at: now, window: channel.viewerWindow),
                nowMilliseconds: wall)
        }
    }
}
