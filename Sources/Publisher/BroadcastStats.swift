import Media

/// Live counts of one broadcast, raised by the stages and read by the status line.
final class BroadcastStats: Sendable {
    let framesEncoded = Counter()
    /// Frames the pacer made that the encoder never got: it fell behind and the queue kept the newest.
    let framesDropped = Counter()
    let videoBytes = Counter()
    let audioBytes = Counter()

    init() {}
}
