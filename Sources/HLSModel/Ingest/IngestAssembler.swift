import Runtime

/// Rebuilds a channel's timeline from what its publisher pushes to an origin (`PUT` of media files,
/// then of the playlist that lists them): each pushed playlist is read, and the segments and parts
/// it lists that the timeline does not have yet are taken into it, in order, as the packaging stage
/// would have added them. The timeline takes up the publisher's numbers (and with them the names,
/// and the discontinuity numbering), so that every origin fed by one publisher, one restarted empty
/// or one that joined late, serves the same playlists; a publisher that numbers from 0 again (ffmpeg
/// restarted) becomes a new run after an EXT-X-DISCONTINUITY under the timeline's own next numbers,
/// rather than a clash of names. Its publications feed the same live store as a local broadcast's.
///
/// Pure: no clock (the caller passes wall time), no I/O, no lock. Memory is bounded: pushed files
/// are held only until taken into the timeline or left behind by the publisher's playlist, and a
/// push beyond ``Limits`` is refused.
public struct IngestAssembler: Sendable {
    public struct Limits: Sendable, Equatable {
        /// Pushed files held at once (not yet listed by a playlist).
        public var files: Int
        /// Their bytes.
        public var bytes: Int

        public init(files: Int = 256, bytes: Int = 64 << 20) {
            self.files = files
            self.bytes = bytes
        }
    }

    /// Why a push is refused.
    public enum Refusal: RequestRefusal, Equatable {
        /// Not something an origin can take (HTTP 400).
        case badRequest(String)
        /// Beyond the channel's bounds (HTTP 507).
        case full(String)
        /// The stream changed shape under a running channel (HTTP 409).
        case conflict(String)
        /// The playlist's media is arriving but its init segment never came: sent to this server
        /// before it restarted. The publisher is to send what the playlist names again (HTTP 424).
        case missingFiles(String)

        public var description: String {
            switch self {
            case .badRequest(let reason), .full(let reason), .conflict(let reason), .missingFiles(let reason): reason
            }
        }

        public var status: Int {
            switch self {
            case .badRequest: 400
            case .full: 507
            case .conflict: 409
            case .missingFiles: 424
            }
        }
    }

    /// The publisher's run being followed: the init segment its newest media uses, the number (in
    /// the publisher's playlist) of the next segment to take, and how many of its parts are taken.
    struct Cursor: Equatable {
        var map: String?
        var next: Int
        var partsTaken: Int
    }

    public let channel: ChannelName
    /// Which of the channel's renditions this is: its folder in a ladder.
    public let renditionID: String
    public let playlistSize: Int
    public let limits: Limits
    /// Nil until the first playlist that lists media.
    public private(set) var timeline: Timeline?
    /// Pushed media files not yet taken into the timeline, by name.
    private(set) var files: [String: [UInt8]] = [:]
    public private(set) var heldBytes = 0
    var cursor: Cursor?
    /// The publisher's newest media playlist, read again when a file it lists arrives after it.
    private var newestPlaylist: MediaPlaylist?
    /// Wall milliseconds of the last playlist that moved the followed run on.
    private var lastAdvanced: Int64?
    /// What the publisher's multivariant playlist says of its stream.
    private(set) var variant: MultivariantPlaylist.Variant?
    private var audioChannels: Int?
    private var captions: Rendition.Captions?

    public init(
        channel: ChannelName, rendition: String = Rendition.singleID, playlistSize: Int = 6, limits: Limits = Limits()
    ) {
        self.channel = channel
        renditionID = rendition
        self.playlistSize = playlistSize
        self.limits = limits
    }

    /// Takes a pushed file: a media file is held until a playlist lists it; a media playlist moves
    /// the timeline on; the multivariant playlist describes the stream. Returns the publications
    /// to hand to the live store, in order.
    public mutating func put(_ name: MediaFileName, bytes: [UInt8], now: Int64) throws(Refusal) -> [Publication] {
        switch name {
        case .multivariantPlaylist:
            guard let playlist = MultivariantPlaylist.parse(String(decoding: bytes, as: UTF8.self)),
                let variant = playlist.variants.first
            else {
                throw .badRequest("index.m3u8 is not a multivariant playlist with an EXT-X-STREAM-INF")
            }
            try IngestRules.check(playlist)
            describe(variant)
            return []
        case .mediaPlaylist:
            guard let playlist = MediaPlaylist.parse(String(decoding: bytes, as: UTF8.self)) else {
                throw .badRequest("media.m3u8 is not a media playlist")
            }
            try IngestRules.check(playlist)
            let publications = try apply(playlist, now: now, forgetPassed: true)
            newestPlaylist = playlist
            return publications
        case .iFramePlaylist:
            // The origin lists the keyframes of the segments it holds itself, read from their boxes.
            return []
        case .dvrMultivariantPlaylist, .dvrMediaPlaylist, .dvrIFramePlaylist:
            throw .badRequest(
                "\(name) is made by the server that keeps the rewind window; a publisher does not send it")
        case .initSegment, .segment, .part:
            if name.format == .webVTT, !WebVTTFile.looksLikeOne(bytes) {
                throw .badRequest("\(name) is not a WebVTT file (UTF-8 that starts with WEBVTT)")
            }
            try hold(name.description, bytes)
            // A publisher that sends its playlist and its media at once (ffmpeg does) may list a file
            // before sending it: the newest playlist is read again when the file arrives.
            // It says nothing of what came after it (a returning publisher's new files): nothing is let go.
            guard let playlist = newestPlaylist else { return [] }
            return try apply(playlist, now: now, forgetPassed: false)
        }
    }

    /// Takes what the publisher's multivariant playlist says of this rendition (its size, frame rate,
    /// codecs and rate), for the origin's own multivariant playlist; `audioChannels` for the audio
    /// rendition of a ladder, `captions` for its subtitles.
    public mutating func describe(
        _ variant: MultivariantPlaylist.Variant, audioChannels: Int? = nil, captions: Rendition.Captions? = nil
    ) {
        self.variant = variant
        self.audioChannels = audioChannels
        self.captions = captions
        timeline?.configuration.rendition = Self.rendition(
            variant, id: renditionID, audioChannels: audioChannels, captions: captions)
    }

    /// Forgets a pushed file the publisher deleted, unless it is already in the timeline (which
    /// retires its own copies on its own schedule, for viewers still fetching them).
    public mutating func delete(_ name: MediaFileName) {
        if let old = files.removeValue(forKey: name.description) { heldBytes -= old.count }
    }

    /// Ends the stream (its publisher stopped without saying so): EXT-X-ENDLIST follows the last
    /// whole segment. Nil when there is nothing to end.
    public mutating func end() -> Publication? {
        guard var timeline, !timeline.ended else { return nil }
        let publication = timeline.end()
        self.timeline = timeline
        cursor = nil
        newestPlaylist = nil
        return publication
    }

    /// Lets go of every pushed file not yet listed: its publisher has gone silent.
    public mutating func dropHeld() {
        files.removeAll()
        heldBytes = 0
    }

    private mutating func hold(_ name: String, _ bytes: [UInt8]) throws(Refusal) {
        let old = files[name]?.count ?? 0
        guard files.count + (old > 0 ? 0 : 1) <= limits.files, heldBytes - old + bytes.count <= limits.bytes else {
            throw .full(
                "channel \(channel) holds \(files.count) unlisted files (\(heldBytes) bytes); push the playlist that lists them"
            )
        }
        files[name] = bytes
        heldBytes += bytes.count - old
    }

    private mutating func take(_ name: String) {
        if let old = files.removeValue(forKey: name) { heldBytes -= old.count }
    }

    private static func rendition(
        _ variant: MultivariantPlaylist.Variant?, id: String, audioChannels: Int?, captions: Rendition.Captions?
    ) -> Rendition {
        var rendition = Rendition(
            id: id, width: variant?.width ?? 0, height: variant?.height ?? 0,
            fps: Int((variant?.frameRate ?? 0).rounded()),
            videoBitrate: variant?.averageBandwidth ?? 0, audioBitrate: 0, codecs: variant?.codecs ?? [],
            audioChannels: audioChannels)
        rendition.captions = captions
        return rendition
    }

    /// The container of the media a playlist lists; nil when it lists none. Refuses a playlist that
    /// lists anything but the channel's own plain names, or mixes containers.
    private static func format(of playlist: MediaPlaylist) throws(Refusal) -> ContainerFormat? {
        let uris =
            playlist.segments.flatMap { [$0.uri] + $0.parts.map(\.uri) }
            + (playlist.lowLatency?.openParts.map(\.uri) ?? [])
        var formats = Set<ContainerFormat>()
        for uri in uris {
            switch MediaFileName(uri) {
            case .segment(_, let format), .part(_, _, let format): formats.insert(format)
            default: throw .badRequest("media.m3u8 lists \(uri), which is not a segment or part name of this server")
            }
        }
        for map in playlist.segments.compactMap(\.map) + [playlist.initSegmentURI].compactMap({ $0 }) {
            guard case .initSegment = MediaFileName(map) else {
                throw .badRequest("media.m3u8 maps \(map), which is not an init segment name of this server")
            }
        }
        guard formats.count <= 1 else { throw .badRequest("media.m3u8 mixes container formats") }
        return formats.first
    }

    private mutating func apply(_ playlist: MediaPlaylist, now: Int64, forgetPassed forgetting: Bool) throws(Refusal)
        -> [Publication]
    {
        guard let format = try Self.format(of: playlist) else { return [] }
        var timeline = try checkedTimeline(for: playlist, format: format)
        try Self.check(playlist.dateRanges, against: timeline.dateRanges)
        timeline.keep(dateRanges: playlist.dateRanges)
        // A stream with other settings after an ended one: followed from its start.
        if let before = self.timeline, before.ended, !timeline.ended { cursor = nil }
        var publications: [Publication] = []
        defer { self.timeline = timeline }
        let open = playlist.lowLatency?.openParts ?? []
        let openSequence = playlist.mediaSequence + playlist.segments.count
        let newestMap =
            open.isEmpty ? (playlist.segments.last?.map ?? playlist.initSegmentURI) : playlist.lowLatency?.openMap
        // A timeline that has ended is followed again only as a new run (a discontinuity, a new
        // recording, the channel live again), even when that run's first playlist already ends it.
        if cursor == nil || cursor?.map != newestMap || openSequence < cursor!.next || timeline.ended {
            guard
                let begun = try beginRun(
                    of: playlist, map: newestMap, now: now, forgetting: forgetting, timeline: &timeline)
            else { return [] }
            publications += begun
        }
        guard var cursor else { return publications }
        defer { self.cursor = cursor }
        if cursor.next < playlist.mediaSequence {
            // The publisher's playlist moved past segments this origin never got: what follows does
            // not follow on from what the origin has, and says so (EXT-X-DISCONTINUITY).
            cursor.next = playlist.mediaSequence
            cursor.partsTaken = 0
            timeline.skipAhead()
            Self.follow(playlist, from: cursor.next, map: nil, into: &timeline)
        }
        publications += takeSegments(of: playlist, cursor: &cursor, timeline: &timeline, now: now)
        if timeline.isLowLatency, cursor.next == openSequence {
            for part in open.dropFirst(cursor.partsTaken) {
                guard let bytes = files[part.uri] else { break }
                publications +=
                    timeline.appendPart(bytes, duration: part.duration, independent: part.independent)
                    .map { [$0] } ?? []
                take(part.uri)
                cursor.partsTaken += 1
            }
        }
        if playlist.ended, cursor.next == openSequence, !timeline.ended {
            publications.append(timeline.end())
        }
        if forgetting {
            forgetPassed(playlist, map: newestMap)
            lastAdvanced = now
        }
        return publications
    }

    /// The markers of a pushed playlist (each already read by the rules of ``DateRange``): at most
    /// as many as a channel keeps, each id once, and an id the channel has never changed.
    static func check(_ markers: [DateRange], against known: [DateRange]) throws(Refusal) {
        guard markers.count <= DateRange.maxCount else {
            throw .badRequest("media.m3u8 lists more than \(DateRange.maxCount) markers (EXT-X-DATERANGE)")
        }
        var seen = Set<String>()
        let had = Dictionary(known.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        for marker in markers {
            guard seen.insert(marker.id).inserted else {
                throw .badRequest("media.m3u8 lists the date range \(marker.id) twice")
            }
            if let earlier = had[marker.id], earlier != marker {
                throw .badRequest("the date range \(marker.id) changed (RFC 8216bis 4.4.5.1: its attributes stay)")
            }
        }
    }

    /// The channel's timeline, made from the first playlist; a playlist with other settings than
    /// the channel's (container, target duration, parts) is refused while it is live.
    private func checkedTimeline(for playlist: MediaPlaylist, format: ContainerFormat) throws(Refusal) -> Timeline {
        let configuration = Timeline.Configuration(
            channel: channel,
            rendition: Self.rendition(variant, id: renditionID, audioChannels: audioChannels, captions: captions),
            format: format,
            segmentDuration: Double(playlist.targetDuration), playlistSize: playlistSize,
            partDuration: playlist.lowLatency?.partTarget)
        var timeline = self.timeline ?? Timeline(configuration: configuration)
        let sameSettings =
            timeline.configuration.format == format
            && timeline.configuration.targetDuration == configuration.targetDuration
            && timeline.configuration.partDuration == configuration.partDuration
        if !sameSettings, timeline.ended {
            // The stream before has ended: the next may have other settings. It is a stream of its
            // own, under numbers that go on from the last one's, so no name is given other bytes.
            return timeline.renewed(with: configuration)
        }
        guard sameSettings else {
            throw .conflict(
                "channel \(channel) is live with other settings (container, target duration or parts); stop its publisher first"
            )
        }
        // The publisher's segment length (EXT-X-TARGETDURATION rounds it up): the longest it lists,
        // which tells when the open parts fill a segment.
        if let longest = playlist.segments.map(\.duration).max(), Int(longest.rounded(.up)) == playlist.targetDuration {
            timeline.configuration.segmentDuration = longest
        }
        return timeline
    }

    /// The first run, or a publisher that came back: follows the newest run from the first of its
    /// segments whose media is here (an origin that restarted has not seen the older ones), from
    /// its init segment `map`. Nil while there is nothing to follow yet; refused for a second
    /// publisher while the one followed still pushes, and for an init segment that never came.
    private mutating func beginRun(
        of playlist: MediaPlaylist, map newestMap: String?, now: Int64, forgetting: Bool, timeline: inout Timeline
    ) throws(Refusal) -> [Publication]? {
        let hold = Self.holdMilliseconds(targetDuration: timeline.configuration.targetDuration)
        if forgetting, cursor != nil, !timeline.ended, let last = lastAdvanced, now - last < hold {
            // Another run while the one followed still pushes: a second publisher on the channel.
            throw .conflict(
                "channel \(channel) is live from another publisher, which pushed "
                    + "\(String(fixed: Double(now - last) / 1000, decimals: 1)) s ago; a channel has one publisher "
                    + "at a time, and another takes over once it ends or is silent for \(hold / 1000) s")
        }
        let start = startOfNewestRun(playlist, map: newestMap)
        // Nothing the playlist names has come yet: the files may be on their way.
        let openPartHere = playlist.lowLatency?.openParts.contains { files[$0.uri] != nil } ?? false
        guard start != nil || openPartHere else { return nil }
        let initBytes = newestMap.flatMap { files[$0] }
        if timeline.configuration.format.hasInitSegment, initBytes == nil {
            // Media is here and the playlist says which init segment it needs, but that never came:
            // it went to this server before it restarted (a publisher sends it first). Asked for
            // again at once, not waited for: an open part is enough to know.
            if forgetting, let map = newestMap {
                throw .missingFiles(
                    "\(map) is not here (this server restarted?): send it, and the files the playlist names, again")
            }
            return nil
        }
        guard let start else { return nil }
        if !timeline.segments.isEmpty || !timeline.openParts.isEmpty || timeline.ended { timeline.beginRun() }
        Self.follow(playlist, from: start, map: newestMap, into: &timeline)
        var publications: [Publication] = []
        if let initBytes, let map = newestMap {
            publications += timeline.setInitSegment(initBytes).map { [$0] } ?? []
            take(map)
        }
        cursor = Cursor(map: newestMap, next: start, partsTaken: 0)
        return publications
    }

    /// The playlist's segments from the cursor on, while their media is here: each closed as the
    /// publisher made it (whole, from its parts, or a gap).
    private mutating func takeSegments(
        of playlist: MediaPlaylist, cursor: inout Cursor, timeline: inout Timeline, now: Int64
    ) -> [Publication] {
        var publications: [Publication] = []
        let openSequence = playlist.mediaSequence + playlist.segments.count
        segments: while cursor.next < openSequence {
            let segment = playlist.segments[cursor.next - playlist.mediaSequence]
            // A publisher that does not stamp its segments (ffmpeg by default): they follow each other.
            let following = timeline.nextIsDiscontinuity ? nil : timeline.segments.last
            let programDateTime =
                segment.programDateTime > 0
                ? segment.programDateTime
                : following.map { $0.programDateTime + Int64(($0.duration * 1000).rounded()) } ?? now
            if segment.gap {
                publications.append(timeline.closeGap(duration: segment.duration, programDateTime: programDateTime))
            } else if timeline.isLowLatency, !segment.parts.isEmpty || cursor.partsTaken > 0 {
                // The parts that complete the segment and its listing: one change, as the publisher
                // made it (whatever the pushes' timing, every origin answers alike).
                var closing: Publication?
                for part in segment.parts.dropFirst(cursor.partsTaken) {
                    guard let bytes = files[part.uri] else {
                        publications += closing.map { [$0] } ?? []
                        break segments
                    }
                    if let added = timeline.appendPart(bytes, duration: part.duration, independent: part.independent) {
                        closing = closing.map { $0.followed(by: added) } ?? added
                    }
                    cursor.partsTaken += 1
                }
                let listed = timeline.closeSegment(programDateTime: programDateTime, duration: segment.duration)
                publications.append(closing.map { $0.followed(by: listed) } ?? listed)
            } else {
                guard let bytes = files[segment.uri] else { break segments }
                publications.append(
                    timeline.closeWholeSegment(bytes, duration: segment.duration, programDateTime: programDateTime))
            }
            for name in [segment.uri] + segment.parts.map(\.uri) { take(name) }
            cursor.next += 1
            cursor.partsTaken = 0
        }
        return publications
    }

    /// Takes up the publisher's numbering from its segment `sequence` (see
    /// ``Timeline/followNumbering(at:discontinuitySequence:discontinuity:)``), with the discontinuity
    /// numbering its playlist gives that segment, and the name of its init segment `map`.
    private static func follow(
        _ playlist: MediaPlaylist, from sequence: Int, map: String?, into timeline: inout Timeline
    ) {
        let index = min(max(0, sequence - playlist.mediaSequence), playlist.segments.count)
        let before = playlist.segments[..<index].filter(\.discontinuity).count
        timeline.followNumbering(
            at: sequence, discontinuitySequence: playlist.discontinuitySequence + before,
            discontinuity: index < playlist.segments.count && playlist.segments[index].discontinuity,
            initSegment: map.flatMap(MediaFileName.init))
    }

    /// How long the run being followed holds the channel after its last playlist: two target
    /// durations, at least 4 s (a publisher that pushes every segment is late by one at most).
    public static func holdMilliseconds(targetDuration: Int) -> Int64 {
        Int64(max(2 * targetDuration, 4)) * 1000
    }

    /// The publisher's number of the first segment of its newest run from which every segment (or,
    /// in Low-Latency HLS, every part of the open one) is here; nil when there is none yet.
    private func startOfNewestRun(_ playlist: MediaPlaylist, map: String?) -> Int? {
        let segments = playlist.segments
        // The newest run begins after the last segment that uses another init segment.
        var first = segments.count
        while first > 0, (segments[first - 1].map ?? playlist.initSegmentURI) == map { first -= 1 }
        if playlist.lowLatency != nil, (playlist.lowLatency?.openMap ?? map) != map { first = segments.count }
        func here(_ segment: MediaPlaylist.Segment) -> Bool {
            segment.gap || files[segment.uri] != nil
                || (!segment.parts.isEmpty && segment.parts.allSatisfy { files[$0.uri] != nil })
        }
        var start = segments.count
        while start > first, here(segments[start - 1]) { start -= 1 }
        if start < segments.count { return playlist.mediaSequence + start }
        // No whole segment: the open one, when its first part is here.
        if let first = playlist.lowLatency?.openParts.first, files[first.uri] != nil {
            return playlist.mediaSequence + segments.count
        }
        return nil
    }

    /// Lets go of pushed files the publisher's playlist has left behind: segments and parts before
    /// its window, and init segments other than the newest run's.
    private mutating func forgetPassed(_ playlist: MediaPlaylist, map: String?) {
        for name in files.keys {
            switch MediaFileName(name) {
            case .segment(let sequence, _), .part(let sequence, _, _):
                if sequence < playlist.mediaSequence { take(name) }
            case .initSegment:
                if name != map, !playlist.segments.contains(where: { $0.map == name }) { take(name) }
            default: take(name)
            }
        }
    }
}
