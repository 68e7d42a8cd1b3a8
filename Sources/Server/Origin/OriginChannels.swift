public import HLS
import Media
import Synchronization

/// The channels an origin (`onair serve`) builds from what its publishers push: one
/// ``IngestAssembler`` and one ``LiveStore`` per channel, the store in the registry from the first
/// playlist that lists media, so viewers, pages and the API see it as any other channel.
///
/// A channel whose publisher goes silent is ended for its viewers (EXT-X-ENDLIST) after
/// `publisherTimeout`, and the files it pushed that no playlist listed are let go (a channel
/// that never had a playlist goes altogether); an ended one leaves the registry after `retention`. At most `maximum`
/// channels at once, each within the assembler's limits: memory stays bounded whatever is pushed.
public final class OriginChannels: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Segments listed in each channel's live playlist.
        public var playlistSize: Int
        /// Seconds without a push after which a live channel is ended.
        public var publisherTimeout: Double
        /// Seconds an ended channel stays listed.
        public var retention: Double
        public var maximum: Int
        public var limits: IngestAssembler.Limits

        public init(
            playlistSize: Int = 6, publisherTimeout: Double = 10, retention: Double = 600, maximum: Int = 100,
            limits: IngestAssembler.Limits = .init()
        ) {
            self.playlistSize = playlistSize
            self.publisherTimeout = publisherTimeout
            self.retention = retention
            self.maximum = maximum
            self.limits = limits
        }
    }

    /// What happened to a channel, for the log.
    public enum Change: Sendable, Equatable {
        case live(String)
        case ended(String, silentFor: Double)
        case removed(String)
    }

    private struct Channel {
        var assembler: IngestAssembler
        var store: LiveStore?
        /// Monotonic seconds of the last push.
        var lastPush: Double
    }

    public let settings: Settings
    let registry: ChannelRegistry
    private let channels = Mutex<[String: Channel]>([:])
    private let changed: @Sendable (Change) -> Void

    public init(settings: Settings, registry: ChannelRegistry, changed: @escaping @Sendable (Change) -> Void = { _ in })
    {
        self.settings = settings
        self.registry = registry
        self.changed = changed
    }

    /// Takes a pushed file. Publications go to the channel's store before this returns, in order.
    func put(channel name: String, file: MediaFileName, bytes: [UInt8], now: Double, wallMilliseconds: Int64)
        throws(IngestAssembler.Refusal)
    {
        let (became, store) = try channels.withLock {
            channels throws(IngestAssembler.Refusal) -> (live: Bool, LiveStore?) in
            guard channels[name] != nil || channels.count < settings.maximum else {
                throw .full("this origin hosts \(settings.maximum) channels already")
            }
            var channel =
                channels[name]
                ?? Channel(
                    assembler: IngestAssembler(
                        channel: name, playlistSize: settings.playlistSize, limits: settings.limits), lastPush: now)
            let wasLive = channel.store != nil && channel.assembler.timeline?.ended == false
            let publications = try channel.assembler.put(file, bytes: bytes, now: wallMilliseconds)
            channel.lastPush = now
            var created: LiveStore?
            if channel.store == nil, let timeline = channel.assembler.timeline {
                created = LiveStore(timeline: timeline, startedAt: wallMilliseconds)
                channel.store = created
            }
            for publication in publications { channel.store?.receive(publication) }
            channels[name] = channel
            let isLive = channel.store != nil && channel.assembler.timeline?.ended == false
            return (!wasLive && isLive, created)
        }
        if let store { registry.add(store) }
        if became { changed(.live(name)) }
    }

    /// Forgets a file the publisher deleted.
    func delete(channel name: String, file: MediaFileName, now: Double) {
        channels.withLock { channels in
            channels[name]?.assembler.delete(file)
            channels[name]?.lastPush = now
        }
    }

    /// Ends the channels whose publishers have been silent too long, and removes those ended long
    /// enough ago. Called about once a second.
    public func sweep(now: Double) {
        let changes = channels.withLock { channels -> [Change] in
            var changes: [Change] = []
            for (name, channel) in channels {
                let silence = now - channel.lastPush
                if channel.assembler.timeline == nil, silence >= settings.publisherTimeout {
                    // Pushed files that no playlist ever listed: nothing to show, nothing to keep.
                    channels[name] = nil
                } else if silence >= settings.publisherTimeout,
                    channel.assembler.heldBytes > 0
                        || channel.assembler.timeline?.ended == false
                {
                    var channel = channel
                    channel.assembler.dropHeld()
                    if let publication = channel.assembler.end() {
                        channel.store?.receive(publication)
                        changes.append(.ended(name, silentFor: silence))
                    }
                    channels[name] = channel
                } else if silence >= settings.retention {
                    channels[name] = nil
                    changes.append(.removed(name))
                }
            }
            return changes
        }
        for change in changes {
            if case .removed(let name) = change { registry.remove(named: name) }
            changed(change)
        }
    }

    /// How many channels it holds, and the bytes their publishers have pushed that wait for a playlist.
    public var counts: (channels: Int, heldBytes: Int) {
        channels.withLock { channels in (channels.count, channels.values.reduce(0) { $0 + $1.assembler.heldBytes }) }
    }
}
