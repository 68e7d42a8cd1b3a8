public import Media

/// Decides where segments and fragments end, from the packets as they reach the muxer.
///
/// A segment ends before the first video keyframe at or past the segment grid (the encoder
/// puts IDRs only there), so every segment starts with an IDR. The grid is the encoder's, counted
/// from media time 0, not from each segment's start: when the frame on a grid point was dropped
/// (the encoder then makes the next frame the IDR), the segment that starts a frame late still
/// ends on the next grid point. A segment is a list of
/// fragments; with a part target, a fragment also ends before the first video frame at or
/// past its own grid, which makes fragments the Low-Latency HLS parts.
public struct Segmenter: Sendable, Equatable {
    public struct Configuration: Sendable, Equatable {
        public var segmentDuration: Double
        public var partDuration: Double?
        /// One frame of the track that cuts: cuts are decided half a frame early, so rounding never
        /// skips one.
        public var frameDuration: Double
        /// The track whose packets cut: video (at its keyframes), or for an audio-only rendition its
        /// sound (any packet: every AAC frame starts where a player may).
        public var cutsOn: MediaKind

        public init(
            segmentDuration: Double, partDuration: Double? = nil, frameDuration: Double, cutsOn: MediaKind = .video
        ) {
            self.segmentDuration = segmentDuration
            self.partDuration = partDuration
            self.frameDuration = frameDuration
            self.cutsOn = cutsOn
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
    /// The grid point the open segment ends at (or after, at its first keyframe there), in
    /// segment durations from media time 0.
    private var segmentEndIndex = 1
    private var fragmentStart: Double?
    private var fragmentIndependent = false
    private var lastTime: Double?

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Media time of the latest cut (where the open fragment starts); nil before the first packet.
    public var lastCut: Double? { fragmentStart }

    /// Accepts the next packet in muxing order; returns what to cut before writing it.
    /// Audio beside video never cuts: it follows into whatever segment is open.
    public mutating func accept(kind: MediaKind, time: Double, isKeyframe: Bool) -> [Event] {
        guard kind == configuration.cutsOn else { return [] }
        let isKeyframe = isKeyframe || kind == .audio
        defer { lastTime = time }
        let slack = configuration.frameDuration / 2
        guard segmentStart != nil, let fragmentStart else {
            self.segmentStart = time
            self.fragmentStart = time
            segmentEndIndex = Int(((time + slack) / configuration.segmentDuration).rounded(.down)) + 1
            fragmentIndependent = isKeyframe
            return []
        }
        if isKeyframe, time >= gridPoint(segmentEndIndex) - slack {
            while gridPoint(segmentEndIndex) <= time + slack { segmentEndIndex += 1 }
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

    private func gridPoint(_ index: Int) -> Double {
        Double(index) * configuration.segmentDuration
    }

    /// Ends the open segment after the last frame.
    public mutating func finish() -> [Event] {
        guard let lastTime else { return [] }
        return [.segmentEnded(closeSegment(at: lastTime + configuration.frameDuration, nextIndependent: false))]
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
