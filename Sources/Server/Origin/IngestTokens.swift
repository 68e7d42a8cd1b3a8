/// Who may push to an origin: one bearer token for every channel, and tokens of single channels.
public struct IngestTokens: Sendable, Equatable {
    public var everyChannel: String?
    public var byChannel: [String: String]

    public init(everyChannel: String? = nil, byChannel: [String: String] = [:]) {
        self.everyChannel = everyChannel
        self.byChannel = byChannel
    }

    public var isEmpty: Bool { everyChannel == nil && byChannel.isEmpty }

    /// True when `authorization` is `Bearer <token>` with the channel's token or the common one.
    func allows(channel: String, authorization: String?) -> Bool {
        // Both compared, so the time taken does not say which exists.
        let own = byChannel[channel].map { ControlRoutes.bearerMatches(authorization, token: $0) } ?? false
        let common = everyChannel.map { ControlRoutes.bearerMatches(authorization, token: $0) } ?? false
        return own || common
    }

    /// Reads a tokens file: one `channel token` pair a line; blank lines and lines starting with `#` skipped.
    /// Throws a one-line reason naming the first bad line.
    public static func parse(file text: String, isChannelName: (String) -> Bool) throws(Problem) -> [String: String] {
        var tokens: [String: String] = [:]
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            // A comment is a whole line: a token may hold a '#'.
            let fields = line.split(whereSeparator: \.isWhitespace)
            if fields.isEmpty || fields[0].hasPrefix("#") { continue }
            guard fields.count == 2, isChannelName(String(fields[0])), fields[1].utf8.count >= 16 else {
                throw Problem(
                    line: index + 1,
                    reason: "expected 'CHANNEL TOKEN' (a channel name and a token of at least 16 characters)")
            }
            guard tokens[String(fields[0])] == nil else {
                throw Problem(line: index + 1, reason: "channel \(fields[0]) is given twice")
            }
            tokens[String(fields[0])] = String(fields[1])
        }
        return tokens
    }

    public struct Problem: Error, Equatable {
        public var line: Int
        public var reason: String
    }
}
