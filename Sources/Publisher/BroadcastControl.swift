import HLSModel
import Runtime
import Encoding
import HLS
import Media
import Server

/// Pause, resume and stop of one broadcast, from the control API or a signal, and the counts
/// and events it shows.
final class BroadcastControl: ChannelControl {
    let channel: ChannelName
    private let pauseSwitch: PauseSwitch
    private let stopSignal: StopSignal
    private let clock: MediaClock
    private let hub: EventHub
    private let captured: Counter
    private let repeated: Counter
    private let skipped: Counter
    private let stats: BroadcastStats
    private let store: LiveStore
    private let work: CaptureWork?
    private let book: MarkerBook
    private let captions: CaptionBook?
    /// How far back viewers can go (`--dvr`); nil: as far as the live playlist lists.
    private let rewindSeconds: Double?

    init(
        channel: ChannelName, pause: PauseSwitch, stop: StopSignal, clock: MediaClock, hub: EventHub,
        pacing: Pacer.Counts,
        stats: BroadcastStats, store: LiveStore, work: CaptureWork?, markers: MarkerBook, captions: CaptionBook?,
        rewindSeconds: Double?
    ) {
        book = markers
        self.captions = captions
        self.rewindSeconds = rewindSeconds
        self.work = work
        self.channel = channel
        self.pauseSwitch = pause
        self.stopSignal = stop
        self.clock = clock
        self.hub = hub
        captured = pacing.captured
        repeated = pacing.repeated
        skipped = pacing.skipped
        self.stats = stats
        self.store = store
    }

    var isPaused: Bool { pauseSwitch.isPaused }

    func pause() -> Bool {
        guard pauseSwitch.set(paused: true) else { return false }
        hub.report(.paused, "paused: viewers see the last picture dimmed under a card and hear silence")
        return true
    }

    func resume() -> Bool {
        guard pauseSwitch.set(paused: false) else { return false }
        hub.report(.resumed, "resumed")
        return true
    }

    func stop() {
        stopSignal.requestStop(at: clock.elapsed())
    }

    func statistics() -> ChannelStatistics {
        ChannelStatistics(
            framesCaptured: captured.current, framesEncoded: stats.framesEncoded.current,
            framesRepeated: repeated.current, framesSkipped: skipped.current,
            framesDropped: stats.framesDropped.current,
            bytesOut: stats.videoBytes.current + stats.audioBytes.current, segmentsOut: store.summary().segments,
            capture: work?.figures,
            renditions: stats.renditions.isEmpty
                ? nil
                : stats.renditions.map {
                    ChannelStatistics.Rendition(
                        id: $0.id, framesEncoded: $0.framesEncoded.current, framesDropped: $0.framesDropped.current,
                        framesShed: $0.framesShed.current)
                })
    }

    func addMarker(title: String, at start: Int64?) throws(MarkerRefusal) -> DateRange {
        let now = clock.wallMilliseconds(at: clock.elapsed())
        // What viewers can go back to: the rewind window, or the live playlist's first segment.
        let earliest =
            rewindSeconds.map { now - Int64($0 * 1000) }
            ?? store.timeline.segments.first(where: \.isListed)?.programDateTime ?? now
        let marker = try book.add(title: title, at: start ?? now, now: now, earliest: min(earliest, now))
        hub.report(.markerAdded, "marker \"\(marker.title)\" at \(ProgramDateTime.format(milliseconds: marker.start))")
        return marker
    }

    func markers() -> [DateRange] { book.markers }

    func addCaptions(_ given: [Caption]) throws(CueRefusal) -> Bool {
        guard let captions else { return false }
        // Before the oldest listed segment, a cue would reach no playlist.
        let earliest = store.timeline.segments.first(where: \.isListed).map {
            Double($0.programDateTime - clock.anchorWallMilliseconds) / 1000
        }
        try captions.add(
            given.map { $0.cue(anchor: clock.anchorWallMilliseconds) }, earliest: earliest ?? 0,
            latest: clock.elapsed())
        return true
    }

    func events() -> AsyncStream<BroadcastEvent> {
        hub.stream()
    }
}
