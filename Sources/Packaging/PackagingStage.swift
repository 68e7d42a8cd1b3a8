public import HLS
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
    /// fMP4 with pictures: every picture ends a fragment, so each `moof` holds one picture. The
    /// segment's first is then a whole `moof` and `mdat` that any player's parser takes as it is
    /// (its I-frame, ``IFrameRange``), and no fragment holds more pictures than another:
    /// GStreamer's MP4 demuxer reckons a frame rate from each fragment's pictures (none from one
    /// alone), and its decoder, told of another rate, starts over at the next keyframe, so a
    /// segment of a fragment of one picture and one of many played as its first picture alone.
    private let fragmentPerPicture: Bool
    /// The sound since it was last written: it joins a picture's fragment a few frames at a time
    /// (fewer boxes), never the segment's first picture's, and always before a cut.
    private var heldSound: [EncodedPacket] = []
    /// How much sound (in frames, about 21 ms each) waits for the next picture's fragment.
    private static let soundPerFragment = 8
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
        // Sound first at a picture's time: a sound frame that starts where a segment ends goes with
        // the segment it continues, so the segment's sound ends past its last picture, as at every
        // other boundary (a frame always straddles it). Ending on the boundary, it ended 1 µs short
        // in Chromium's buffer, whose sound and picture together then stopped there (StreamDescription).
        interleaver = Interleaver(
            tracks: Set(tracks.map(\.track)), firstAtEqualTimes: Set(tracks.filter { $0.kind == .audio }.map(\.track)))
        packager = try Packager(format: timeline.configuration.format, streams: tracks)
        fragmentPerPicture = packager.format == .fmp4 && segmenter.cutsOn == .video
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
                var pictureFragmentOpen = false
                if packet.kind == .video, let held = heldPicture {
                    try packager.write(held, duration: packet.pts - held.pts)
                    heldPicture = nil
                    // The segment's first picture alone; another one's fragment takes sound too.
                    if fragmentPerPicture, held.isKeyframe { try packager.endFragment() }
                    pictureFragmentOpen = fragmentPerPicture && !held.isKeyframe
                }
                let events = segmenter.accept(
                    kind: packet.kind, time: packet.presentationSeconds, isKeyframe: packet.isKeyframe)
                if !events.isEmpty {
                    // The sound before a cut is in the part it ends.
                    try writeHeldSound()
                } else if pictureFragmentOpen {
                    if heldSound.count >= Self.soundPerFragment { try writeHeldSound() }
                    try packager.endFragment()
                }
                try apply(events)
                if packet.kind == .video {
                    heldPicture = packet
                } else if fragmentPerPicture {
                    heldSound.append(packet)
                } else {
                    try packager.write(packet)
                }
            }
        }
        if let held = heldPicture { try packager.write(held) }
        try writeHeldSound()
        try apply(segmenter.finish(), last: true)
        publish(timeline.end())
        captions?.end()
    }

    /// Writes the held sound into the open fragment.
    private func writeHeldSound() throws {
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
