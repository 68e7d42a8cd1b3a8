import HLSModel
import Dispatch
import HLS
import Hummingbird
import Metrics
import Synchronization

/// The one middleware every request passes, doing in one layer what would otherwise take
/// several (each costs every request an async hop): it refuses what no route should see —
/// other methods (405, with those served), request targets over 8 KiB (414), header blocks over
/// 16 KiB (431), paths with a malformed `%` escape (400) — answers CORS preflights, puts
/// `Access-Control-Allow-Origin`, `X-Content-Type-Options: nosniff` and `Referrer-Policy` on
/// every response, errors included, and counts requests and their durations by route for
/// `/metrics`. (HEAD is the router's: every GET route answers it.)
/// The HTTP parser has already refused anything larger still, or not HTTP at all (400).
struct RequestGate<Context: RequestContext>: RouterMiddleware {
    static var uriLimit: Int { 8 * 1024 }
    static var headerLimit: Int { 16 * 1024 }

    let allowOrigin: String
    let metrics: RequestMetrics?
    /// An origin also takes PUT and DELETE under `/ingest/`.
    var acceptsIngest = false

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let started = DispatchTime.now().uptimeNanoseconds
        let route = RequestMetrics.route(of: request.uri.path)
        do {
            var response = try await respond(request, context: context, next: next)
            if response.headers[.accessControlAllowOrigin] == nil {
                response.headers[.accessControlAllowOrigin] = allowOrigin
            }
            Self.addSafetyHeaders(&response.headers)
            metrics?.record(route: route, status: response.status.code, since: started)
            return response
        } catch let error as HTTPError {
            metrics?.record(route: route, status: error.status.code, since: started)
            var headers = error.headers
            headers[.accessControlAllowOrigin] = allowOrigin
            Self.addSafetyHeaders(&headers)
            throw HTTPError(error.status, headers: headers, message: error.body ?? "")
        } catch {
            metrics?.record(route: route, status: 500, since: started)
            throw error
        }
    }

    private func respond(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let isControl = request.uri.path.hasPrefix("/api/channels/")
        let isIngest = acceptsIngest && request.uri.path.hasPrefix("/ingest/")
        let allowed =
            isControl ? "GET, HEAD, OPTIONS, POST" : isIngest ? "OPTIONS, PUT, DELETE" : "GET, HEAD, OPTIONS"
        switch request.method {
        case .get where !isIngest, .head where !isIngest, .post where isControl: break
        case .put where isIngest, .delete where isIngest: break
        case .options:
            return Response(
                status: .noContent,
                headers: [
                    .allow: allowed, .accessControlAllowMethods: allowed,
                    .accessControlAllowHeaders: "Authorization, Content-Type", .accessControlMaxAge: "86400",
                ])
        default:
            throw HTTPError(
                .methodNotAllowed, headers: [.allow: allowed], message: "\(request.method) is not served here.")
        }
        guard request.uri.description.utf8.count <= Self.uriLimit else {
            throw HTTPError(.uriTooLong, message: "The request target is longer than \(Self.uriLimit) bytes.")
        }
        let headerBytes = request.headers.reduce(0) { $0 + $1.name.rawName.utf8.count + $1.value.utf8.count + 4 }
        guard headerBytes <= Self.headerLimit else {
            throw HTTPError(
                .init(code: 431, reasonPhrase: "Request Header Fields Too Large"),
                message: "The request headers are larger than \(Self.headerLimit) bytes.")
        }
        guard Self.isWellEscaped(request.uri.path) else {
            throw HTTPError(.badRequest, message: "The path has a malformed % escape.")
        }
        return try await next(request, context)
    }

    static var referrerPolicy: HTTPFields.Element.Name { HTTPFields.Element.Name("Referrer-Policy")! }

    /// What no response should let a browser do: guess a type other than the one sent, or tell
    /// other sites the address of a page (with a private channel's token in it).
    static func addSafetyHeaders(_ headers: inout HTTPFields) {
        headers[.xContentTypeOptions] = "nosniff"
        if headers[Self.referrerPolicy] == nil { headers[Self.referrerPolicy] = "strict-origin-when-cross-origin" }
    }

    /// True when every `%` in `path` starts two hex digits and the bytes they make are UTF-8.
    static func isWellEscaped(_ path: String) -> Bool {
        !path.utf8.contains(UInt8(ascii: "%")) || LiveRequest.decode(Substring(path)) != nil
    }
}

/// Request counts by route and status, and durations by route: `onair_http_requests_total`
/// and `onair_http_request_duration_seconds`. The metrics are made once per route and status.
final class RequestMetrics: Sendable {
    private struct Key: Hashable {
        var route: String
        var status: Int
    }

    private let counters = Mutex<[Key: Counter]>([:])
    private let timers = Mutex<[String: Metrics.Timer]>([:])

    /// Few enough values to label metrics with: the kind of request, not its URL.
    static func route(of path: String) -> String {
        if path.hasPrefix("/live/") {
            return path.hasSuffix(".m3u8") ? "playlist" : "media"
        }
        if path.hasPrefix("/api/") { return "api" }
        if path.hasPrefix("/ingest/") { return "ingest" }
        if path == "/metrics" { return "metrics" }
        return "page"
    }

    func record(route: String, status: Int, since started: UInt64) {
        let key = Key(route: route, status: status)
        let counter = counters.withLock { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(
                label: "onair_http_requests_total", dimensions: [("route", route), ("status", String(status))])
            counters[key] = counter
            return counter
        }
        counter.increment()
        let timer = timers.withLock { timers in
            if let timer = timers[route] { return timer }
            let timer = Metrics.Timer(label: "onair_http_request_duration_seconds", dimensions: [("route", route)])
            timers[route] = timer
            return timer
        }
        timer.recordNanoseconds(Int64(DispatchTime.now().uptimeNanoseconds - started))
    }
}
