import Synchronization

/// The channels this server publishes, by name.
public final class ChannelDirectory: Sendable {
    private let channels = Mutex<[String: SegmentStore]>([:])

    public init() {}

    public func add(_ store: SegmentStore) {
        channels.withLock { $0[store.configuration.channel] = store }
    }

    public func store(named name: String) -> SegmentStore? {
        channels.withLock { $0[name] }
    }

    /// Every channel, by name.
    public func all() -> [SegmentStore] {
        channels.withLock { $0.values.sorted { $0.configuration.channel < $1.configuration.channel } }
    }
}
