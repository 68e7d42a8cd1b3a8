public import HLSModel
import Synchronization

/// The sink viewers read: a channel's newest timeline in memory, its playlists rendered once per
/// change (so a reader never sees half of one), and the Low-Latency HLS requests waiting for a part.
///
/// Its runner's thread applies publications; HTTP handlers read. A mutex (not an actor), because
/// the writer is a plain thread and a read is a lookup.
public final class LiveStore: PublicationSink, LiveChannel {
    struct State {
        var timeline: Timeline
        /// Rendered once per change, served as they are.
        var mediaPlaylist: [UInt8] = []
        var deltaPlaylist: [UInt8]?
        /// The delta update that skips date ranges too (`_HLS_skip=v2`).
        var deltaPlaylistSkippingDateRanges: [UInt8]?
        /// Nil when the rendition has no keyframes to list (TS, sound).
        var iFramePlaylist: [UInt8]?
        var multivariantPlaylist: [UInt8] = []
        var waiters = Waiters()
        /// The channel's renditions as of the newest publication, when it has several.
        var ladder: LadderView?
    }

    public let name: ChannelName
    public var destination: String { "the live store of channel \(name)" }
    /// Wall time of the start, milliseconds since 1970.
    public let startedAt: Int64
    let configuration: Timeline.Configuration
    let state: Mutex<State>

    /// A store showing `timeline` (what the channel holds before its first publication).
    public init(timeline: Timeline, startedAt: Int64) {
        name = timeline.channel
        configuration = timeline.configuration
        self.startedAt = startedAt
        var initial = State(timeline: timeline)
        Self.render(&initial)
        state = Mutex(initial)
    }

    /// Takes up the publication's timeline and releases the requests it satisfies. Whatever was
    /// skipped is in the newest timeline, so nothing is lost.
    public func receive(_ publication: Publication, backlog: SinkBacklog = SinkBacklog(skipped: 0, waiting: 0)) {
        let waiting = state.withLock { state in
            state.timeline = publication.timeline
            state.ladder = publication.ladder
            Self.render(&state)
            return state.waiters.takeSatisfied(by: state.timeline)
        }
        waiting.forEach { $0.resume() }
    }

    /// The timeline as it is now.
    public var timeline: Timeline { state.withLock { $0.timeline } }

    /// Whether it serves a timeline of these settings (container, target duration, parts): a new
    /// stream of other settings, after the last ended, needs a store of its own.
    public func serves(settingsOf other: Timeline.Configuration) -> Bool {
        configuration.format == other.format && configuration.targetDuration == other.targetDuration
            && configuration.partDuration == other.partDuration
    }

    public func summary() -> ChannelSummary {
        ChannelSummary(timeline: timeline, startedAt: startedAt)
    }

    /// Three target durations, so one slow reload does not drop a player.
    public var viewerWindow: Double { Double(3 * configuration.targetDuration) }

    /// A playlist or media file by name, as it is now.
    public func file(named text: String) -> LiveFile? {
        guard let name = MediaFileName(text) else { return nil }
        return state.withLock { state in
            let bytes: [UInt8]? =
                switch name {
                case .multivariantPlaylist: state.multivariantPlaylist
                case .mediaPlaylist: state.mediaPlaylist
                case .iFramePlaylist: state.iFramePlaylist
                default: state.timeline.bytes(of: name)
                }
            return bytes.map { LiveFile(bytes: $0, contentType: name.contentType, immutable: !name.isPlaylist) }
        }
    }

    public func multivariantPlaylist(session: String?) -> MultivariantPlaylist {
        MultivariantPlaylist(renditions: [timeline]).carrying(session: session)
    }

    static func render(_ state: inout State) {
        let reports = state.ladder?.renditionReports(excluding: state.timeline.rendition.id) ?? []
        func reporting(_ playlist: MediaPlaylist) -> MediaPlaylist {
            var playlist = playlist
            playlist.lowLatency?.renditionReports = reports
            return playlist
        }
        state.mediaPlaylist = Array(reporting(state.timeline.mediaPlaylist()).render().utf8)
        state.deltaPlaylist = state.timeline.deltaPlaylist().map { Array(reporting($0).render().utf8) }
        state.deltaPlaylistSkippingDateRanges = state.timeline.deltaPlaylist(skippingDateRanges: true).map {
            Array(reporting($0).render().utf8)
        }
        state.iFramePlaylist = state.timeline.iFramePlaylist().map { Array($0.render().utf8) }
        state.multivariantPlaylist = Array(MultivariantPlaylist(renditions: [state.timeline]).render().utf8)
    }
}
