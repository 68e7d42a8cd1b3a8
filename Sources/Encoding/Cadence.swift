/// Which frame slots go to the encoder. With ``Mode/constant`` every slot does (a new picture or
/// the last one again). With ``Mode/followsScreen`` only what the stream needs does, so a still
/// screen costs almost nothing to encode (libwebrtc's "zero-hertz" screen sharing is the model):
///
/// - a slot with a new picture, at once (a change is never delayed);
/// - the first slot of every segment (its IDR) and, with Low-Latency HLS, of every part, so every
///   part has media and every segment starts independently: the packager cuts exactly there;
/// - a top-off once a change ends: the slots ``Configuration/topOff`` after the last new picture,
///   so text that was just typed or scrolled is refined to the sharpness a constant rate gives;
/// - a heartbeat without parts: a frame once ``Configuration/heartbeat`` slots have none, so
///   players and their stall detectors see the picture advance.
///
/// A top-off or heartbeat due in the ``Configuration/quietBeforeKey`` slots before a segment start
/// is left out: that start's IDR repeats the picture anyway, and both encoders budget a frame by
/// the time since the one before it (x264's VBV refills with time; libaom takes its frame rate
/// from the gap). A repeat 5 slots before the IDR of a still screen of text left libaom 0.17 s of
/// rate for a whole 1080p picture: 57 KB and SSIM 0.992 at 625k, where 1 s gave 104 KB and 0.9994.
/// The longest run without a frame is then `heartbeat + quietBeforeKey` slots.
///
/// Timestamps stay the slots' capture times: the frame rate varies, at most `fps`. Pure: slots in,
/// decisions out.
public struct Cadence: Sendable, Equatable {
    public enum Mode: String, Sendable, CaseIterable {
        /// Every slot encoded: a steady rate, as before (editing, ingests that demand one).
        case constant
        /// Only new pictures and what the stream needs.
        case followsScreen = "follow"
    }

    public struct Configuration: Sendable, Equatable {
        public var mode: Mode
        /// Slots between IDRs: the segment grid.
        public var keyframeInterval: Int
        /// Slots in a Low-Latency HLS part; nil without parts.
        public var partSlots: Int?
        /// The longest run of slots without a frame, without parts.
        public var heartbeat: Int
        /// Slots after the last new picture that are encoded again.
        public var topOff: [Int]
        /// Slots before a segment start in which no top-off or heartbeat is encoded; by default
        /// half a heartbeat, at most a quarter of a segment.
        public var quietBeforeKey: Int

        public init(
            mode: Mode, keyframeInterval: Int, partSlots: Int? = nil, heartbeat: Int, topOff: [Int] = [8, 20],
            quietBeforeKey: Int? = nil
        ) {
            self.mode = mode
            self.keyframeInterval = keyframeInterval
            self.partSlots = partSlots
            self.heartbeat = heartbeat
            self.topOff = topOff
            self.quietBeforeKey = quietBeforeKey ?? min(heartbeat / 2, keyframeInterval / 4)
        }
    }

    /// Why a slot goes to the encoder; nil when it does not.
    public enum Reason: Sendable, Equatable {
        case constant
        case newPicture
        case segmentStart
        case partStart
        case topOff
        case heartbeat
    }

    public let configuration: Configuration
    private var lastChange: Int64?
    private var lastEncoded: Int64?
    /// The slot the open part began at: the packager's segmenter cuts parts at the first frame a
    /// part's length after it, and so does this.
    private var partStart: Int64?

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Decides slot `slot` (in order, each once); `changed`: it has a new picture.
    public mutating func decide(slot: Int64, changed: Bool) -> Reason? {
        if changed { lastChange = slot }
        let reason = reason(slot: slot, changed: changed)
        if reason != nil { lastEncoded = slot }
        return reason
    }

    private mutating func reason(slot: Int64, changed: Bool) -> Reason? {
        guard configuration.mode == .followsScreen else { return .constant }
        if slot % Int64(configuration.keyframeInterval) == 0 {
            partStart = slot
            return .segmentStart
        }
        if let part = configuration.partSlots, let start = partStart, slot - start >= Int64(part) {
            partStart = slot
            return .partStart
        }
        if changed { return .newPicture }
        let interval = Int64(configuration.keyframeInterval)
        if interval - slot % interval <= Int64(configuration.quietBeforeKey) { return nil }
        if let change = lastChange, configuration.topOff.contains(Int(slot - change)) { return .topOff }
        if configuration.partSlots == nil, let last = lastEncoded, slot - last >= Int64(configuration.heartbeat) {
            return .heartbeat
        }
        return nil
    }
}
