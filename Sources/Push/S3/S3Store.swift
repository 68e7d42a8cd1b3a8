import Foundation

/// S3-compatible storage: `PutObject` and `DeleteObject`, path-style (`ENDPOINT/BUCKET/KEY`), signed
/// with Signature Version 4. `Content-Type` and `Cache-Control` are stored with every object, so the
/// bucket (or a CDN in front of it) serves the stream as it is.
struct S3Store: ObjectStore {
    let location: PushDestination.S3Location
    let transport: HTTPTransport
    private let signer: SignatureV4
    private let host: String

    init(location: PushDestination.S3Location, transport: HTTPTransport = .shared) {
        self.location = location
        self.transport = transport
        signer = SignatureV4(credentials: location.credentials, region: location.region)
        let endpoint = location.endpoint
        host = (endpoint.host ?? "") + (endpoint.port.map { ":\($0)" } ?? "")
    }

    func put(_ name: String, bytes: [UInt8], contentType: String, cacheControl: String, timeout: Double)
        throws(PushFailure)
    {
        try send(
            "PUT", name: name, headers: [("content-type", contentType), ("cache-control", cacheControl)],
            body: bytes, timeout: timeout)
    }

    func delete(_ name: String, timeout: Double) throws(PushFailure) {
        // S3 answers 204 whether or not the key existed.
        try send("DELETE", name: name, headers: [], body: nil, timeout: timeout)
    }

    private func send(_ method: String, name: String, headers: [(String, String)], body: [UInt8]?, timeout: Double)
        throws(PushFailure)
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
