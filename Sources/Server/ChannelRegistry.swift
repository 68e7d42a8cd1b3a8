public import HLS
import Synchronization

/// The channels this server hosts, by name, with their controls when it has them. Channels come and
/// go while the server runs: a broadcast adds its own, an origin adds those its publishers push.
public final class ChannelRegistry: Sendable {
    public struct Entry: Sendable {
        public var channel: any LiveChannel
        /// Pause, resume and stop, for a channel this process captures; nil for one it only serves.
        public var control: (any ChannelControl)?
    }

    private let entries = Mutex<[String: Entry]>([:])

    public init() {}

    /// Adds a channel, or replaces the one of the same name.
    public func add(_ channel: any LiveChannel, control: (any ChannelControl)? = nil) {
        entries.withLock { $0[channel.name] = Entry(channel: channel, control: control) }
    }

    public func remove(named name: String) {
        _ = entries.withLock { $0.removeValue(forKey: name) }
    }

    public func entry(named name: String) -> Entry? {
        entries.withLock { $0[name] }
    }

    /// Every channel, by name.
    public func all() -> [Entry] {
        entries.withLock { $0.values.sorted { $0.channel.name < $1.channel.name } }
    }
}
