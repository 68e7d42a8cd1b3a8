public import HLSModel
import Synchronization

/// Where the packaging stages of one channel's renditions tell each other how they stand: each
/// posts its timeline's entry with every change and gets the whole ladder back, to go with its
/// publication (the multivariant playlist, the rendition reports). One lock, held for a copy.
public final class LadderBoard: Sendable {
    private let order: [String]
    /// Each rendition's entry, and the playlist version its timeline needs.
    private let entries = Mutex<[String: (entry: LadderView.Entry, version: Int)]>([:])

    /// `renditions`: their ids, largest first.
    public init(renditions: [String]) {
        order = renditions
    }

    /// Posts `timeline`'s entry and returns the ladder with it, in the highest version any of its
    /// renditions needs (captions in WebVTT need 3, beside fMP4's 6).
    public func post(_ timeline: Timeline) -> LadderView {
        let entry = timeline.ladderEntry
        let posted = entries.withLock { entries in
            entries[entry.id] = (entry, timeline.configuration.format.playlistVersion)
            return entries
        }
        return LadderView(
            entries: order.compactMap { posted[$0]?.entry }, version: posted.values.map(\.version).max() ?? 6,
            renditionCount: order.count)
    }
}
