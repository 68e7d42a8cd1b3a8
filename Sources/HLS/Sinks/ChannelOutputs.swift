public import HLSModel

/// Where a channel goes besides the live store its viewers read: push destinations, recordings (on
/// disk or in object storage) and the rewind window. `onair publish` and `onair serve` describe it
/// from the same options and make every rendition's sinks from it alike, so whatever a published
/// channel is sent to, a hosted one can be too. Starting sinks touches neither the disk nor the
/// network: each sink does that on its runner's thread, the only one that ever uses it.
public protocol ChannelOutputs: Sendable {
    /// The channel's rewind window, when it keeps one: where the server reads `dvr.m3u8` from.
    func rewindWindow(of channel: ChannelName) -> DVRFolder?

    /// Starts the sinks that follow one rendition (`nil`: the channel's only one) for as long as
    /// the channel is there, across its runs: its push destinations and its rewind window.
    /// `writesIndex`: this rendition's sinks write the channel's multivariant playlist.
    func lastingSinks(of channel: ChannelName, rendition: String?, writesIndex: Bool) -> [SinkRunner]

    /// One run's recordings, from its first segment to its end (nil when the channel is not
    /// recorded). `renditions`: the folders of a ladder, largest first, or `[nil]`.
    func recordings(of channel: ChannelName, renditions: [String?], format: ContainerFormat, startedAt: Int64)
        -> (any ChannelRecordings)?
}

/// The recordings of one run of a channel, planned once for all its renditions.
public protocol ChannelRecordings: Sendable {
    /// Starts one rendition's recorders. `after`: the live timeline's last segment before this run
    /// (an origin's channel goes on in one timeline across its publisher's runs); nil: none.
    func sinks(rendition: String?, writesIndex: Bool, after: Int?) -> [SinkRunner]
}
