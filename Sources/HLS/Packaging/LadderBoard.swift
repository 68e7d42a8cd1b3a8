public import HLSModel
import Synchronization

/// Where the packaging stages of one channel's renditions tell each other how they stand: each
/// posts its timeline's entry with every change and gets the whole ladder back, to go with its
/// publication (the multivariant playlist, the rendition reports). One lock, held for a copy.
public final class LadderBoard: Sendable {
    private let order: [String]
    private let entries = Mutex<[String: LadderView.Entry]>([:])

    /// `renditions`: their ids, largest first.
    public init(renditions: [String]) {
        order = renditions
    }

    /// Posts `timeline`'s entry and returns the ladder with it.
    public func post(_ timeline: Timeline) -> LadderView {
        let entry = timeline.ladderEntry
        let posted = entries.withLock { entries in
            entries[entry.id] = entry
            return entries
        }
        return LadderView(
            entries: order.compactMap { posted[$0] }, version: timeline.configuration.format.playlistVersion,
            renditionCount: order.count)
    }
}
