public import HLSModel
import Synchronization

/// The markers of one broadcast (``DateRange``): added by the control API, taken up by every
/// rendition's packaging stage with its next change, so each media playlist lists them within
/// one part or segment. One lock, held for a copy.
public final class MarkerBook: Sendable {
    private struct State {
        var markers: [DateRange] = []
        var version = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Adds a marker at `start` once it is checked (``DateRange/check(title:at:now:earliest:)``),
    /// and returns it with its id.
    public func add(title: String, at start: Int64, now: Int64, earliest: Int64) throws(MarkerRefusal) -> DateRange {
        try DateRange.check(title: title, at: start, now: now, earliest: earliest)
        let added: DateRange? = state.withLock { state in
            guard state.markers.count < DateRange.maxCount else { return nil }
            let marker = DateRange(
                id: DateRange.id(number: state.markers.count + 1, start: start), start: start, title: title)
            state.markers.append(marker)
            state.markers.sort { ($0.start, $0.id) < ($1.start, $1.id) }
            state.version += 1
            return marker
        }
        guard let added else { throw .full }
        return added
    }

    /// Every marker so far, oldest first.
    public var markers: [DateRange] { state.withLock { $0.markers } }

    /// The markers when they changed since `version`, which is moved on; nil when they did not.
    public func changes(since version: inout Int) -> [DateRange]? {
        let (markers, current) = state.withLock { ($0.markers, $0.version) }
        guard current != version else { return nil }
        version = current
        return markers
    }
}
