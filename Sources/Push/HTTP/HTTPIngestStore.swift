import HLS
import HLSModel
import NIOHTTP1

/// An HTTP ingest: PUT and DELETE under a base URL (nginx WebDAV, CDN ingest points, `onair serve`),
/// with the user's headers (Basic auth from the URL, `--push-header`) on every request, and the
/// publisher's run (`Onair-Run`), by which an origin keeps a live channel for the run that made it
/// live. Each file says its type and how long a cache may keep it.
struct HTTPIngestStore: FileStore {
    let base: String
    let headers: [(String, String)]
    let transport: HTTPTransport
    /// The `Cache-Control` of playlists (media is immutable).
    let playlistCaching: String

    init(
        base: String, headers: [PushDestination.Header], playlistCaching: String = "public, max-age=1",
        transport: HTTPTransport
    ) {
        self.base = base
        let named = headers.contains { $0.name.lowercased() == Self.runHeader.lowercased() }
        self.headers = headers.map { ($0.name, $0.value) } + (named ? [] : [(Self.runHeader, Self.run)])
        self.playlistCaching = playlistCaching
        self.transport = transport
    }

    static let runHeader = "Onair-Run"

    /// This process's run: one broadcast (`publish`), or one origin's relays (`serve --push`).
    /// 128 random bits, so that another holder of the ingest token cannot name it.
    static let run: String = {
        var generator = SystemRandomNumberGenerator()
        return (0..<2).map { _ in
            let text = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }.joined()
    }()

    func put(_ name: String, bytes: [UInt8], timeout: Double) throws(StoreFailure) {
        let caching = MediaFileName.cacheControl(of: name, playlists: playlistCaching)
        try transport.send(
            .PUT, url: base + name,
            headers: headers + [("Content-Type", MediaFileName.contentType(of: name)), ("Cache-Control", caching)],
            body: bytes, timeout: timeout)
    }

    func delete(_ name: String, timeout: Double) throws(StoreFailure) {
        do {
            try transport.send(.DELETE, url: base + name, headers: headers, body: nil, timeout: timeout)
        } catch .status(404, _) {
            // Already gone.
        }
    }
}
