/// The rewind window of one rendition (`--dvr DURATION`), without the disk: the segments of the
/// last DURATION as a media playlist, and which files may be deleted.
///
/// It is a playlist of its own (`dvr-media.m3u8`) next to the live one, not a longer live playlist:
/// with Low-Latency HLS the live playlist is rendered and sent again for every part, five times a
/// second to every player, and two hours of segments would make each of those sends 3,600 lines.
/// The window changes once per segment and lists whole segments only.
///
/// It lists segments under their live names and numbers (`seg<N>`, EXT-X-MEDIA-SEQUENCE as live),
/// so a player moves between the live playlist and the window as between two variants. A number
/// that could not be kept (the sink fell behind the live timeline, a write failed) is listed as
/// an EXT-X-GAP, which keeps the numbers matched. The head slides like a live playlist's: no
/// EXT-X-PLAYLIST-TYPE, and a segment's file stays on disk `grace` seconds of media after it left.
public struct DVRWindow: Sendable, Equatable {
    /// How much media it keeps listed, in seconds.
    public let seconds: Double
    /// Seconds of media a segment's file stays after it left the playlist (HLS: its duration plus
    /// the longest playlist that held it, counted from when it was listed).
    public let grace: Double
    /// What it lists, the segments that left it included until the next compaction: each
    /// segment costs the same whatever the window's length (a week of 1 s segments is 600,000).
    /// Its room is kept to what it lists and the next compaction's slack, so that a full window
    /// does not grow to twice its list in a window's time.
    private var stored: MediaPlaylist
    /// How many of `stored`'s first segments have left the window.
    private var left = 0
    /// Gaps among the segments listed now: EXT-X-GAP needs version 8.
    private var listedGaps = 0
    /// The version without gaps; EXT-X-GAP needs 8.
    private let version: Int
    /// The live number of the newest listed segment.
    public private(set) var lastSequence: Int?
    /// Files that left the playlist, with the media time at which they did.
    private var leaving: [Leaving] = []
    /// Media seconds listed so far, head included and removed: the window's clock.
    private var clock = 0.0
    /// Media seconds listed now.
    private var listedSeconds = 0.0

    private struct Leaving: Sendable, Equatable {
        var file: String
        var leftAt: Double
    }

    /// `discontinuitySequence`: the live playlist's when the window's first segment is its head.
    public init(seconds: Double, version: Int, targetDuration: Int, discontinuitySequence: Int = 0) {
        self.seconds = seconds
        grace = 3 * Double(targetDuration)
        self.version = version
        stored = MediaPlaylist(
            version: version, targetDuration: targetDuration, discontinuitySequence: discontinuitySequence)
    }

    /// Whether it ended (EXT-X-ENDLIST), without making its playlist.
    public var isEnded: Bool { stored.ended }

    /// Whether it lists nothing, without making its playlist.
    public var isEmpty: Bool { left == stored.segments.count }

    /// Segments it holds, those that left it and are not let go of yet included, and the room its
    /// list has: what its memory is in proportion to.
    public var held: (segments: Int, room: Int) { (stored.segments.count, stored.segments.capacity) }

    /// Segments that may have left before they are let go of: an eighth of what is listed, at
    /// least 16 but never more than is listed (a window emptied by a jump lets go at once), so each
    /// listed segment is copied at most eight times while it is listed.
    public static func slack(listing listed: Int) -> Int { min(listed, max(16, listed / 8)) }

    /// The window's playlist as it stands (`dvr-media.m3u8`): made anew on each call, so read once.
    public var playlist: MediaPlaylist {
        var playlist = stored.dropping(first: left)
        playlist.version = listedGaps > 0 ? max(version, 8) : version
        return playlist
    }

    /// One segment as the live timeline listed it: `file` nil when it is not on disk (listed as a
    /// gap), `iFrame` where its first keyframe lies in it. Segments of numbers between the last one
    /// and this are listed as gaps of `missingDuration`. Returns the files that may now be deleted. Linear in what arrives: the gaps of a jump are
    /// listed at once, and the head trimmed once.
    public mutating func append(
        sequence: Int, file: String?, duration: Double, programDateTime: Int64, discontinuity: Bool, map: String?,
        format: ContainerFormat, missingDuration: Double, iFrame: IFrameRange? = nil
    ) -> [String] {
        var arriving: [MediaPlaylist.Segment] = []
        if let last = lastSequence {
            guard sequence > last else { return [] }
            // Gaps past what the window holds would only slide out again, and a publisher may jump
            // its numbers by up to 2^50: a hole longer than the window empties it, and only its
            // last `room` numbers are listed.
            let room = min(Int((seconds / max(missingDuration, 0.001)).rounded(.up)) + 1, maximumEntries - 1)
            var first = last + 1
            if sequence - first > room {
                drop(stored.segments.count - left)
                first = sequence - room
                stored.mediaSequence = first
            }
            // Within a run the gaps are timed back from this segment. Across a publisher's restart
            // (a discontinuity) they go on from the newest listed one, and the wall clock jumps at
            // the new run's first segment, where the discontinuity is.
            let restartsAfter = discontinuity && left < stored.segments.count ? stored.segments.last : nil
            var wallTime =
                restartsAfter.map { $0.programDateTime + Int64(($0.duration * 1000).rounded()) }
                ?? programDateTime - Int64((Double(sequence - first) * missingDuration * 1000).rounded())
            arriving.reserveCapacity(sequence - first + 1)
            for missing in first..<sequence {
                arriving.append(
                    MediaPlaylist.Segment(
                        uri: MediaFileName.segment(missing, format).description, duration: missingDuration,
                        programDateTime: wallTime, gap: true))
                wallTime += Int64((missingDuration * 1000).rounded())
            }
        } else {
            stored.mediaSequence = sequence
            stored.initSegmentURI = map
        }
        let uri = file ?? MediaFileName.segment(sequence, format).description
        let newMap = map != nil && map != currentMap ? map : nil
        arriving.append(
            MediaPlaylist.Segment(
                uri: uri, duration: duration, programDateTime: programDateTime,
                discontinuity: discontinuity, map: newMap, gap: file == nil, iFrame: file == nil ? nil : iFrame))
        add(arriving)
        lastSequence = sequence
        // A hosted channel's timeline goes on when its publisher comes back: so does the window.
        stored.ended = false
        return expired()
    }

    /// The most segments it lists: two a target duration of its length. A publisher's segments
    /// are near their target duration; one whose segments are far shorter (0.01 s under a target
    /// of 1 s) gets a shorter window, not a playlist of hundreds of thousands of entries.
    public var maximumEntries: Int {
        Int((2 * seconds / Double(stored.targetDuration)).rounded(.up)) + 2
    }

    /// The window has ended: EXT-X-ENDLIST, until a segment follows (an origin's channel goes on in
    /// one timeline across its publisher's runs).
    public mutating func end() {
        stored.ended = true
    }

    /// The init segment the newest listed segment plays with.
    private var currentMap: String? {
        stored.segments.last { $0.map != nil }?.map ?? stored.initSegmentURI
    }

    /// Lists the arriving segments, then lets the head go while what follows it still fills the
    /// window (or the window lists more than it may).
    private mutating func add(_ arriving: [MediaPlaylist.Segment]) {
        stored.segments += arriving
        for segment in arriving {
            clock += segment.duration
            listedSeconds += segment.duration
            if segment.gap { listedGaps += 1 }
        }
        var count = 0
        while left + count < stored.segments.count,
            listedSeconds - stored.segments[left + count].duration >= seconds
                || stored.segments.count - left - count > maximumEntries
        {
            listedSeconds -= stored.segments[left + count].duration
            count += 1
        }
        drop(count)
    }

    /// Takes up the channel's markers it does not list yet, those of its segments only (a marker
    /// leaves with the segment it starts in). True when it lists more.
    public mutating func keep(dateRanges given: [DateRange]) -> Bool {
        let first = left < stored.segments.count ? stored.segments[left].programDateTime : .max
        return stored.dateRanges.merge(given) { $0.start >= first }
    }

    /// Lets the first `count` listed segments go: their files leave now. What left is let go of
    /// once it is the slack of what is listed (``slack(listing:)``): the list is then copied, with
    /// room for what is listed and the next slack, so a full window's memory stays flat and the
    /// work stays in proportion to what arrives.
    private mutating func drop(_ count: Int) {
        guard count > 0 else { return }
        for head in stored.segments[left..<(left + count)] {
            if head.gap { listedGaps -= 1 } else { leaving.append(Leaving(file: head.uri, leftAt: clock)) }
        }
        left += count
        let listed = stored.segments.count - left
        if left >= Self.slack(listing: listed) {
            stored = stored.dropping(first: left)
            left = 0
            listedSeconds = stored.duration
            // The next compaction comes before the list outgrows this: a segment and a slack more.
            stored.segments.reserveCapacity(listed + Self.slack(listing: listed) + 1)
        }
    }

    /// The files whose grace has passed, taken off the list.
    private mutating func expired() -> [String] {
        let count = leaving.prefix { $0.leftAt + grace <= clock }.count
        defer { leaving.removeFirst(count) }
        return leaving.prefix(count).map(\.file)
    }
}

extension MediaPlaylist {
    /// The playlist as it stood at `wallTime` (ms since 1970): without the segments that end after
    /// it, and not ended when any was left out. It keeps at least `minimum` seconds from its head.
    public func ending(atWallTime wallTime: Int64, keeping minimum: Double) -> MediaPlaylist {
        var playlist = self
        var kept = duration
        while let last = playlist.segments.last,
            last.programDateTime + Int64((last.duration * 1000).rounded()) > wallTime,
            kept - last.duration >= minimum
        {
            playlist.segments.removeLast()
            kept -= last.duration
            playlist.ended = false
        }
        playlist.dateRanges.removeAll { $0.start > wallTime }
        return playlist
    }

    /// The playlist from segment `sequence` on (a player rewinding there starts at the first
    /// listed segment), but never holding less than `minimum` seconds (3 target durations: a
    /// shorter live playlist is refused by players), and whole when `sequence` has left it.
    /// The discontinuities and the init segment of the segments left out are carried over.
    /// One pass over the segments: a week's window of 1 s segments is 600,000 of them.
    public func starting(at sequence: Int, keeping minimum: Double) -> MediaPlaylist {
        var kept = duration
        var dropped = 0
        while dropped < segments.count, mediaSequence + dropped < sequence, kept - segments[dropped].duration >= minimum
        {
            kept -= segments[dropped].duration
            dropped += 1
        }
        return dropping(first: dropped)
    }

    /// The playlist without its first `count` segments: their discontinuities and the init
    /// segment in force carried over. One pass over the segments.
    public func dropping(first count: Int) -> MediaPlaylist {
        let dropped = min(count, segments.count)
        guard dropped > 0 else { return self }
        var playlist = self
        let leaving = segments[..<dropped]
        playlist.segments = Array(segments[dropped...])
        playlist.mediaSequence += dropped
        playlist.discontinuitySequence += leaving.filter(\.discontinuity).count
        // Markers leave with the segments they start in.
        if let first = playlist.segments.first { playlist.dateRanges.removeAll { $0.start < first.programDateTime } }
        // The init segment in force at the new first segment: the last one named from the second on.
        let named = segments.indices.dropFirst().prefix(dropped)
        if let map = named.last(where: { segments[$0].map != nil }).flatMap({ segments[$0].map }) {
            playlist.initSegmentURI = map
            if !playlist.segments.isEmpty { playlist.segments[0].map = nil }
        }
        return playlist
    }
}
