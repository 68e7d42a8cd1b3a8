import Runtime
import Media

/// Live counts of one broadcast, raised by the stages and read by the status line. The frame
/// counts are the largest rendition's; a ladder's rungs also have their own.
final class BroadcastStats: Sendable {
    let framesEncoded = Counter()
    /// Frames the pacer made that the encoder never got: it fell behind and the queue kept the newest.
    let framesDropped = Counter()
    let videoBytes = Counter()
    let audioBytes = Counter()
    /// Each rung of a ladder, largest first; empty for one rendition.
    let renditions: [RenditionCounts]

    init(renditions: [String] = []) {
        self.renditions = renditions.map(RenditionCounts.init)
    }
}

/// One rung's frame counts.
final class RenditionCounts: Sendable {
    let id: String
    let framesEncoded = Counter()
    let framesDropped = Counter()
    /// Frames that repeated the picture before because the rung could not keep up (``RungShedding``).
    let framesShed = Counter()

    init(id: String) {
        self.id = id
    }
}
