import Synchronization

/// How many pushes an origin takes at once: a share of its connections (half of
/// `--max-connections`), so that publishers, or someone holding an ingest token, can never hold
/// every connection and keep viewers out.
final class UploadSlots: Sendable {
    let limit: Int
    private let taken = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// The share an origin of `connections` connections keeps for uploads.
    convenience init(sharingConnections connections: Int) {
        self.init(limit: connections / 2)
    }

    /// Takes a slot; false when every one is taken.
    func enter() -> Bool {
        var current = taken.load(ordering: .relaxed)
        while current < limit {
            let (exchanged, original) = taken.compareExchange(
                expected: current, desired: current + 1, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            current = original
        }
        return false
    }

    /// Gives a slot back.
    func leave() {
        taken.subtract(1, ordering: .relaxed)
    }
}
