/// Where a hosted channel is in its life, from what its renditions' timelines say: `waiting`
/// (pushed files only, no playlist that lists media yet), `live` (some rendition's run goes on),
/// `ended` (shown, and no run goes on: ended by its publisher or for its silence), or `removed`
/// (let go by the sweep or to make room; a push that reaches it looks the channel up again).
///
/// A channel goes waiting → live with its first playlist that lists media, live → ended when every
/// run has ended, ended → live when a publisher comes back, and from any phase to removed. The
/// sweep's decision is ``sweep(silence:holdsFiles:publisherTimeout:retention:)``. Pure.
public enum ChannelPhase: Sendable, Equatable {
    case waiting
    case live
    case ended
    case removed

    /// What the origin's sweep does with a channel.
    public enum Sweep: Sendable, Equatable {
        case keep
        /// Files no playlist ever listed, from a publisher now silent: nothing to show or keep.
        case letGo
        /// Its publisher is silent: the files it pushed that no playlist listed go, and each run
        /// still going is ended for its viewers (EXT-X-ENDLIST).
        case end
        /// Ended long enough ago: it leaves the channel list.
        case remove
    }

    /// The phase of a channel whose renditions' timelines are `timelines`: for each, nil before
    /// its first playlist that lists media, else whether it has ended.
    public init(timelines: some Sequence<Bool?>) {
        var listed = false
        for ended in timelines {
            guard let ended else { continue }
            if !ended {
                self = .live
                return
            }
            listed = true
        }
        self = listed ? .ended : .waiting
    }

    /// Whether it may make room for a new channel when the origin hosts as many as it may: any
    /// channel but a live one (the one pushed to longest ago goes first).
    public var mayMakeRoom: Bool { self == .waiting || self == .ended }

    /// What the sweep does, `silence` seconds after the channel's last push: a publisher is silent
    /// after `publisherTimeout`, and an ended channel stays listed for `retention`. `holdsFiles`:
    /// it holds pushed files that no playlist lists.
    public func sweep(silence: Double, holdsFiles: Bool, publisherTimeout: Double, retention: Double) -> Sweep {
        switch self {
        case .removed: return .keep
        case .waiting: return silence >= publisherTimeout ? .letGo : .keep
        case .live, .ended:
            if silence >= publisherTimeout, holdsFiles || self == .live { return .end }
            return silence >= retention ? .remove : .keep
        }
    }
}
