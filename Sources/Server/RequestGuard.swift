import Hummingbird

/// Refuses what no route should see, before routing: methods other than those the server
/// speaks (405, with the ones it does), request targets over 8 KiB (414) and header blocks over
/// 16 KiB (431). The HTTP parser has already refused anything larger still, or not HTTP at all (400).
struct RequestGuard<Context: RequestContext>: RouterMiddleware {
    static var uriLimit: Int { 8 * 1024 }
    static var headerLimit: Int { 16 * 1024 }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let viewerMethods: [HTTPRequest.Method] = [.get, .head, .options]
        let isControl = request.uri.path.hasPrefix("/api/channels/")
        guard viewerMethods.contains(request.method) || (isControl && request.method == .post) else {
            throw HTTPError(
                .methodNotAllowed, headers: [.allow: isControl ? "GET, HEAD, OPTIONS, POST" : "GET, HEAD, OPTIONS"],
                message: "\(request.method) is not served here.")
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
        return try await next(request, context)
    }
}
