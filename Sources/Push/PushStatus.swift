import Synchronization

/// A destination's health as the status line and `/api` show it, written by its sink's thread.
public final class PushStatus: Sendable {
    public enum State: Sendable, Equatable {
        /// Nothing sent yet.
        case starting
        case upToDate
        /// The reason of the current episode.
        case failing(String)
    }

    public struct Snapshot: Sendable, Equatable {
        public var destination: String
        public var state: State
        public var segmentsStored: Int
        public var segmentsGivenUp: Int
    }

    private let value: Mutex<Snapshot>

    init(destination: String) {
        value = Mutex(Snapshot(destination: destination, state: .starting, segmentsStored: 0, segmentsGivenUp: 0))
    }

    public var snapshot: Snapshot { value.withLock { $0 } }

    func set(_ state: State) { value.withLock { $0.state = state } }
    func segmentStored() { value.withLock { $0.segmentsStored += 1 } }
    func segmentGivenUp() { value.withLock { $0.segmentsGivenUp += 1 } }
}
