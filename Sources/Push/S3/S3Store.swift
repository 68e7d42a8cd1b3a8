import FoundationEssentials
public import HLS
import HLSModel
import NIOHTTP1

/// S3-compatible storage: `PutObject` and `DeleteObject`, path-style (`ENDPOINT/BUCKET/KEY`), signed
/// with Signature Version 4. `Content-Type` and `Cache-Control` are stored with every object, so the
/// bucket (or a CDN in front of it) serves the stream as it is.
public struct S3Store: FileStore {
    let location: PushDestination.S3Location
    let transport: HTTPTransport
    /// The `Cache-Control` of playlists (media is immutable).
    let playlistCaching: String
    private let signer: SignatureV4
    private let host: String

    /// `playlistCaching`: `public, max-age=1` for a live stream's, `no-cache` for a recording's;
    /// `trust`: whom its endpoint's TLS trusts.
    public init(location: PushDestination.S3Location, playlistCaching: String = "public, max-age=1", trust: PushTrust) {
        self.init(location: location, playlistCaching: playlistCaching, transport: .shared(trusting: trust))
    }

    init(location: PushDestination.S3Location, playlistCaching: String, transport: HTTPTransport) {
        self.location = location
        self.playlistCaching = playlistCaching
        self.transport = transport
        signer = SignatureV4(credentials: location.credentials, region: location.region)
        let endpoint = location.endpoint
        host = (endpoint.host ?? "") + (endpoint.port.map { ":\($0)" } ?? "")
    }

    /// `s3://BUCKET/PREFIX/`, for messages.
    public var address: String { "s3://\(location.bucket)/\(location.prefix)" }

    public func put(_ name: String, bytes: [UInt8], timeout: Double) throws(StoreFailure) {
        let caching = MediaFileName.cacheControl(of: name, playlists: playlistCaching)
        try send(
            "PUT", name: name,
            headers: [("content-type", MediaFileName.contentType(of: name)), ("cache-control", caching)],
            body: bytes, timeout: timeout)
    }

    public func delete(_ name: String, timeout: Double) throws(StoreFailure) {
        // S3 answers 204 whether or not the key existed.
        try send("DELETE", name: name, headers: [], body: nil, timeout: timeout)
    }

    private func send(_ method: String, name: String, headers: [(String, String)], body: [UInt8]?, timeout: Double)
        throws(StoreFailure)
    {
        let path = "/\(location.bucket)/\(location.prefix)\(name)"
        let payloadHash = body.map(SignatureV4.payloadHash) ?? SignatureV4.emptyPayloadHash
        let base = [("host", host)] + headers
        let signed = signer.signedHeaders(
            method: method, path: path, headers: base, payloadHash: payloadHash, date: Date())
        var endpoint = location.endpoint.absoluteString
        while endpoint.hasSuffix("/") { endpoint.removeLast() }
        try transport.send(
            method == "PUT" ? .PUT : .DELETE, url: endpoint + SignatureV4.uriEncode(path, encodeSlash: false),
            headers: base + signed, body: body, timeout: timeout)
    }
}
