/// A channel's name: 1 to 64 letters, digits, `-` and `_`, so it is safe in a URL path and as a
/// folder name. Whatever names a channel (the command line, a request, an ingest, a tokens file,
/// a folder on disk) becomes one through `init?(_:)`, the one place the rule is kept.
public struct ChannelName: Hashable, Comparable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let text: String

    /// Nil when `text` breaks the rule.
    public init?(_ text: String) {
        guard LiveRequest.isToken(text, limit: 64, dots: false) else { return nil }
        self.text = text
    }

    /// A name written in the code; one that breaks the rule is a programming error.
    public init(stringLiteral text: String) {
        guard let name = ChannelName(text) else { preconditionFailure("'\(text)' is no channel name") }
        self = name
    }

    public var description: String { text }

    /// The rule, as error messages say it.
    public static let rule = "1 to 64 letters, digits, '-' or '_'"

    public static func < (a: ChannelName, b: ChannelName) -> Bool { a.text < b.text }
}
