public import Runtime
public import HLSModel

/// What the control API can do to a broadcast; the publisher implements it.
public protocol ChannelControl: Sendable {
    var channel: ChannelName { get }
    var isPaused: Bool { get }
    /// Pauses; false when it already was.
    func pause() -> Bool
    /// Resumes; false when it was not paused.
    func resume() -> Bool
    /// Ends the broadcast as Ctrl-C does: the last segment is listed and the playlist ended.
    func stop()
    func statistics() -> ChannelStatistics
    /// Adds a marker titled `title` at `start` (milliseconds since 1970; nil: now), once checked.
    func addMarker(title: String, at start: Int64?) throws(MarkerRefusal) -> DateRange
    /// The broadcast's markers, oldest first.
    func markers() -> [DateRange]
    /// Adds captions (in order), all or none, once each is checked; nil when the broadcast has no
    /// captions (`--captions`).
    func addCaptions(_ captions: [Caption]) throws(CueRefusal) -> Bool
    /// The events so far, then each new one as it happens; finishes when the broadcast ends.
    func events() -> AsyncStream<BroadcastEvent>
}

/// The counts a broadcast keeps, for the control API and `/metrics`.
public struct ChannelStatistics: Sendable, Equatable, Codable {
    /// Frame slots with a new picture.
    public var framesCaptured: Int
    /// Frames given to the encoder (a new picture, or one the stream needed again).
    public var framesEncoded: Int
    /// Frame slots without a new picture (the last one, or the standby card, again), encoded or not.
    public var framesRepeated: Int
    /// Frame slots the cadence left out: no frame was encoded for them (a still screen).
    public var framesSkipped: Int
    /// Frames the encoder could not take in time.
    public var framesDropped: Int
    public var bytesOut: Int
    public var segmentsOut: Int
    /// Pixels read from the screen and converted, in total and over the last second (screen
    /// sources only): what a changed part of the screen costs.
    public var capture: CaptureWork.Figures?
    /// A ladder's rungs, largest first: frames encoded, dropped, and held to keep up (not encoded).
    public var renditions: [Rendition]?

    public struct Rendition: Sendable, Equatable, Codable {
        public var id: String
        public var framesEncoded: Int
        public var framesDropped: Int
        public var framesShed: Int

        public init(id: String, framesEncoded: Int, framesDropped: Int, framesShed: Int) {
            self.id = id
            self.framesEncoded = framesEncoded
            self.framesDropped = framesDropped
            self.framesShed = framesShed
        }
    }

    public init(
        framesCaptured: Int, framesEncoded: Int, framesRepeated: Int, framesSkipped: Int = 0, framesDropped: Int,
        bytesOut: Int, segmentsOut: Int, capture: CaptureWork.Figures? = nil, renditions: [Rendition]? = nil
    ) {
        self.framesSkipped = framesSkipped
        self.capture = capture
        self.renditions = renditions
        self.framesCaptured = framesCaptured
        self.framesEncoded = framesEncoded
        self.framesRepeated = framesRepeated
        self.framesDropped = framesDropped
        self.bytesOut = bytesOut
        self.segmentsOut = segmentsOut
    }
}
