public import Media

/// Decides where segments and fragments end, from the packets as they reach the muxer.
///
/// A segment ends before the first video keyframe at or past the segment grid (the encoder
/// puts IDRs only there), so every segment starts with an IDR. A segment is a list of
/// fragments; with a part target, a fragment also ends before the first video frame at or
/// past its own grid, which makes fragments the Low-Latency HLS parts.
public struct Segmenter: Sendable, Equatable {
    public struct Configuration: Sendable, Equatable {
        public var segmentDuration: Double
        public var partDuration: Double?
        /// One video frame: cuts are decided half a frame early, so rounding never skips one.
        public var frameDuration: Double

        public init(segmentDuration: Double, partDuration: Double? = nil, frameDuration: Double) {
            self.segmentDuration = segmentDuration
            self.partDuration = partDuration
            self.frameDuration = frameDuration
        }
    }

    /// What must happen before the packet being accepted is written.
    public enum Event: Sendable, Equatable {
        /// The open fragment ends; the segment goes on.
        case fragmentEnded(duration: Double, independent: Bool)
        /// The open fragment and segment end.
        case segmentEnded(ClosedSegment)
    }

    public struct ClosedSegment: Sendable, Equatable {
        /// Position in this broadcast, from 0.
        public var index: Int
        /// Media time of its first video frame, in seconds.
        public var start: Double
        public var duration: Double
        /// The duration of its last fragment.
        public var lastFragmentDuration: Double
        public var lastFragmentIndependent: Bool
    }

    public let configuration: Configuration
    private var segmentIndex = 0
    private var segmentStart: Double?
    private var fragmentStart: Double?
    private var fragmentIndependent = false
    private var lastVideoTime: Double?

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Accepts the next packet in muxing order; returns what to cut before writing it.
    /// Audio never cuts: it follows into whatever segment is open.
    public mutating func accept(kind: MediaKind, time: Double, isKeyframe: Bool) -> [Event] {
        guard kind == .video else { return [] }
        defer { lastVideoTime = time }
        let slack = configuration.frameDuration / 2
        guard let segmentStart, let fragmentStart else {
            self.segmentStart = time
            self.fragmentStart = time
            fragmentIndependent = isKeyframe
            return []
        }
        if isKeyframe, time >= segmentStart + configuration.segmentDuration - slack {
            return [.segmentEnded(closeSegment(at: time, nextIndependent: true))]
        }
        if let part = configuration.partDuration, time >= fragmentStart + part - slack {
            let event = Event.fragmentEnded(duration: time - fragmentStart, independent: fragmentIndependent)
            self.fragmentStart = time
            fragmentIndependent = isKeyframe
            return [event]
        }
        return []
    }

    /// Ends the open segment after the last video frame.
    public mutating func finish() -> [Event] {
        guard let lastVideoTime else { return [] }
        return [.segmentEnded(closeSegment(at: lastVideoTime + configuration.frameDuration, nextIndependent: false))]
    }

    private mutating func closeSegment(at time: Double, nextIndependent: Bool) -> ClosedSegment {
        let closed = ClosedSegment(
            index: segmentIndex, start: segmentStart!, duration: time - segmentStart!,
            lastFragmentDuration: time - fragmentStart!, lastFragmentIndependent: fragmentIndependent)
        segmentIndex += 1
        segmentStart = time
        fragmentStart = time
        fragmentIndependent = nextIndependent
        return closed
    }
}
