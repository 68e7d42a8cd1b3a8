public import HLSModel

/// Who may push to an origin: one bearer token for every channel, and tokens of single channels.
public struct IngestTokens: Sendable, Equatable {
    public var everyChannel: String?
    public var byChannel: [ChannelName: String]

    public init(everyChannel: String? = nil, byChannel: [ChannelName: String] = [:]) {
        self.everyChannel = everyChannel
        self.byChannel = byChannel
    }

    public var isEmpty: Bool { everyChannel == nil && byChannel.isEmpty }

    /// True when `authorization` is `Bearer <token>` with the channel's token or the common one.
    func allows(channel: ChannelName?, authorization: String?) -> Bool {
        // Both compared, so the time taken does not say which exists.
        let own =
            channel.flatMap { byChannel[$0] }.map { ControlRoutes.bearerMatches(authorization, token: $0) } ?? false
        let common = everyChannel.map { ControlRoutes.bearerMatches(authorization, token: $0) } ?? false
        return own || common
    }

    /// Reads a tokens file: one `channel token` pair a line; blank lines and lines starting with `#` skipped.
    /// Throws a one-line reason naming the first bad line.
    public static func parse(file text: String) throws(ServerError) -> [ChannelName: String] {
        var tokens: [ChannelName: String] = [:]
        for (index, line) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            // A comment is a whole line: a token may hold a '#'.
            let fields = line.split(whereSeparator: \.isWhitespace)
            if fields.isEmpty || fields[0].hasPrefix("#") { continue }
            guard fields.count == 2, let channel = ChannelName(String(fields[0])), fields[1].utf8.count >= 16 else {
                throw .ingestTokens(
                    line: index + 1,
                    reason: "expected 'CHANNEL TOKEN' (a channel name and a token of at least 16 characters)")
            }
            guard tokens[channel] == nil else {
                throw .ingestTokens(line: index + 1, reason: "channel \(channel) is given twice")
            }
            tokens[channel] = String(fields[1])
        }
        return tokens
    }
}
