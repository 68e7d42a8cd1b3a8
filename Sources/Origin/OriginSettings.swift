public import HLS
public import HLSModel

extension OriginChannels {
    public struct Settings: Sendable, Equatable {
        /// Segments listed in each channel's live playlist.
        public var playlistSize: Int
        /// Seconds without a push after which a live channel is ended.
        public var publisherTimeout: Double
        /// Seconds an ended channel stays listed.
        public var retention: Double
        public var maximum: Int
        public var limits: IngestAssembler.Limits
        /// Bytes one channel may hold, every rendition's pushed files and live windows together.
        public var channelMemory: Int
        /// Bytes every channel may hold together.
        public var originMemory: Int

        public init(
            playlistSize: Int = 6, publisherTimeout: Double = 10, retention: Double = 600, maximum: Int = 100,
            limits: IngestAssembler.Limits = .init(), channelMemory: Int = 256_000_000,
            originMemory: Int = 2_000_000_000
        ) {
            self.channelMemory = channelMemory
            self.originMemory = originMemory
            self.playlistSize = playlistSize
            self.publisherTimeout = publisherTimeout
            self.retention = retention
            self.maximum = maximum
            self.limits = limits
        }
    }

    /// What happened to a channel, for the log.
    public enum Change: Sendable, Equatable {
        case live(ChannelName)
        case ended(ChannelName, silentFor: Double)
        case removed(ChannelName)
        /// A channel that was not live let go before its retention, to make room for a new one.
        case evicted(ChannelName)
        /// A second publisher refused while the channel's own pushes on.
        case refused(ChannelName, reason: String)
    }
}

/// Where an origin shows its channels to viewers: the server's channel registry.
public protocol ChannelListing: Sendable {
    /// Shows `channel`, or shows it anew (another shape, other settings), with its rewind window.
    func show(_ channel: any LiveChannel, dvr: DVRFolder?)
    /// Shows the channel no more.
    func hide(named name: ChannelName)
}
