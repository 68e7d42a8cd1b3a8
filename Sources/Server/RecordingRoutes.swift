import FoundationEssentials
import HLS
import HLSModel
import Hummingbird
import NIOPosix

/// Replay of what was recorded (`--record DIR`): `GET /api/recordings` lists the recordings,
/// newest first; `/recordings/<channel>/<start time>/…` serves their playlists, segments and MP4
/// (byte ranges, so a player seeks in the MP4); `/watch/<channel>/<start time>` plays one.
///
/// The disk is read on the thread pool, never on an event loop. Only the files a recording holds
/// are served (no listing, no other file of the folder). Private servers (viewer access) do not
/// offer recordings: their tokens sign live channels, not files on disk. Without a folder the
/// list is empty and the rest is 404.
struct RecordingRoutes {
    let root: URL?
    let files: EmbeddedFiles
    let allowOrigin: String

    func register(on router: Router<ServerContext>) {
        let catalog = root.map(RecordingCatalog.init(root:))
        router.get("/api/recordings") { _, _ in
            let entries: [RecordingEntry] =
                if let catalog {
                    try await NIOThreadPool.singleton.runIfActive { catalog.list() }
                } else { [] }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return Response(
                status: .ok,
                headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
                body: .init(byteBuffer: ByteBuffer(bytes: Array(try encoder.encode(["recordings": entries])))))
        }
        router.get("/watch/:channel/:recording") { _, context in
            guard root != nil, RecordingPlan.isStartTime(try context.parameters.require("recording")) else {
                throw HTTPError(.notFound, message: "No such recording.")
            }
            _ = try context.parameters.channel()
            return try files.page("replay.html", framing: .none)
        }
        guard let root else { return }
        let recordingFiles = RecordingFiles(root: root)
        let recordings = router.group("/recordings").add(middleware: RecordingPathFilter(allowOrigin: allowOrigin))
        for head in [false, true] {
            let serve: @Sendable (Request, ServerContext) async throws -> Response = { request, _ in
                let components = request.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(2)
                return try await recordingFiles.response(
                    components: Array(components), range: request.headers[.range], head: head)
            }
            if head { recordings.head("**", use: serve) } else { recordings.get("**", use: serve) }
        }
    }
}

/// Lets through only paths that name a file a recording holds, and marks what it serves as
/// usable by any page (`--allow-origin`). Segments never change once written; playlists change
/// while the broadcast runs, and the MP4 is made again when a killed broadcast is continued.
struct RecordingPathFilter: RouterMiddleware {
    let allowOrigin: String

    func handle(
        _ request: Request, context: ServerContext, next: (Request, ServerContext) async throws -> Response
    ) async throws -> Response {
        let components = request.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst(2)
        guard RecordingLibrary.isServable(Array(components)) else {
            throw HTTPError(.notFound, message: "No such file.")
        }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = allowOrigin
        let isSegment = components.last.flatMap { MediaFileName(String($0)) }?.format != nil
        response.headers[.cacheControl] = isSegment ? "public, max-age=31536000, immutable" : "no-cache"
        return response
    }
}
