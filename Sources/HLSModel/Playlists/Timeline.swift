/// One rendition's published media as a value: what is numbered, named, listed and still
/// downloadable, and the bytes of each file. The packaging stage changes it as fragments and segments
/// are cut; each change returns a ``Publication`` that carries the events and a copy of the timeline
/// after it, so a sink can follow the events one by one or simply take up the newest timeline.
///
/// Pure: no clock, no I/O, no lock. Copies are cheap (the bytes are shared, not copied).
public struct Timeline: Sendable {
    public struct Configuration: Sendable, Equatable {
        public var channel: ChannelName
        public var rendition: Rendition
        public var format: ContainerFormat
        public var segmentDuration: Double
        /// Segments listed in the live playlist.
        public var playlistSize: Int
        /// Low-Latency HLS: each fragment is a part of about this many seconds, listed at once.
        public var partDuration: Double?

        public init(
            channel: ChannelName, rendition: Rendition, format: ContainerFormat, segmentDuration: Double,
            playlistSize: Int, partDuration: Double? = nil
        ) {
            self.channel = channel
            self.rendition = rendition
            self.format = format
            self.segmentDuration = segmentDuration
            self.playlistSize = playlistSize
            self.partDuration = partDuration
        }

        /// EXT-X-TARGETDURATION: the segment length rounded up.
        public var targetDuration: Int { Int(segmentDuration.rounded(.up)) }
    }

    public struct Part: Sendable {
        public var name: MediaFileName
        public var duration: Double
        /// Starts with an IDR: a player may begin here.
        public var independent: Bool
        public var bytes: [UInt8]
    }

    public struct Segment: Sendable {
        public var sequence: Int
        public var name: MediaFileName
        public var duration: Double
        /// Wall time of its first frame, milliseconds since 1970.
        public var programDateTime: Int64
        public var bytes: [UInt8]
        /// Media time of its end: how far it is from the live edge.
        public var end: Double
        /// Its parts while they are listed or downloadable (Low-Latency HLS).
        public var parts: [Part]
        /// Media time after which a segment that left the playlist is no longer downloadable.
        public var expiresAt: Double?
        /// Its init segment (fMP4).
        public var initSegment: MediaFileName?
        /// The first of a run that continues an earlier one's numbering.
        public var discontinuity: Bool
        /// Listed without media (EXT-X-GAP): an origin's publisher could not deliver it in time.
        public var gap = false
        /// Where its first keyframe lies in its bytes, for the I-frame playlist (fMP4 video only).
        public var iFrame: IFrameRange?

        /// Still in the playlist (not only still downloadable).
        public var isListed: Bool { expiresAt == nil }
    }

    /// Fixed for the timeline's life, but for the rendition's description, which an origin learns
    /// from its publisher's multivariant playlist.
    public internal(set) var configuration: Configuration
    /// Listed segments, then those that left the playlist but must stay downloadable, oldest first.
    public internal(set) var segments: [Segment] = []
    /// The parts of the segment being built.
    public internal(set) var openParts: [Part] = []
    /// Init segments by name: this run's, and an earlier run's while its segments are held.
    public internal(set) var initSegments: [MediaFileName: [UInt8]] = [:]
    public internal(set) var nextSequence = 0
    /// This run's first segment number: above 0 when it continues an earlier run, or when the
    /// numbering starts on the epoch (``EpochNumbering``).
    public internal(set) var firstSequence = 0
    /// The number the timeline started from before it listed anything (0 when it continues an
    /// earlier run's folder): numbers past it mean earlier media, which a new run follows after an
    /// EXT-X-DISCONTINUITY.
    public internal(set) var startSequence = 0
    /// Discontinuities that have left the head of the playlist.
    public internal(set) var discontinuitySequence = 0
    /// The next segment follows an earlier run's.
    public internal(set) var nextIsDiscontinuity = false
    /// This run's init segment: `init.mp4`, or `init<N>.mp4` when continuing at segment N; nil for TS.
    public internal(set) var initSegmentName: MediaFileName?
    public internal(set) var ended = false
    /// Media time of the end of the last complete part.
    public internal(set) var edge = 0.0
    /// What this run's segments add up to, for the measured bit rates.
    public internal(set) var totalBytes = 0
    public internal(set) var totalDuration = 0.0
    public internal(set) var peakBitrate = 0
    /// The most bits per second a segment's keyframe stands for (its bytes over the segment's
    /// duration): the I-frame stream's BANDWIDTH.
    public internal(set) var peakIFrameBitrate = 0
    /// The channel's markers, oldest first (at most ``DateRange/maxCount``): those of listed
    /// segments are in the playlists; a rewind window or a recording keeps the older ones.
    public internal(set) var dateRanges: [DateRange] = []

    /// A timeline for a new broadcast, numbered from `firstSequence` (see ``EpochNumbering``); with
    /// `previous` (what an earlier run of the channel left in its folder), the earlier segments stay
    /// listed and the numbering goes on from them after an EXT-X-DISCONTINUITY, as players expect of
    /// a restarted stream. The init segment is `init.mp4` when the numbering starts at 0, else
    /// `init<N>.mp4` after the run's first segment: a name is never given to other bytes.
    public init(configuration: Configuration, continuing previous: PreviousRun? = nil, firstSequence first: Int = 0) {
        self.configuration = configuration
        initSegmentName = nil
        if let previous {
            restore(previous)
        } else {
            nextSequence = max(0, first)
            firstSequence = nextSequence
            startSequence = nextSequence
        }
        initSegmentName =
            configuration.format.hasInitSegment ? .initSegment(continuing: nextSequence > 0 ? nextSequence : nil) : nil
    }

    public var channel: ChannelName { configuration.channel }
    public var rendition: Rendition { configuration.rendition }
    public var isLowLatency: Bool { configuration.partDuration != nil }

    /// This run's init segment; nil for TS, which has none.
    public mutating func setInitSegment(_ bytes: [UInt8]) -> Publication? {
        guard let name = initSegmentName else { return nil }
        initSegments[name] = bytes
        return publication([.initSegment(name)])
    }

    /// Adds a finished fragment to the segment being built: published at once as a part with
    /// Low-Latency HLS, otherwise only with its segment (nil).
    public mutating func appendPart(_ bytes: [UInt8], duration: Double, independent: Bool) -> Publication? {
        let name = MediaFileName.part(nextSequence, openParts.count, configuration.format)
        openParts.append(Part(name: name, duration: duration, independent: independent, bytes: bytes))
        edge += duration
        return isLowLatency ? publication([.part(name)]) : nil
    }

    /// Lists the segment built from the parts so far, slides the window, and lets go of what has
    /// been out of it for its availability duration. Its duration is that of its parts, unless
    /// `duration` says better (an origin's parts carry the rounded durations of a pushed playlist).
    /// Its bytes are its parts' one after the other, unless `whole` gives them (a WebVTT segment is
    /// one file of its own, not its parts joined).
    public mutating func closeSegment(
        programDateTime: Int64, duration stated: Double? = nil, whole: [UInt8]? = nil
    ) -> Publication {
        let parts = openParts
        // Sized once: a joined sequence of unknown length would grow by doubling, and a segment
        // held for half a minute would keep up to twice its bytes.
        var bytes: [UInt8] = whole ?? []
        if whole == nil {
            bytes.reserveCapacity(parts.reduce(0) { $0 + $1.bytes.count })
            for part in parts { bytes += part.bytes }
        }
        let duration = stated ?? parts.reduce(0) { $0 + $1.duration }
        measure(bytes: bytes.count, duration: duration)
        return list(
            duration: duration, programDateTime: programDateTime, bytes: bytes,
            parts: isLowLatency ? parts : [], gap: false)
    }

    /// Lists a segment that came whole (an origin's publisher listed it without parts): no part
    /// tags, even with Low-Latency HLS, since its one piece is no part of PART-TARGET's length.
    /// Parts of it received so far are dropped.
    public mutating func closeWholeSegment(_ bytes: [UInt8], duration: Double, programDateTime: Int64) -> Publication {
        measure(bytes: bytes.count, duration: duration)
        return list(duration: duration, programDateTime: programDateTime, bytes: bytes, parts: [], gap: false)
    }

    /// Counts a listed segment into the measured bit rates.
    private mutating func measure(bytes: Int, duration: Double) {
        guard duration > 0 else { return }
        totalBytes += bytes
        totalDuration += duration
        // A short final segment says little about the peak: measure whole ones.
        if duration >= configuration.segmentDuration * 0.9 {
            peakBitrate = max(peakBitrate, Int(Double(bytes * 8) / duration))
        }
    }

    /// Lists a segment whose media never came (EXT-X-GAP): players skip its duration instead of
    /// stalling on it. Parts of it received so far are dropped.
    public mutating func closeGap(duration: Double, programDateTime: Int64) -> Publication {
        list(duration: duration, programDateTime: programDateTime, bytes: [], parts: [], gap: true)
    }

    /// Lists the open segment as `duration` long (the edge moves to its end), slides the window and
    /// retires what has been out of it for its availability duration.
    private mutating func list(
        duration: Double, programDateTime: Int64, bytes: [UInt8], parts: [Part], gap: Bool
    ) -> Publication {
        edge += duration - openParts.reduce(0) { $0 + $1.duration }
        openParts.removeAll()
        let sequence = nextSequence
        nextSequence += 1
        let name = MediaFileName.segment(sequence, configuration.format)
        let iFrame = gap ? nil : keyframe(in: bytes)
        if let iFrame, duration >= configuration.segmentDuration * 0.9 {
            peakIFrameBitrate = max(peakIFrameBitrate, Int(Double(iFrame.length * 8) / duration))
        }
        segments.append(
            Segment(
                sequence: sequence, name: name, duration: duration, programDateTime: programDateTime, bytes: bytes,
                end: edge, parts: parts, initSegment: initSegmentName, discontinuity: nextIsDiscontinuity, gap: gap,
                iFrame: iFrame))
        nextIsDiscontinuity = false
        let expired = retire()
        return publication([.segment(name)] + (expired.isEmpty ? [] : [.expired(expired)]))
    }

    /// Whether its segments have keyframes to list (``IFrameRange``): fMP4 whose init segment has
    /// a video track (none is promised before the init segment is in).
    public var hasIFrames: Bool {
        guard configuration.format.hasInitSegment, !rendition.isAudioOnly, let name = initSegmentName,
            let initSegment = initSegments[name]
        else { return false }
        return IFrameRange.videoTrack(inInitSegment: initSegment) != nil
    }

    /// The first keyframe of a segment of this run, found through the run's init segment.
    private func keyframe(in bytes: [UInt8]) -> IFrameRange? {
        guard configuration.format.hasInitSegment, let name = initSegmentName, let initSegment = initSegments[name],
            let track = IFrameRange.videoTrack(inInitSegment: initSegment)
        else { return nil }
        return IFrameRange.locate(in: bytes, track: track)
    }

    /// Starts a new run of the stream after an earlier one (a publisher that came back): the next
    /// segment follows an EXT-X-DISCONTINUITY, with an init segment of its own named after it, and
    /// an ended stream goes live again. Parts of an unfinished segment are dropped.
    public mutating func beginRun() {
        edge -= openParts.reduce(0) { $0 + $1.duration }
        openParts.removeAll()
        ended = false
        firstSequence = nextSequence
        nextIsDiscontinuity = nextSequence > startSequence
        if configuration.format.hasInitSegment {
            initSegmentName = .initSegment(continuing: nextSequence > 0 ? nextSequence : nil)
        }
    }

    /// The next segment does not follow the one before it (media the origin never got lies between):
    /// it comes after an EXT-X-DISCONTINUITY, and parts of an unfinished segment are dropped.
    public mutating func skipAhead() {
        edge -= openParts.reduce(0) { $0 + $1.duration }
        openParts.removeAll()
        nextIsDiscontinuity = nextSequence > startSequence
    }

    /// Takes up markers (a publisher's book, or what an origin's publisher listed) it does not
    /// have yet; they show with the next publication. The oldest go past ``DateRange/maxCount``.
    public mutating func keep(dateRanges given: [DateRange]) {
        if dateRanges.merge(given), dateRanges.count > DateRange.maxCount {
            dateRanges.removeFirst(dateRanges.count - DateRange.maxCount)
        }
    }

    /// Marks the stream as ended: EXT-X-ENDLIST follows the last segment.
    public mutating func end() -> Publication {
        ended = true
        return publication([.ended])
    }

    /// The bytes of a media file (init segment, segment or part) while it is downloadable.
    public func bytes(of name: MediaFileName) -> [UInt8]? {
        switch name {
        case .initSegment: return initSegments[name]
        case .segment(let sequence, _): return segments.first { $0.sequence == sequence && !$0.gap }?.bytes
        case .part(let sequence, let index, _): return part(sequence: sequence, index: index)?.bytes
        default: return nil
        }
    }

    func part(sequence: Int, index: Int) -> Part? {
        if sequence == nextSequence { return index < openParts.count ? openParts[index] : nil }
        guard let segment = segments.first(where: { $0.sequence == sequence }), index < segment.parts.count else {
            return nil
        }
        return segment.parts[index]
    }

    /// The part that comes next (EXT-X-PRELOAD-HINT): the first of the next segment once the open
    /// parts fill a segment (its last part is in; the segment is listed next), else the next of this one.
    public var nextPart: MediaFileName {
        let filled = openParts.reduce(0) { $0 + $1.duration }
        if let part = configuration.partDuration, !openParts.isEmpty, filled >= configuration.segmentDuration - part / 2
        {
            return .part(nextSequence + 1, 0, configuration.format)
        }
        return .part(nextSequence, openParts.count, configuration.format)
    }

    /// True once segment `msn` (or its part `part`) is in the playlist, or the stream has ended. A
    /// part past the last of a finished segment is the next segment's first (RFC 8216bis, 6.2.5.2):
    /// a player asking for it waits for that, not for nothing.
    public func lists(msn: Int, part: Int?) -> Bool {
        if ended { return true }
        if msn < nextSequence {
            guard let part, let count = segments.last(where: { $0.sequence == msn })?.parts.count, count > 0,
                part >= count
            else { return true }
            return lists(msn: msn + 1, part: 0)
        }
        guard let part else { return false }
        return msn == nextSequence && part < openParts.count
    }

    /// The bytes it holds: its segments and their parts, the open parts and the init segments.
    public var heldBytes: Int {
        segments.reduce(0) { $0 + $1.bytes.count + $1.parts.reduce(0) { $0 + $1.bytes.count } }
            + openParts.reduce(0) { $0 + $1.bytes.count } + initSegments.values.reduce(0) { $0 + $1.count }
    }

    /// The last listed segment's number (-1 before the first).
    public var lastSequence: Int { nextSequence - 1 }

    /// Bits per second of this run's segments, container included; 0 before the first.
    public var measuredBitrate: Int { totalDuration > 0 ? Int(Double(totalBytes * 8) / totalDuration) : 0 }

    private func publication(_ events: [Publication.Event]) -> Publication {
        Publication(events: events, timeline: self)
    }

    /// Slides the window: segments beyond the playlist size leave it and stay downloadable for their
    /// duration plus the playlist's; part files go three target durations after their tags. Returns
    /// the files no longer downloadable.
    private mutating func retire() -> [MediaFileName] {
        let now = edge
        let listed = segments.filter(\.isListed)
        if listed.count > configuration.playlistSize {
            let window = listed.suffix(configuration.playlistSize)
            let playlistDuration = window.reduce(0) { $0 + $1.duration }
            let leaving = listed.dropLast(configuration.playlistSize)
            let leavingNumbers = Set(leaving.map(\.sequence))
            discontinuitySequence += leaving.filter(\.discontinuity).count
            for index in segments.indices where leavingNumbers.contains(segments[index].sequence) {
                // RFC 8216 6.2.2: available for its duration plus the longest playlist that held it.
                segments[index].expiresAt = now + segments[index].duration + playlistDuration
            }
        }
        // Part tags leave three target durations from the edge; their files stay three more.
        let target = Double(configuration.targetDuration)
        var expired: [MediaFileName] = []
        for index in segments.indices where segments[index].end < now - 6 * target && !segments[index].parts.isEmpty {
            expired += segments[index].parts.map(\.name)
            segments[index].parts.removeAll()
        }
        let gone = segments.filter { ($0.expiresAt ?? .infinity) <= now }
        expired += gone.flatMap { $0.parts.map(\.name) + [$0.name] }
        segments.removeAll { ($0.expiresAt ?? .infinity) <= now }
        // An earlier run's init segment goes with the last of its segments.
        let used = Set(segments.compactMap(\.initSegment) + (initSegmentName.map { [$0] } ?? []))
        for name in initSegments.keys.sorted() where !used.contains(name) {
            initSegments[name] = nil
            expired.append(name)
        }
        return expired
    }
}

/// What one change of a rendition's timeline published: the events, in the order a destination must
/// apply them (a file before any playlist naming it), and the timeline after the change.
public struct Publication: Sendable {
    public enum Event: Sendable, Equatable {
        case initSegment(MediaFileName)
        /// A Low-Latency HLS part, listed at once.
        case part(MediaFileName)
        case segment(MediaFileName)
        /// Files that are no longer downloadable: a destination may delete them.
        case expired([MediaFileName])
        /// The last segment is listed: the playlists carry EXT-X-ENDLIST.
        case ended
    }

    public var events: [Event]
    /// The rendition's timeline after the change, bytes included.
    public var timeline: Timeline
    /// The channel's renditions as they stood, when there are several: the rendition's files then
    /// go in a folder of its own, under the ladder's multivariant playlist.
    public var ladder: LadderView?

    public init(events: [Event], timeline: Timeline, ladder: LadderView? = nil) {
        self.events = events
        self.timeline = timeline
        self.ladder = ladder
    }

    public var channel: ChannelName { timeline.channel }
    public var rendition: String { timeline.rendition.id }

    /// One change made of several: `later`'s timeline, after this one's events and its own. A
    /// segment's last part and the segment's listing are published together, so no playlist shows
    /// the one without the other, and the same blocking reload gets the same answer from every
    /// server fed by one publisher.
    public func followed(by later: Publication) -> Publication {
        Publication(events: events + later.events, timeline: later.timeline, ladder: later.ladder)
    }
}
