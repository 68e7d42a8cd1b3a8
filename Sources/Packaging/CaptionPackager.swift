public import HLS
public import HLSModel

/// The captions' rendition, cut where the top rendition cuts: each time its packaging stage ends a
/// part or a segment, the same time span becomes a WebVTT part or segment of the captions'
/// timeline (numbered alike, so the two stay aligned), listing the cues that overlap it. A cue
/// given after the time it belongs to was cut (a captioner hears before it writes) goes in the next
/// part and segment with its own times: players are behind the live edge, and show it on time.
/// Runs on the top rendition's packaging thread: a file of a few cues takes microseconds.
public final class CaptionPackager {
    private var timeline: Timeline
    private let book: CaptionBook
    private let sinks: [SinkRunner]
    private let board: LadderBoard?
    private let markers: MarkerBook?
    private var markersSeen = 0
    private var taken = 0
    /// Cues not yet over, with the segment each was first written in (nil: not yet).
    private var cues: [(cue: Cue, writtenIn: Int?)] = []

    public init(timeline: Timeline, book: CaptionBook, sinks: [SinkRunner], board: LadderBoard?, markers: MarkerBook?) {
        self.markers = markers
        self.timeline = timeline
        self.book = book
        self.sinks = sinks
        self.board = board
    }

    /// The top rendition ended a part spanning [`start`, `end`) of media time.
    public func partEnded(from start: Double, to end: Double) {
        let file = file { entry in
            entry.cue.overlaps(from: start, to: end) || (entry.writtenIn == nil && entry.cue.start < end)
        }
        publish(timeline.appendPart(file, duration: end - start, independent: true))
    }

    /// The top rendition ended its segment with a part spanning [`partStart`, `end`): the segment
    /// spans [`start`, `end`) and its first picture was shown at `programDateTime`.
    public func segmentEnded(from start: Double, lastPartFrom partStart: Double, to end: Double, programDateTime: Int64)
    {
        let part = file { entry in
            entry.cue.overlaps(from: partStart, to: end) || (entry.writtenIn == nil && entry.cue.start < end)
        }
        let published = timeline.appendPart(part, duration: end - partStart, independent: true)
        let sequence = timeline.nextSequence
        let whole = file { entry in
            entry.cue.overlaps(from: start, to: end) || entry.writtenIn == sequence
        }
        let listed = timeline.closeSegment(programDateTime: programDateTime, whole: whole)
        publish(published.map { $0.followed(by: listed) } ?? listed)
        cues.removeAll { $0.writtenIn != nil && $0.cue.end <= end }
    }

    /// The broadcast ended: the playlist ends too.
    public func end() {
        publish(timeline.end())
    }

    /// The WebVTT file holding the cues `includes` picks, which count as written in the open
    /// segment from then on.
    private func file(includes: ((cue: Cue, writtenIn: Int?)) -> Bool) -> [UInt8] {
        // The channel's markers are in every media playlist, this one's too.
        if let added = markers?.changes(since: &markersSeen) { timeline.keep(dateRanges: added) }
        cues += book.added(since: &taken).map { ($0, nil) }
        var picked: [Cue] = []
        for index in cues.indices where includes(cues[index]) {
            picked.append(cues[index].cue)
            if cues[index].writtenIn == nil { cues[index].writtenIn = timeline.nextSequence }
        }
        return Array(WebVTTFile.render(cues: picked).utf8)
    }

    private func publish(_ publication: Publication?) {
        guard var publication else { return }
        publication.ladder = board?.post(publication.timeline)
        for sink in sinks { sink.send(publication) }
    }
}
