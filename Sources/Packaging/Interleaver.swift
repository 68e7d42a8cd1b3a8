public import Media

/// Puts packets from several encoders (tracks), each in its own time order, into one time order.
///
/// A packet is released only once every open stream has shown a later one (or ended), so a
/// muxer fed from `pop` sees decode times that never go back. At equal times, the tracks in
/// `firstAtEqualTimes` go first, then the others by track number.
public struct Interleaver<Element>: Sendable where Element: Sendable {
    private var queues: [TrackID: [(time: Double, element: Element)]]
    private var open: Set<TrackID>
    private let firstAtEqualTimes: Set<TrackID>

    public init(tracks streams: Set<TrackID>, firstAtEqualTimes: Set<TrackID> = []) {
        open = streams
        queues = Dictionary(uniqueKeysWithValues: streams.map { ($0, []) })
        self.firstAtEqualTimes = firstAtEqualTimes
    }

    public mutating func push(_ element: Element, track: TrackID, time: Double) {
        queues[track, default: []].append((time, element))
    }

    /// Marks a stream as ended: what it queued no longer waits for it.
    public mutating func end(_ track: TrackID) {
        open.remove(track)
    }

    /// True once every stream has ended and everything queued has been popped.
    public var isFinished: Bool {
        open.isEmpty && queues.values.allSatisfy(\.isEmpty)
    }

    /// The next packet in time order, or nil while a stream that may send an earlier one is empty.
    public mutating func pop() -> Element? {
        var earliest: (track: TrackID, time: Double)?
        for (track, queue) in queues {
            guard let head = queue.first else {
                if open.contains(track) { return nil }
                continue
            }
            if earliest == nil || head.time < earliest!.time
                || (head.time == earliest!.time && goesBefore(track, earliest!.track))
            {
                earliest = (track, head.time)
            }
        }
        guard let earliest else { return nil }
        return queues[earliest.track]!.removeFirst().element
    }

    private func goesBefore(_ track: TrackID, _ other: TrackID) -> Bool {
        let first = firstAtEqualTimes.contains(track), otherFirst = firstAtEqualTimes.contains(other)
        return first != otherFirst ? first : track < other
    }
}
