import Runtime
/// Which publisher's run a hosted channel belongs to (DESIGN 17). A publisher names its run on
/// every push (`Onair-Run: <id>`, a random id that `onair publish` makes at start, or one given
/// with `--push-header`); a publisher that names none is a run of its own kind, "unnamed". While
/// the channel is live, every push of another run, its playlists, EXT-X-ENDLIST and the
/// multivariant playlist included, is refused (409), until the owner ends the channel or has been
/// silent for the hold time; then the next run to push takes the channel.
///
/// Pure: the caller passes the clock and says whether the channel is live.
public struct ChannelOwner: Sendable, Equatable {
    /// A run's id as a publisher sends it: 8 to 64 letters, digits, `-` or `_`.
    public struct Run: Sendable, Hashable, CustomStringConvertible {
        public let text: String

        /// Nil for a value that is not a run id.
        public init?(_ text: String) {
            guard (8...64).contains(text.utf8.count), LiveRequest.isToken(text, limit: 64, dots: false) else {
                return nil
            }
            self.text = text
        }

        public var description: String { text }

        /// The header that carries it.
        public static let header = "Onair-Run"
    }

    /// The run that holds the channel; nil for an unnamed one (or before the first push).
    public private(set) var run: Run?
    /// Monotonic seconds of its last push that was taken; nil before the first.
    public private(set) var lastPush: Double?

    public init() {}

    /// Takes a push of `run` at `now`, or refuses it: the channel is `live` and belongs to another
    /// run that pushed less than `hold` seconds ago. A push that is taken makes `run` the owner.
    public mutating func admit(_ run: Run?, now: Double, live: Bool, hold: Double, channel: ChannelName)
        throws(IngestAssembler.Refusal)
    {
        if live, run != self.run, let last = lastPush, now - last < hold {
            throw .conflict(
                "channel \(channel) is live from another publisher (another \(Run.header)), which pushed "
                    + "\(String(fixed: now - last, decimals: 1)) s ago; a channel has one publisher at a time, and "
                    + "another takes over once it ends or is silent for \(String(fixed: hold, decimals: 0)) s")
        }
        self.run = run
        lastPush = now
    }
}
