/// A place that holds a channel's files by name: what the push sink sends to and removes from.
protocol ObjectStore: Sendable {
    /// Stores `bytes` as `name` (a file name such as `seg12.m4s`), replacing what was there.
    func put(_ name: String, bytes: [UInt8], contentType: String, cacheControl: String, timeout: Double)
        throws(PushFailure)
    /// Removes `name`; a name that is not there is not a failure.
    func delete(_ name: String, timeout: Double) throws(PushFailure)
}

/// An HTTP ingest: PUT and DELETE under a base URL (nginx WebDAV, CDN ingest points, `onair serve`),
/// with the user's headers (Basic auth from the URL, `--push-header`) on every request.
struct HTTPIngestStore: ObjectStore {
    let base: String
    let headers: [(String, String)]
    let transport: HTTPTransport

    init(base: String, headers: [PushDestination.Header], transport: HTTPTransport = .shared) {
        self.base = base
        self.headers = headers.map { ($0.name, $0.value) }
        self.transport = transport
    }

    func put(_ name: String, bytes: [UInt8], contentType: String, cacheControl: String, timeout: Double)
        throws(PushFailure)
    {
        try transport.send(
            .PUT, url: base + name,
            headers: headers + [("Content-Type", contentType), ("Cache-Control", cacheControl)], body: bytes,
            timeout: timeout)
    }

    func delete(_ name: String, timeout: Double) throws(PushFailure) {
        do {
            try transport.send(.DELETE, url: base + name, headers: headers, body: nil, timeout: timeout)
        } catch .status(404, _) {
            // Already gone.
        }
    }
}
