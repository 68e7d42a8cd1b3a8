import FoundationEssentials
import HLS
import HLSModel
import HTTPTypes
import Hummingbird
import NIOCore
import NIOHTTPTypes
import Runtime
import Origin

/// `PUT` and `DELETE` under `/ingest/<channel>/<file>`: how publishers push a channel into an origin,
/// the HTTP ingest `onair publish --push` and ffmpeg's `-method PUT` speak. A wrong or missing
/// bearer token is 401; a file name that is not one of a channel's own plain names is 400; bodies
/// are bounded (413), and so is what a channel may hold (507).
struct IngestRoutes {
    /// The largest media file taken: a segment of 10 s at 20 Mb/s, with room to spare.
    static let mediaLimit = 32 << 20
    /// The largest playlist taken.
    static let playlistLimit = 1 << 20

    let channels: OriginChannels
    let tokens: IngestTokens
    /// Uploads taken at once: a share of the connections, so ingest cannot take them all from viewers.
    let uploads: UploadSlots

    func register(on router: Router<ServerContext>) {
        // A ladder's rendition pushes into its folder: `/ingest/<channel>/<rendition>/<file>` (the router
        // wants one name per depth, as for `/live`: the rendition comes as `:file`, the file as `:inner`).
        for path in ["/ingest/:channel/:file", "/ingest/:channel/:file/:inner"] {
            router.put(RouterPath(path)) { request, context in
                var request = request
                let target = try target(request, context: context)
                let limit = target.file.isPlaylist ? Self.playlistLimit : Self.mediaLimit
                // Refused before the body when its length says it is too large (the connection then closes).
                if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
                    throw HTTPError(
                        .contentTooLarge,
                        message: "\(target.file) of \(length) bytes is larger than this server takes (\(limit) bytes)")
                }
                guard uploads.enter() else {
                    throw HTTPError(
                        .serviceUnavailable, headers: [.retryAfter: "1"],
                        message: "This origin takes \(uploads.limit) uploads at once (half of --max-connections, "
                            + "the rest kept for viewers): try again in a second.")
                }
                defer { uploads.leave() }
                // Bodies on their way in count against the budgets: the declared length at once.
                let body = BodyReception(channels: channels, channel: target.channel)
                defer { body.release() }
                let waitsToSend = request.headers[.expect]?.lowercased() == "100-continue"
                if let declared = request.headers[.contentLength].flatMap({ Int($0) }) {
                    do {
                        try body.count(upTo: declared)
                    } catch {
                        // Read and let go (its bytes are not kept, its rate is watched), so that the
                        // publisher reads the refusal rather than a reset connection.
                        if !waitsToSend { for try await _ in request.body {} }
                        throw error
                    }
                }
                // A client that waits to be told to send its body (curl does for large ones) is told now.
                if waitsToSend {
                    try await context.channel.writeAndFlush(HTTPResponsePart.head(HTTPResponse(status: .continue)))
                }
                let bytes = try await body.receive(request.body, limit: limit)
                // Whole: from here it is counted as what the channel holds.
                body.release()
                let wall = Int64(Date().timeIntervalSince1970 * 1000)
                do throws(IngestAssembler.Refusal) {
                    try channels.put(
                        channel: target.channel, rendition: target.rendition, file: target.file,
                        bytes: bytes, run: target.run, now: Self.now, wallMilliseconds: wall)
                } catch {
                    throw HTTPError(error)
                }
                return Response(status: .created, headers: [.contentLength: "0"])
            }
            router.delete(RouterPath(path)) { request, context in
                let target = try target(request, context: context)
                do throws(IngestAssembler.Refusal) {
                    try channels.delete(
                        channel: target.channel, rendition: target.rendition, file: target.file, run: target.run,
                        now: Self.now)
                } catch {
                    throw HTTPError(error)
                }
                return Response(status: .noContent)
            }
        }
    }

    static var now: Double { Double(MediaClock.monotonicNanoseconds()) / 1e9 }

    /// The header field that names a publisher's run.
    static let runField = HTTPField.Name(ChannelOwner.Run.header)!

    /// The channel, rendition folder and file a request names, and the publisher's run it names,
    /// once its token is checked.
    private func target(_ request: Request, context: ServerContext) throws -> (
        channel: ChannelName, rendition: String?, file: MediaFileName, run: ChannelOwner.Run?
    ) {
        let channel = try context.parameters.require("channel")
        let name = ChannelName(channel)
        let inner = context.parameters.get("inner")
        let rendition = inner == nil ? nil : try context.parameters.require("file")
        let text = try inner ?? context.parameters.require("file")
        guard tokens.allows(channel: name, authorization: request.headers[.authorization]) else {
            throw HTTPError(
                .unauthorized, headers: [.wwwAuthenticate: "Bearer"],
                message: "Pushing to channel \(channel) needs its ingest token: Authorization: Bearer <token>.")
        }
        guard let name, rendition.map(LiveRequest.isRenditionName) ?? true,
            let file = MediaFileName(text), rendition == nil || file != .multivariantPlaylist
        else {
            throw HTTPError(
                .badRequest,
                message:
                    "\(rendition.map { $0 + "/" } ?? "")\(text) is not a file name of this server (index.m3u8, and media.m3u8, init.mp4, segN.m4s, partN.I.m4s, segN.ts at the channel's top or in a rendition's folder)."
            )
        }
        let runText = request.headers[Self.runField]
        let run = runText.flatMap(ChannelOwner.Run.init)
        guard runText == nil || run != nil else {
            throw HTTPError(
                .badRequest, message: "\(ChannelOwner.Run.header) is 8 to 64 letters, digits, - or _ (a run's id).")
        }
        return (name, rendition, file, run)
    }
}

/// A pushed body, counted against the channel's and the origin's budgets while it arrives: its
/// declared length before any of it is read, then each piece as it comes (chunked), so bodies in
/// flight cannot take the origin past `--origin-memory` (507 when there is no room). Released
/// once the body is whole, before the file is put (which counts it as held).
private final class BodyReception {
    let channels: OriginChannels
    let channel: ChannelName
    private var counted = 0

    init(channels: OriginChannels, channel: ChannelName) {
        self.channels = channels
        self.channel = channel
    }

    /// Counts the body up to `total` bytes.
    func count(upTo total: Int) throws {
        guard total > counted else { return }
        do throws(IngestAssembler.Refusal) {
            try channels.arriving(total - counted, into: channel)
        } catch {
            throw HTTPError(error)
        }
        counted = total
    }

    /// The whole body, at most `limit` bytes (413 past it).
    func receive(_ body: RequestBody, limit: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        for try await piece in body {
            guard bytes.count + piece.readableBytes <= limit else {
                throw HTTPError(.contentTooLarge, message: "the body is larger than this server takes (\(limit) bytes)")
            }
            bytes += piece.readableBytesView
            try count(upTo: bytes.count)
        }
        return bytes
    }

    /// Gives back what was counted.
    func release() {
        channels.arrived(counted, into: channel)
        counted = 0
    }
}
