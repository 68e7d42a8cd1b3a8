import Crypto
public import FoundationEssentials
#if canImport(Glibc)
    import Glibc
#endif

/// AWS Signature Version 4, the Authorization header form: what S3 and every S3-compatible store
/// (SeaweedFS, MinIO, R2, GCS's interoperability mode) accept. Pure: the time is an argument.
///
/// The steps are AWS's: a canonical request (method, URI-encoded path, sorted query, sorted lower-case
/// headers, the names signed, the payload's SHA-256), a string to sign over its hash and the
/// credential scope, and an HMAC-SHA256 chain from the secret key through date, region, service and
/// `aws4_request`.
public struct SignatureV4: Sendable {
    public struct Credentials: Sendable, Equatable {
        public var accessKeyID: String
        public var secretAccessKey: String
        /// Temporary credentials (STS) carry a token, sent as `x-amz-security-token`.
        public var sessionToken: String?

        public init(accessKeyID: String, secretAccessKey: String, sessionToken: String? = nil) {
            self.accessKeyID = accessKeyID
            self.secretAccessKey = secretAccessKey
            self.sessionToken = sessionToken
        }
    }

    public var credentials: Credentials
    public var region: String
    public var service: String

    public init(credentials: Credentials, region: String, service: String = "s3") {
        self.credentials = credentials
        self.region = region
        self.service = service
    }

    /// The SHA-256 of an empty payload.
    public static let emptyPayloadHash = hex(SHA256.hash(data: [UInt8]()))

    /// The lower-case hex SHA-256 of a payload, as `x-amz-content-sha256` carries it.
    public static func payloadHash(_ bytes: [UInt8]) -> String { hex(SHA256.hash(data: bytes)) }

    /// The headers an S3 request adds to `headers` (which must hold `host`): `x-amz-date`,
    /// `x-amz-content-sha256`, the session token when there is one, and `authorization`.
    /// `path` is the object's path as sent, not yet encoded.
    public func signedHeaders(
        method: String, path: String, query: [(String, String)] = [], headers: [(String, String)],
        payloadHash: String, date: Date
    ) -> [(String, String)] {
        let amzDate = Self.timestamp(date)
        var added = [("x-amz-date", amzDate), ("x-amz-content-sha256", payloadHash)]
        if let token = credentials.sessionToken { added.append(("x-amz-security-token", token)) }
        let authorization = authorization(
            method: method, canonicalPath: Self.uriEncode(path, encodeSlash: false), query: query,
            headers: headers + added, payloadHash: payloadHash, amzDate: amzDate)
        return added + [("authorization", authorization)]
    }

    /// The Authorization header's value for a request whose headers (all of them signed) already
    /// carry the date.
    public func authorization(
        method: String, canonicalPath: String, query: [(String, String)], headers: [(String, String)],
        payloadHash: String, amzDate: String
    ) -> String {
        let canonical = Self.canonicalHeaders(headers)
        let signed = canonical.map(\.name).joined(separator: ";")
        let request = [
            method, canonicalPath, Self.canonicalQuery(query),
            canonical.map { "\($0.name):\($0.value)\n" }.joined(), signed, payloadHash,
        ].joined(separator: "\n")
        let day = String(amzDate.prefix(8))
        let scope = "\(day)/\(region)/\(service)/aws4_request"
        let stringToSign = [
            "AWS4-HMAC-SHA256", amzDate, scope, Self.hex(SHA256.hash(data: Array(request.utf8))),
        ].joined(separator: "\n")
        var key = SymmetricKey(data: Array("AWS4\(credentials.secretAccessKey)".utf8))
        for step in [day, region, service, "aws4_request"] {
            key = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array(step.utf8), using: key)))
        }
        let signature = Self.hex(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key))
        return "AWS4-HMAC-SHA256 Credential=\(credentials.accessKeyID)/\(scope), SignedHeaders=\(signed), "
            + "Signature=\(signature)"
    }

    /// `YYYYMMDDTHHMMSSZ` in UTC.
    public static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)\(two(parts.tm_mon + 1))\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour))\(two(parts.tm_min))\(two(parts.tm_sec))Z"
    }

    /// RFC 3986 encoding as AWS specifies it: unreserved characters stay, every other byte becomes
    /// `%XX` in upper case; `/` stays in a path.
    public static func uriEncode(_ text: String, encodeSlash: Bool = true) -> String {
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "/") where !encodeSlash:
                encoded.append("/")
            default:
                let digits = Array("0123456789ABCDEF")
                encoded += "%\(digits[Int(byte >> 4)])\(digits[Int(byte & 15)])"
            }
        }
        return encoded
    }

    static func canonicalQuery(_ query: [(String, String)]) -> String {
        let encoded: [(name: String, value: String)] = query.map { (uriEncode($0.0), uriEncode($0.1)) }
        let sorted = encoded.sorted { (a, b) -> Bool in a.name == b.name ? a.value < b.value : a.name < b.name }
        return sorted.map { $0.name + "=" + $0.value }.joined(separator: "&")
    }

    /// Lower-case names, sorted; values trimmed, inner runs of spaces made one.
    static func canonicalHeaders(_ headers: [(String, String)]) -> [(name: String, value: String)] {
        headers.map { header in
            let words = header.1.split(separator: " ", omittingEmptySubsequences: true)
            return (name: header.0.lowercased(), value: words.joined(separator: " "))
        }
        .sorted { $0.name < $1.name }
    }

    static func hex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        let digits = Array("0123456789abcdef")
        var text = ""
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return text
    }
}
