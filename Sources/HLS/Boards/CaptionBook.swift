public import HLSModel
import Synchronization

/// The captions of one broadcast, in media time: added by the control API and by the captioner
/// command, taken up by the captions' packager (``CaptionPackager``) each time the top rendition
/// cuts a part or a segment, so a cue given "now" reaches the playlists within one part or
/// segment. One lock, held for a copy.
public final class CaptionBook: Sendable {
    /// The cues it keeps for late readers; older ones have long been packaged.
    static let kept = 2000

    private struct State {
        var cues: [Cue] = []
        /// Cues let go from the front: `cues[0]` is the `dropped`th cue ever added.
        var dropped = 0
    }

    private let state = Mutex(State())

    public init() {}

    /// Adds `cues` (in order) once each is checked against those before it (``Cue``'s rules, and
    /// ``Swift/Array/check(_:)``), all or none. `earliest`: the media time before which a cue would
    /// reach no playlist (the oldest listed segment's start); `latest`: the media time now. The
    /// checks run outside the lock the packaging stage reads through: a request of many cues never
    /// holds it up.
    public func add(_ cues: [Cue], earliest: Double, latest: Double) throws(CueRefusal) {
        for _ in 0..<3 {
            // What a new cue can overlap: those that started within the longest a cue lasts of the newest.
            let (recent, count) = state.withLock { state in
                let newest = state.cues.last?.start ?? 0
                return (
                    Array(state.cues.reversed().prefix { $0.start > newest - Cue.maxDuration }.reversed()),
                    state.dropped + state.cues.count
                )
            }
            var taken = recent
            for cue in cues {
                if cue.end <= earliest {
                    throw CueRefusal(
                        "a caption must end after \(WebVTTFile.seconds(earliest)) s, the oldest moment still listed (this one ends at \(WebVTTFile.seconds(cue.end)) s)"
                    )
                }
                if cue.start > latest + 1 {
                    throw CueRefusal(
                        "a caption cannot start in the future (\(WebVTTFile.seconds(cue.start - latest)) s from now)")
                }
                try taken.check(cue)
                taken.append(cue)
            }
            // Taken as checked, unless others came meanwhile: then checked again against them.
            let added = state.withLock { state in
                guard state.dropped + state.cues.count == count else { return false }
                state.cues += cues
                if state.cues.count > Self.kept {
                    let excess = state.cues.count - Self.kept
                    state.cues.removeFirst(excess)
                    state.dropped += excess
                }
                return true
            }
            if added { return }
        }
        throw CueRefusal("captions are coming from several places at once: send these again")
    }

    /// The newest cue: where the next must start at or after.
    public var last: Cue? { state.withLock { $0.cues.last } }

    /// The cues added since `count` (how many this reader has taken), which is moved on.
    public func added(since count: inout Int) -> [Cue] {
        let (cues, total) = state.withLock { state in
            (Array(state.cues[max(0, count - state.dropped)...]), state.dropped + state.cues.count)
        }
        count = total
        return cues
    }
}
