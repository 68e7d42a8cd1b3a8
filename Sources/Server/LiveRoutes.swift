import CompressNIO
import HLS
import Hummingbird

/// `/live/<channel>/<file>`: playlists (never cached stale, gzip'd when the client accepts it)
/// and segments (immutable once listed).
struct LiveRoutes {
    let directory: ChannelDirectory

    func register(on router: Router<BasicRequestContext>) {
        router.get("/live/:channel/:file") { request, context in
            try serve(request: request, context: context)
        }
        router.head("/live/:channel/:file") { request, context in
            let response = try serve(request: request, context: context)
            return Response(status: response.status, headers: response.headers)
        }
    }

    private func serve(request: Request, context: BasicRequestContext) throws -> Response {
        let channel = try context.parameters.require("channel")
        let name = try context.parameters.require("file")
        guard let store = directory.store(named: channel), let file = store.file(named: name) else {
            throw HTTPError(.notFound, message: "No such channel or file.")
        }
        var headers: HTTPFields = [
            .contentType: file.contentType,
            .cacheControl: file.immutable ? "public, max-age=31536000, immutable" : "no-cache",
        ]
        var body = ByteBuffer(bytes: file.bytes)
        if !file.immutable, Self.acceptsGzip(request.headers[.acceptEncoding]) {
            body = try body.compress(with: .gzip())
            headers[.contentEncoding] = "gzip"
            headers[.vary] = "Accept-Encoding"
        }
        headers[.contentLength] = String(body.readableBytes)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
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
