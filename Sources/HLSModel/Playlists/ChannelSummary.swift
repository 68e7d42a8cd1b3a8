/// Where a channel is in its life, as a viewer sees it.
public enum ChannelState: String, Sendable, Codable {
    /// Started, but no segment is listed yet.
    case waiting
    case live
    /// EXT-X-ENDLIST has been written.
    case ended
}

/// What the web pages, the API and the status line show of a channel.
public struct ChannelSummary: Sendable, Equatable {
    public var name: ChannelName
    public var state: ChannelState
    /// Wall time of the start, milliseconds since 1970.
    public var startedAt: Int64
    public var width: Int
    public var height: Int
    public var fps: Int
    public var format: ContainerFormat
    public var videoBitrate: Int
    public var audioBitrate: Int
    /// Bits per second of the segments so far, container included; 0 before the first.
    public var measuredBitrate: Int
    public var segments: Int
    /// Every rendition, largest first, when there are several; empty for one.
    public var renditions: [Rendition] = []

    /// One rendition of a ladder, as the API lists it.
    public struct Rendition: Sendable, Equatable {
        public var id: String
        public var width: Int
        public var height: Int
        public var videoBitrate: Int
        public var measuredBitrate: Int

        public init(timeline: Timeline) {
            id = timeline.rendition.id
            width = timeline.rendition.width
            height = timeline.rendition.height
            videoBitrate = timeline.rendition.videoBitrate
            measuredBitrate = timeline.measuredBitrate
        }
    }

    public init(
        name: ChannelName, state: ChannelState, startedAt: Int64, width: Int, height: Int, fps: Int,
        format: ContainerFormat, videoBitrate: Int, audioBitrate: Int, measuredBitrate: Int, segments: Int
    ) {
        self.name = name
        self.state = state
        self.startedAt = startedAt
        self.width = width
        self.height = height
        self.fps = fps
        self.format = format
        self.videoBitrate = videoBitrate
        self.audioBitrate = audioBitrate
        self.measuredBitrate = measuredBitrate
        self.segments = segments
    }
}

extension ChannelSummary {
    /// The figures of a channel whose (first) rendition's timeline is `timeline`.
    public init(timeline: Timeline, startedAt: Int64) {
        let rendition = timeline.rendition
        self.init(
            name: timeline.channel,
            state: timeline.ended ? .ended : timeline.segments.isEmpty ? .waiting : .live,
            startedAt: startedAt, width: rendition.width, height: rendition.height, fps: rendition.fps,
            format: timeline.configuration.format, videoBitrate: rendition.videoBitrate,
            audioBitrate: rendition.audioBitrate, measuredBitrate: timeline.measuredBitrate,
            segments: timeline.nextSequence - timeline.firstSequence)
    }
}
