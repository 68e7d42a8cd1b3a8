import FoundationEssentials
import HLS
import HLSModel
import Hummingbird
import NIOCore
public import Runtime

/// The control API of the host, behind a bearer token: `GET /api/channels/<c>` (state and
/// counts), `POST /api/channels/<c>/pause`, `/resume` and `/stop`, `POST` and `GET
/// /api/channels/<c>/markers` (chapters), and `GET /api/channels/<c>/events` (Server-Sent
/// Events). A wrong or missing token gets 401 and changes nothing.
struct ControlRoutes {
    let registry: ChannelRegistry
    let token: String
    let channels: @Sendable (LinkGrant) -> [ChannelInfo]

    func register(on router: Router<ServerContext>) {
        let api = router.group("/api/channels/:channel")
        api.get { request, context in
            let control = try authorize(request, context)
            guard var info = channels(.host).first(where: { $0.name == control.channel.text }) else {
                throw HTTPError(.notFound, message: "No such channel.")
            }
            info.stats = control.statistics()
            return Self.json(try ChannelInfo.json(info))
        }
        for action in ["pause", "resume", "stop"] {
            api.post(RouterPath(action)) { request, context in
                let control = try authorize(request, context)
                switch action {
                case "pause": _ = control.pause()
                case "resume": _ = control.resume()
                default: control.stop()
                }
                let state = action == "stop" ? "stopping" : control.isPaused ? "paused" : "live"
                return Self.json(Array("{\"state\":\"\(state)\"}".utf8))
            }
        }
        api.post("markers") { request, context in
            let control = try authorize(request, context)
            let body = try await request.body.collect(upTo: 16 * 1024)
            let asked = try MarkerRequest.parse(Array(buffer: body))
            let marker: DateRange
            do throws(MarkerRefusal) {
                marker = try control.addMarker(title: asked.title, at: asked.start)
            } catch {
                throw HTTPError(.init(code: error.status), message: error.description)
            }
            return Self.json(try MarkerRequest.json(marker), status: .created)
        }
        api.post("captions") { request, context in
            let control = try authorize(request, context)
            let body = try await request.body.collect(upTo: 64 * 1024)
            let captions = try CaptionRequest.parse(Array(buffer: body), now: MediaClock.wallMilliseconds())
            let taken: Bool
            do throws(CueRefusal) {
                taken = try control.addCaptions(captions)
            } catch {
                throw HTTPError(.badRequest, message: error.description)
            }
            guard taken else {
                throw HTTPError(
                    .conflict, message: "channel \(control.channel) has no captions: publish it with --captions")
            }
            return Self.json(try CaptionRequest.json(captions), status: .created)
        }
        api.get("markers") { request, context in
            let control = try authorize(request, context)
            return Self.json(try MarkerRequest.json(control.markers()))
        }
        api.get("events") { request, context in
            let control = try authorize(request, context)
            let events = Self.until(context.connectionClosed, control.events())
            let channel = control.channel
            return Response(
                status: .ok,
                headers: [.contentType: "text/event-stream", .cacheControl: "no-store"],
                body: ResponseBody { writer in
                    for await event in events {
                        try await writer.write(ByteBuffer(bytes: Self.serverSentEvent(event, channel: channel)))
                    }
                    try await writer.finish(nil)
                })
        }
    }

    /// The channel's control, when the request carries the token.
    private func authorize(_ request: Request, _ context: ServerContext) throws -> any ChannelControl {
        guard Self.bearerMatches(request.headers[.authorization], token: token) else {
            throw HTTPError(
                .unauthorized, headers: [.wwwAuthenticate: "Bearer realm=\"onair\""],
                message: "This needs the control token: Authorization: Bearer <token>.")
        }
        guard let control = registry.entry(named: try context.parameters.channel())?.control else {
            throw HTTPError(.notFound, message: "No such channel.")
        }
        return control
    }

    /// `events` until the connection closes: a client that left is let go at once, not at the
    /// next event (which may be minutes away).
    static func until(_ closed: EventLoopFuture<Void>, _ events: AsyncStream<BroadcastEvent>)
        -> AsyncStream<BroadcastEvent>
    {
        let (stream, continuation) = AsyncStream.makeStream(of: BroadcastEvent.self)
        let forward = Task {
            for await event in events { continuation.yield(event) }
            continuation.finish()
        }
        closed.whenComplete { _ in continuation.finish() }
        continuation.onTermination = { _ in forward.cancel() }
        return stream
    }

    private static func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8", .cacheControl: "no-store"],
            body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// True when `header` is `Bearer <token>`. The time taken depends on the token's length only,
    /// not on how much of it a guess got right.
    static func bearerMatches(_ header: String?, token: String) -> Bool {
        let expected = Array(token.utf8)
        guard !expected.isEmpty, let header, header.utf8.count > 7,
            header.prefix(7).lowercased() == "bearer "
        else { return false }
        let given = Array(header.utf8.dropFirst(7))
        var difference: UInt8 = given.count == expected.count ? 0 : 1
        for index in expected.indices {
            difference |= expected[index] ^ (index < given.count ? given[index] : 0)
        }
        return difference == 0
    }

    /// One event in the text/event-stream format: its number as the id, its code as the event name.
    static func serverSentEvent(_ event: BroadcastEvent, channel: ChannelName) -> [UInt8] {
        let data = EventJSON(event: event, channel: channel.text).text
        return Array("id: \(event.sequence)\nevent: \(event.code.rawValue)\ndata: \(data)\n\n".utf8)
    }
}

/// An event as one line of JSON, as the events stream and `--log-format json` write it.
public struct EventJSON: Encodable {
    let channel: String
    let code: String
    let message: String
    let time: String
    let sequence: Int

    public init(event: BroadcastEvent, channel: String) {
        self.channel = channel
        code = event.code.rawValue
        message = event.message
        time = ProgramDateTime.format(milliseconds: event.time)
        sequence = event.sequence
    }

    public var text: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }
}
