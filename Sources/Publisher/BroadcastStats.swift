import Media

/// Live counts of one broadcast, raised by the stages and read by the status line.
final class BroadcastStats: Sendable {
    let framesEncoded = Counter()
    let videoBytes = Counter()
    let audioBytes = Counter()

    init() {}
}
