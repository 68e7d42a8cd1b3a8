public import HLSModel
public import Runtime
public import Media

/// The packaging thread of one rendition: puts its tracks' packets in time order, cuts them into
/// fragments and segments on the grid, muxes them, and hands each change of the rendition's
/// timeline to every sink. It never waits for a sink: each has its own runner.
public final class PackagingStage {
    private let packager: Packager
    private let clock: MediaClock
    private var segmenter: Segmenter
    private var interleaver: Interleaver<EncodedPacket>
    private var timeline: Timeline
    private let sinks: [SinkRunner]
    /// Shared with the channel's other renditions, when it has several.
    private let board: LadderBoard?
    /// The newest picture, written once the next one comes: it lasts until then (a still screen's
    /// encoder is given fewer pictures than slots), so a fragment's samples cover its whole time.
    private var heldPicture: EncodedPacket?
    /// The held picture starts a segment (fMP4): once written, it is flushed as a fragment of its
    /// own, so the segment's I-frame (``IFrameRange``) is a whole `moof` and `mdat` that any
    /// player's parser takes as it is. The sound that comes meanwhile waits in `heldSound`.
    private var keyframeStartsSegment = false
    private var heldSound: [EncodedPacket] = []
    /// The channel's markers, taken up with each change; `markersSeen` is the book's version.
    private let markers: MarkerBook?
    private var markersSeen = 0
    /// The channel's captions, cut where this rendition cuts (the top rendition's stage only).
    private let captions: CaptionPackager?

    /// Opens the muxer over `tracks` and publishes the init segment.
    public init(
        timeline: Timeline, tracks: [StreamDescription], segmenter: Segmenter.Configuration, clock: MediaClock,
        sinks: [SinkRunner], board: LadderBoard? = nil, markers: MarkerBook? = nil, captions: CaptionPackager? = nil
    ) throws {
        self.markers = markers
        self.captions = captions
        self.timeline = timeline
        self.clock = clock
        self.sinks = sinks
        self.board = board
        self.segmenter = Segmenter(configuration: segmenter)
        interleaver = Interleaver(tracks: Set(tracks.map(\.track)))
        packager = try Packager(format: timeline.configuration.format, streams: tracks)
        publish(self.timeline.setInitSegment(packager.initSegment))
    }

    /// Runs until every track has ended, then lists the last segment and ends the playlist.
    public func run(input: BoundedQueue<PacketMessage>) throws {
        while !interleaver.isFinished, let message = input.pop() {
            switch message {
            case .packet(let packet):
                interleaver.push(packet, track: packet.track, time: packet.decodeSeconds)
            case .end(let track):
                interleaver.end(track)
            }
            while let packet = interleaver.pop() {
                if packet.kind == .video, let held = heldPicture {
                    try packager.write(held, duration: packet.pts - held.pts)
                    heldPicture = nil
                    try writeHeldSound(isolatingKeyframe: keyframeStartsSegment)
                }
                let events = segmenter.accept(
                    kind: packet.kind, time: packet.presentationSeconds, isKeyframe: packet.isKeyframe)
                try apply(events)
                if packet.kind == .video {
                    heldPicture = packet
                    keyframeStartsSegment = packet.isKeyframe && packager.format == .fmp4
                } else if keyframeStartsSegment {
                    heldSound.append(packet)
                } else {
                    try packager.write(packet)
                }
            }
        }
        if let held = heldPicture { try packager.write(held) }
        try writeHeldSound(isolatingKeyframe: false)
        try apply(segmenter.finish(), last: true)
        publish(timeline.end())
        captions?.end()
    }

    /// Writes the sound held while a segment's first picture waited, after ending that picture's
    /// fragment when `isolatingKeyframe`.
    private func writeHeldSound(isolatingKeyframe: Bool) throws {
        if isolatingKeyframe { try packager.isolateKeyframe() }
        keyframeStartsSegment = false
        for sound in heldSound { try packager.write(sound) }
        heldSound.removeAll()
    }

    /// Cuts what the events say; the last segment ends with the muxer's trailer.
    private func apply(_ events: [Segmenter.Event], last: Bool = false) throws {
        if !events.isEmpty, let added = markers?.changes(since: &markersSeen) { timeline.keep(dateRanges: added) }
        for event in events {
            switch event {
            case .fragmentEnded(let duration, let independent):
                publish(
                    timeline.appendPart(
                        try packager.cutFragment(segmentStartsNext: false), duration: duration,
                        independent: independent))
                if let captions, let end = segmenter.lastCut { captions.partEnded(from: end - duration, to: end) }
            case .segmentEnded(let segment):
                // The last part and the segment's listing: one change.
                let part = timeline.appendPart(
                    try last ? packager.finish() : packager.cutFragment(segmentStartsNext: true),
                    duration: segment.lastFragmentDuration, independent: segment.lastFragmentIndependent)
                let programDateTime = clock.wallMilliseconds(at: segment.start)
                let listed = timeline.closeSegment(programDateTime: programDateTime)
                publish(part.map { $0.followed(by: listed) } ?? listed)
                let end = segment.start + segment.duration
                captions?.segmentEnded(
                    from: segment.start, lastPartFrom: end - segment.lastFragmentDuration, to: end,
                    programDateTime: programDateTime)
            }
        }
    }

    private func publish(_ publication: Publication?) {
        guard var publication else { return }
        publication.ladder = board?.post(publication.timeline)
        for sink in sinks { sink.send(publication) }
    }
}
