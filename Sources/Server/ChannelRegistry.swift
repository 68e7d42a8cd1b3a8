public import HLS
public import HLSModel
public import Origin
import Synchronization

/// The channels this server hosts, by name, with their controls when it has them. Channels come and
/// go while the server runs: a broadcast adds its own, an origin adds those its publishers push.
public final class ChannelRegistry: Sendable {
    public struct Entry: Sendable {
        public var channel: any LiveChannel
        /// Pause, resume and stop, for a channel this process captures; nil for one it only serves.
        public var control: (any ChannelControl)?
        /// The newest picture as a JPEG, for a channel this process captures.
        public var thumbnail: ThumbnailSource?
        /// The rewind window on disk (`--dvr`), for a channel that keeps one.
        public var dvr: DVRFolder?
    }

    private let entries = Mutex<[ChannelName: Entry]>([:])

    public init() {}

    /// Adds a channel, or replaces the one of the same name.
    public func add(
        _ channel: any LiveChannel, control: (any ChannelControl)? = nil, thumbnail: ThumbnailSource? = nil,
        dvr: DVRFolder? = nil
    ) {
        entries.withLock {
            $0[channel.name] = Entry(channel: channel, control: control, thumbnail: thumbnail, dvr: dvr)
        }
    }

    public func remove(named name: ChannelName) {
        _ = entries.withLock { $0.removeValue(forKey: name) }
    }

    public func entry(named name: ChannelName) -> Entry? {
        entries.withLock { $0[name] }
    }

    /// Every channel, by name.
    public func all() -> [Entry] {
        entries.withLock { $0.values.sorted { $0.channel.name < $1.channel.name } }
    }
}

/// A channel's newest picture, for a channel this process captures.
public struct ThumbnailSource: Sendable {
    /// True once there is a picture.
    public var isReady: @Sendable () -> Bool
    /// The picture as a JPEG, with the index of its frame (which tells one apart from the next);
    /// nil until there is one.
    public var jpeg: @Sendable () -> (bytes: [UInt8], index: Int64)?

    public init(
        isReady: @escaping @Sendable () -> Bool, jpeg: @escaping @Sendable () -> (bytes: [UInt8], index: Int64)?
    ) {
        self.isReady = isReady
        self.jpeg = jpeg
    }
}

/// An origin's channels are shown to viewers through the registry.
extension ChannelRegistry: ChannelListing {
    public func show(_ channel: any LiveChannel, dvr: DVRFolder?) { add(channel, dvr: dvr) }
    public func hide(named name: ChannelName) { remove(named: name) }
}
