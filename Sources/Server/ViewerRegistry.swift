public import HLSModel
import Synchronization

/// Who is watching each channel: the distinct players that reloaded its playlist recently.
///
/// A player is told apart by the `session` its page puts in the playlist URL, or else by its
/// address and user agent. Live players reload the playlist every target duration, so one
/// that has not for `window` seconds has gone. Times are monotonic seconds.
public final class ViewerRegistry: Sendable {
    /// Players remembered per channel; beyond it, stale ones are forgotten first and then new
    /// ones are not counted, so made-up sessions cannot grow memory without bound.
    static let capacity = 10_000

    private struct Channel {
        var lastSeen: [String: Double] = [:]
        var lastRequest = -Double.infinity
        /// When the table was last cleared of gone players.
        var lastPruned = -Double.infinity
    }

    private let channels = Mutex<[ChannelName: Channel]>([:])

    public init() {}

    /// Notes a playlist request from a player: O(1), whatever clients send. The table is changed
    /// in place (a copy of it per request made a flood of made-up players slow every request),
    /// and a full table is cleared of gone players at most once a window, so a flood of new
    /// names costs a sweep per window, not one per request.
    public func playlistRequested(channel: ChannelName, by viewer: String, at now: Double, window: Double) {
        channels.withLock { channels in
            Self.note(viewer, at: now, window: window, in: &channels[channel, default: Channel()])
        }
    }

    private static func note(_ viewer: String, at now: Double, window: Double, in entry: inout Channel) {
        entry.lastRequest = max(entry.lastRequest, now)
        if entry.lastSeen[viewer] != nil || entry.lastSeen.count < capacity {
            entry.lastSeen[viewer] = now
            return
        }
        guard now - entry.lastPruned >= window else { return }
        entry.lastPruned = now
        entry.lastSeen = entry.lastSeen.filter { now - $0.value < window }
        if entry.lastSeen.count < capacity { entry.lastSeen[viewer] = now }
    }

    /// Notes any other request of a channel's media (a segment, the init segment).
    public func mediaRequested(channel: ChannelName, at now: Double) {
        channels.withLock { channels in
            if let last = channels[channel]?.lastRequest, last >= now { return }
            channels[channel, default: Channel()].lastRequest = now
        }
    }

    /// The players that reloaded the channel's playlist within the last `window` seconds.
    public func count(channel: ChannelName, at now: Double, window: Double) -> Int {
        channels.withLock { channels in
            channels[channel]?.lastSeen.values.count { now - $0 < window } ?? 0
        }
    }

    /// Seconds since any request of the channel's media, or nil if there was none.
    public func idleTime(channel: ChannelName, at now: Double) -> Double? {
        channels.withLock { channels in
            channels[channel].flatMap { $0.lastRequest.isFinite ? now - $0.lastRequest : nil }
        }
    }

    /// The key a request is counted under: its `session` when that is a plausible token
    /// (1–64 letters, digits, `-` or `_`), otherwise the client's address and user agent.
    public static func viewerKey(session: String?, address: String?, userAgent: String?) -> String {
        if let session, isSession(session) { return "s:" + session }
        return "a:\(address ?? "?") \(userAgent ?? "")"
    }

    /// True for a `session` value the server accepts and echoes into playlists.
    public static func isSession(_ value: String) -> Bool {
        (1...64).contains(value.utf8.count)
            && value.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }
}
