public import FoundationEssentials
import Runtime

/// Where `--push` sends a channel, read and checked before anything starts.
public enum PushDestination: Sendable, Equatable, CustomStringConvertible {
    /// An HTTP ingest (nginx WebDAV, a CDN's ingest point, `onair serve`): files sent with PUT
    /// under `base`, removed with DELETE.
    case http(base: URL, headers: [Header])
    /// S3-compatible storage: objects under `prefix` in `bucket`, path-style, signed with SigV4.
    case s3(S3Location)
    /// A destination fed the encoders' packets (RTMP, SRT): the same encode, muxed as its link says.
    case packets(PacketLink)

    public struct Header: Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public struct S3Location: Sendable, Equatable {
        public var bucket: String
        /// Empty, or ending in `/`.
        public var prefix: String
        /// `AWS_ENDPOINT_URL`, or AWS's own endpoint for the region.
        public var endpoint: URL
        public var region: String
        public var credentials: SignatureV4.Credentials
    }

    /// Why a `--push` value is refused: one line, naming the value and what to do.
    public struct Refusal: Error, Equatable, CustomStringConvertible {
        public var description: String

        public init(description: String) {
            self.description = description
        }
    }

    /// Reads one `--push` value: the scheme table, the one place a destination's kind is chosen.
    /// `headers`: the `--push-header` values, for HTTP destinations; `environment`: where S3 finds
    /// its endpoint, region and credentials.
    public static func parse(
        _ text: String, headers: [Header] = [], environment: [String: String]
    ) throws(Refusal) -> PushDestination {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            components.host != nil || scheme == "s3"
        else {
            throw Refusal(description: "--push \(text): not a URL; \(Self.forms)")
        }
        switch scheme {
        case "http", "https":
            var bare = components
            bare.user = nil
            bare.password = nil
            guard let host = components.host, !host.isEmpty, components.query == nil, components.fragment == nil,
                var base = bare.url
            else { throw Refusal(description: "--push \(text): expected http(s)://HOST/PATH/ with no query") }
            if !base.absoluteString.hasSuffix("/") { base = URL(string: base.absoluteString + "/")! }
            var all = headers
            // URLComponents decodes the user and the password ("%40" is "@") once, as it should.
            if let user = components.user {
                let credentials = "\(user):\(components.password ?? "")"
                all.insert(
                    Header(name: "Authorization", value: "Basic " + Data(credentials.utf8).base64EncodedString()),
                    at: 0)
            }
            return .http(base: base, headers: all)
        case "s3":
            return .s3(try s3(components, text: text, environment: environment))
        case "rtmp", "rtmps":
            return .packets(try .rtmp(components, text: text))
        case "srt":
            return .packets(try .srt(components, text: text))
        default:
            throw Refusal(description: "--push \(text): unknown scheme '\(scheme)'; \(Self.forms)")
        }
    }

    private static let forms =
        "use http(s)://HOST/PATH/, s3://BUCKET/PREFIX/, rtmp(s)://HOST/APP/KEY or srt://HOST:PORT"

    private static func s3(_ components: URLComponents, text: String, environment: [String: String]) throws(Refusal)
        -> S3Location
    {
        guard let bucket = components.host, !bucket.isEmpty, components.query == nil else {
            throw Refusal(description: "--push \(text): expected s3://BUCKET/PREFIX/")
        }
        guard let key = environment["AWS_ACCESS_KEY_ID"], !key.isEmpty,
            let secret = environment["AWS_SECRET_ACCESS_KEY"], !secret.isEmpty
        else {
            throw Refusal(
                description: "--push \(text): no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
                    + "(never on the command line)")
        }
        let region =
            environment["AWS_REGION"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["AWS_DEFAULT_REGION"].flatMap { $0.isEmpty ? nil : $0 } ?? "us-east-1"
        let endpointText =
            environment["AWS_ENDPOINT_URL_S3"].flatMap { $0.isEmpty ? nil : $0 }
            ?? environment["AWS_ENDPOINT_URL"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "https://s3.\(region).amazonaws.com"
        guard let endpoint = URL(string: endpointText), ["http", "https"].contains(endpoint.scheme ?? ""),
            endpoint.host != nil
        else {
            throw Refusal(description: "AWS_ENDPOINT_URL=\(endpointText): expected http(s)://HOST[:PORT]")
        }
        var prefix = components.path.split(separator: "/").joined(separator: "/")
        if !prefix.isEmpty { prefix += "/" }
        let token = environment["AWS_SESSION_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        return S3Location(
            bucket: bucket, prefix: prefix, endpoint: endpoint, region: region,
            credentials: .init(accessKeyID: key, secretAccessKey: secret, sessionToken: token))
    }

    /// Reads one `--push-header` value, `Name: value`.
    public static func header(_ text: String) throws(Refusal) -> Header {
        guard let colon = text.firstIndex(of: ":") else {
            throw Refusal(description: "--push-header \(text): expected 'Name: value'")
        }
        let name = text[..<colon].trimmingWhitespace()
        let value = text[text.index(after: colon)...].trimmingWhitespace()
        let token = Set("!#$%&'*+-.^_`|~0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".unicodeScalars)
        guard !name.isEmpty, name.unicodeScalars.allSatisfy(token.contains),
            !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        else {
            throw Refusal(description: "--push-header \(text): expected 'Name: value' (a header name, no line breaks)")
        }
        return Header(name: name, value: value)
    }

    /// The destination as logs and events name it: no password, no stream key.
    /// The same destination one folder down (`http://host/ingest/` → `http://host/ingest/demo/`): an
    /// origin pushes each channel it hosts onward in a folder of its own. Packet destinations are
    /// one stream each, and stay as they are.
    public func inFolder(_ name: String) -> PushDestination {
        switch self {
        case .http(let base, let headers):
            .http(base: base.appendingPathComponent(name, isDirectory: true), headers: headers)
        case .s3(var location):
            {
                location.prefix += name + "/"
                return .s3(location)
            }()
        case .packets:
            self
        }
    }

    public var description: String {
        switch self {
        case .http(let base, _):
            return base.absoluteString
        case .s3(let location):
            return "s3://\(location.bucket)/\(location.prefix)"
        case .packets(let link):
            return link.description
        }
    }
}
