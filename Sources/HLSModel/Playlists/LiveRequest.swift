/// What a player asks of `/live/<channel>/<file>?<query>`, checked before any store is looked at.
///
/// Names are plain tokens: a channel is `[A-Za-z0-9_-]{1,64}`, a file `[A-Za-z0-9._-]{1,128}`
/// not starting with a dot, so no form of `..`, slash, backslash or NUL (encoded once, twice or
/// not at all) can name anything but a file of the channel's store. The query's Low-Latency
/// HLS directives must be well formed, even where blocking reloads are not offered; other keys
/// are ignored.
public struct LiveRequest: Sendable, Equatable {
    public enum Problem: RequestRefusal, Equatable {
        /// No such channel or file can exist (HTTP 404).
        case notFound
        /// The query is malformed (HTTP 400).
        case badQuery(String)

        public var description: String {
            switch self {
            case .notFound: "No such channel or file."
            case .badQuery(let reason): reason
            }
        }

        public var status: Int {
            switch self {
            case .notFound: 404
            case .badQuery: 400
            }
        }
    }

    /// `_HLS_skip`: a delta update, without (`YES`) or with (`v2`) date ranges.
    public enum Skip: String, Sendable, Equatable {
        case yes = "YES"
        case v2
    }

    public var channel: ChannelName
    /// The rendition's folder, for a channel published in several (`/live/<channel>/<rendition>/<file>`).
    public var rendition: String?
    public var file: String
    /// `_HLS_msn`, `_HLS_part`: wait for this segment, or this part of it.
    public var msn: Int?
    public var part: Int?
    public var skip: Skip?
    /// `session`: which player this is, when it says.
    public var session: String?
    /// `token`: the signature of a private channel's URL, as given (checked by the server).
    public var token: String?
    /// `from`: the rewind window from this segment on (`dvr.m3u8?from=N`), where a player rewinds to.
    public var from: Int?
    /// `delay`: the rewind window as it stood this many seconds ago (`dvr.m3u8?delay=60`), a live
    /// playlist running that far behind, for players that cannot be told where to start.
    public var delay: Int?

    /// Parses the two path components as the router found them (percent-decoded) and the raw query.
    public static func parse(
        channel: String, rendition: String? = nil, file: String, query: String?
    ) throws(Problem) -> LiveRequest {
        guard let channel = ChannelName(channel), isToken(file, limit: 128, dots: true), !file.hasPrefix("."),
            rendition.map(isRenditionName) ?? true
        else { throw .notFound }
        var request = LiveRequest(channel: channel, file: file)
        request.rendition = rendition
        var seen = Set<String>()
        for item in (query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let pair = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = decode(pair[0]), let value = pair.count > 1 ? decode(pair[1]) : "" else {
                throw .badQuery("the query is not percent-encoded correctly")
            }
            guard key.hasPrefix("_HLS_") || key == "session" || key == "token" || key == "from" || key == "delay"
            else { continue }
            guard seen.insert(key).inserted else { throw .badQuery("\(key) is given twice") }
            switch key {
            case "_HLS_msn": request.msn = try number(value, name: key, upTo: maximumNumber)
            case "_HLS_part": request.part = try number(value, name: key, upTo: IngestRules.partsPerSegment)
            case "_HLS_skip":
                guard let skip = Skip(rawValue: value) else { throw .badQuery("_HLS_skip must be YES or v2") }
                request.skip = skip
            case "session":
                // Not one of ours: counted by address instead, as players that send none are.
                if isToken(value, limit: 64, dots: false) { request.session = value }
            case "from":
                request.from = try number(value, name: key, upTo: maximumNumber)
            case "delay":
                request.delay = try number(value, name: key, upTo: longestDelay)
            case "token":
                // Not a token of ours: a private channel refuses the request as it refuses no token.
                if isToken(value, limit: 128, dots: true) { request.token = value }
            default:
                break  // a directive of a later version of the protocol
            }
        }
        if request.part != nil, request.msn == nil { throw .badQuery("_HLS_part needs _HLS_msn") }
        return request
    }

    private init(channel: ChannelName, file: String) {
        self.channel = channel
        self.file = file
    }

    /// The largest segment number a request may name (`_HLS_msn`, `from`): the bound every number
    /// this project makes or takes keeps (``EpochNumbering``), so arithmetic on it cannot overflow.
    public static let maximumNumber = (1 << 50) - 1
    /// The largest `delay`, in seconds: the longest rewind window (`--dvr 168h`).
    public static let longestDelay = 7 * 24 * 3600

    /// A whole number from 0 to `maximum`, in plain digits, checked here where it enters: what
    /// the routes then add, subtract or multiply it by stays far inside `Int`.
    private static func number(_ value: String, name: String, upTo maximum: Int) throws(Problem) -> Int {
        guard (1...18).contains(value.utf8.count), value.utf8.allSatisfy({ (48...57).contains($0) }),
            let number = Int(value)
        else { throw .badQuery("\(name) must be a whole number") }
        guard number <= maximum else { throw .badQuery("\(name) must be at most \(maximum)") }
        return number
    }

    /// A rendition's folder in a ladder: letters, digits, `-` and `_`, 1 to 32 bytes.
    public static func isRenditionName(_ text: String) -> Bool { isToken(text, limit: 32, dots: false) }

    /// Letters, digits, `-`, `_` (and `.` when `dots`), 1 to `limit` bytes.
    static func isToken(_ text: String, limit: Int, dots: Bool) -> Bool {
        (1...limit).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (65...90).contains(byte) || (97...122).contains(byte) || (48...57).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || (dots && byte == UInt8(ascii: "."))
            }
    }

    /// Percent-decodes a query component (`+` is a space); nil when an escape is malformed or
    /// the bytes are not UTF-8.
    public static func decode(_ component: Substring) -> String? {
        var bytes: [UInt8] = []
        var iterator = component.utf8.makeIterator()
        while let byte = iterator.next() {
            switch byte {
            case UInt8(ascii: "%"):
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            default: bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }
}
