import Runtime

/// A live media playlist as a value: what it lists, not how it is stored.
public struct MediaPlaylist: Sendable, Equatable {
    public struct Segment: Sendable, Equatable {
        public var uri: String
        public var duration: Double
        /// Wall time of the segment's first frame, milliseconds since 1970.
        public var programDateTime: Int64
        /// A change of format, tracks or timestamps before this segment.
        public var discontinuity: Bool
        /// Its init segment (EXT-X-MAP), when it differs from the playlist's: after a restart.
        public var map: String?
        /// Its Low-Latency HLS parts, listed while it is near the live edge.
        public var parts: [Part]
        /// Missing where the playlist is (a destination it could not be sent to in time): EXT-X-GAP,
        /// so players skip it instead of stalling on it.
        public var gap: Bool
        /// Its first keyframe, for the I-frame playlist (fMP4 video only).
        public var iFrame: IFrameRange?

        public init(
            uri: String, duration: Double, programDateTime: Int64, discontinuity: Bool = false, map: String? = nil,
            parts: [Part] = [], gap: Bool = false, iFrame: IFrameRange? = nil
        ) {
            self.iFrame = iFrame
            self.uri = uri
            self.duration = duration
            self.programDateTime = programDateTime
            self.discontinuity = discontinuity
            self.map = map
            self.parts = parts
            self.gap = gap
        }
    }

    /// A Low-Latency HLS part: a fragment of a segment, downloadable as soon as it is complete.
    public struct Part: Sendable, Equatable {
        public var uri: String
        public var duration: Double
        /// Starts with an IDR: a player may begin here.
        public var independent: Bool

        public init(uri: String, duration: Double, independent: Bool) {
            self.uri = uri
            self.duration = duration
            self.independent = independent
        }
    }

    /// What a Low-Latency HLS playlist adds: the part target, the parts of the segment being
    /// built, the next part's name, the server's promises and, in a delta update, what it skips.
    public struct LowLatency: Sendable, Equatable {
        public var partTarget: Double
        /// The parts of the segment after the last listed one, complete so far.
        public var openParts: [Part]
        /// The part that will come next (EXT-X-PRELOAD-HINT).
        public var preloadHint: String?
        /// EXT-X-SERVER-CONTROL:CAN-SKIP-UNTIL, when delta updates are offered.
        public var canSkipUntil: Double?
        /// Segments left out at the head of a delta update (EXT-X-SKIP).
        public var skippedSegments: Int
        /// A delta update that leaves out the date ranges of the skipped segments (`_HLS_skip=v2`):
        /// EXT-X-SKIP then says which were removed from the playlist lately.
        public var skipsDateRanges = false
        /// The open parts start a segment after a discontinuity (the first one after a restart).
        public var openDiscontinuity: Bool
        /// The open parts' init segment, when it differs from the last listed segment's.
        public var openMap: String?
        /// Where the channel's other renditions are (EXT-X-RENDITION-REPORT), so a player switching
        /// to one asks for its next part at once.
        public var renditionReports: [RenditionReport]

        public init(
            partTarget: Double, openParts: [Part] = [], preloadHint: String? = nil, canSkipUntil: Double? = nil,
            skippedSegments: Int = 0, openDiscontinuity: Bool = false, openMap: String? = nil,
            renditionReports: [RenditionReport] = []
        ) {
            self.renditionReports = renditionReports
            self.partTarget = partTarget
            self.openParts = openParts
            self.preloadHint = preloadHint
            self.canSkipUntil = canSkipUntil
            self.skippedSegments = skippedSegments
            self.openDiscontinuity = openDiscontinuity
            self.openMap = openMap
        }

        /// PART-HOLD-BACK: three part targets, the least Apple allows.
        public var partHoldBack: Double { 3 * partTarget }
    }

    public var version: Int
    public var targetDuration: Int
    /// The sequence number of the first listed segment.
    public var mediaSequence: Int
    /// How many discontinuities have left the head of the playlist.
    public var discontinuitySequence: Int
    public var initSegmentURI: String?
    public var segments: [Segment]
    /// True once the last segment is listed (EXT-X-ENDLIST).
    public var ended: Bool
    public var lowLatency: LowLatency?
    /// EXT-X-PLAYLIST-TYPE: a recording only ever grows (`EVENT`) until it is whole (`VOD`); nil for
    /// a live playlist, whose head slides.
    public var playlistType: PlaylistType?
    /// An I-frame playlist (EXT-X-I-FRAMES-ONLY): each entry is its segment's first keyframe,
    /// listed by its byte range, lasting until the next one.
    public var iFramesOnly = false
    /// The channel's markers whose segments are listed, oldest first (EXT-X-DATERANGE).
    public var dateRanges: [DateRange] = []
    /// Markers that left the playlist lately, for a delta update that skips date ranges
    /// (EXT-X-SKIP:RECENTLY-REMOVED-DATERANGES).
    public var recentlyRemovedDateRanges: [String] = []

    public enum PlaylistType: String, Sendable, Equatable {
        case event = "EVENT"
        case vod = "VOD"
    }

    public init(
        version: Int, targetDuration: Int, mediaSequence: Int = 0, discontinuitySequence: Int = 0,
        initSegmentURI: String? = nil, segments: [Segment] = [], ended: Bool = false, lowLatency: LowLatency? = nil
    ) {
        self.version = version
        self.targetDuration = targetDuration
        self.mediaSequence = mediaSequence
        self.discontinuitySequence = discontinuitySequence
        self.initSegmentURI = initSegmentURI
        self.segments = segments
        self.ended = ended
        self.lowLatency = lowLatency
    }

    /// Another rendition's live edge: its playlist, newest segment and part.
    public struct RenditionReport: Sendable, Equatable {
        public var uri: String
        public var lastMSN: Int
        public var lastPart: Int?

        public init(uri: String, lastMSN: Int, lastPart: Int?) {
            self.uri = uri
            self.lastMSN = lastMSN
            self.lastPart = lastPart
        }
    }

    /// Total duration of the listed segments.
    public var duration: Double { segments.reduce(0) { $0 + $1.duration } }
}

extension MediaPlaylist {
    /// The m3u8 text.
    public func render() -> String {
        let skipped = lowLatency?.skippedSegments ?? 0
        let listed = segments.dropFirst(skipped)
        // EXT-X-SKIP needs version 9, EXT-X-GAP version 8.
        var needed = version
        if skipped > 0 { needed = max(needed, 9) }
        if listed.contains(where: \.gap) { needed = max(needed, 8) }
        var text = ""
        var map = listed.first?.map ?? initSegmentURI
        appendHeader(to: &text, version: needed, map: map)
        var markers = dateRanges[...]
        if skipped > 0 {
            var skip = "#EXT-X-SKIP:SKIPPED-SEGMENTS=\(skipped)"
            if lowLatency?.skipsDateRanges == true {
                // The client has the skipped segments' date ranges already (RFC 8216bis 6.2.5.1).
                let boundary = listed.first?.programDateTime ?? .max
                markers = markers.drop { $0.start < boundary }
                skip += ",RECENTLY-REMOVED-DATERANGES=\"\(recentlyRemovedDateRanges.joined(separator: "\t"))\""
            }
            text.appendLine(skip)
        }
        for segment in listed {
            Self.append(segment, iFramesOnly: iFramesOnly, map: &map, markers: &markers, to: &text)
        }
        appendTrailer(to: &text, markers: markers, map: map)
        return text
    }

    /// The tags above the segments: version `needed` (which the segments may raise above
    /// ``version``) and the first segment's init segment, `map`.
    func appendHeader(to text: inout String, version needed: Int, map: String?) {
        text.appendLine("#EXTM3U")
        text.appendLine("#EXT-X-VERSION:\(needed)")
        text.appendLine("#EXT-X-TARGETDURATION:\(targetDuration)")
        if let playlistType { text.appendLine("#EXT-X-PLAYLIST-TYPE:\(playlistType.rawValue)") }
        if iFramesOnly { text.appendLine("#EXT-X-I-FRAMES-ONLY") }
        if let lowLatency {
            var control = ["CAN-BLOCK-RELOAD=YES"]
            if let canSkipUntil = lowLatency.canSkipUntil {
                control.append("CAN-SKIP-UNTIL=\(Self.decimal(canSkipUntil))")
                control.append("CAN-SKIP-DATERANGES=YES")
            }
            control.append("HOLD-BACK=\(Self.decimal(Double(3 * targetDuration)))")
            control.append("PART-HOLD-BACK=\(Self.decimal(lowLatency.partHoldBack))")
            text.appendLine("#EXT-X-SERVER-CONTROL:" + control.joined(separator: ","))
            text.appendLine("#EXT-X-PART-INF:PART-TARGET=\(Self.decimal(lowLatency.partTarget))")
        }
        text.appendLine("#EXT-X-MEDIA-SEQUENCE:\(mediaSequence)")
        text.appendLine("#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)")
        text.appendLine("#EXT-X-INDEPENDENT-SEGMENTS")
        if let map { text.appendLine("#EXT-X-MAP:URI=\"\(map)\"") }
    }

    /// One segment's lines, after the markers that start before it ends; `map`: the init segment
    /// in use, which it may change.
    static func append(
        _ segment: Segment, iFramesOnly: Bool, map: inout String?, markers: inout ArraySlice<DateRange>,
        to text: inout String
    ) {
        // A marker goes before the segment it starts in.
        let end = segment.programDateTime + Int64((segment.duration * 1000).rounded())
        while let marker = markers.first, marker.start < end {
            text.appendLine(marker.tag)
            markers = markers.dropFirst()
        }
        if segment.discontinuity { text.appendLine("#EXT-X-DISCONTINUITY") }
        if let segmentMap = segment.map, segmentMap != map {
            text.appendLine("#EXT-X-MAP:URI=\"\(segmentMap)\"")
            map = segmentMap
        }
        text.appendLine("#EXT-X-PROGRAM-DATE-TIME:\(ProgramDateTime.format(milliseconds: segment.programDateTime))")
        for part in segment.parts { text.appendLine(partTag(part)) }
        if segment.gap { text.appendLine("#EXT-X-GAP") }
        text.appendLine("#EXTINF:\(decimal(segment.duration)),")
        if iFramesOnly, let iFrame = segment.iFrame { text.appendLine("#EXT-X-BYTERANGE:\(iFrame.byteRange)") }
        text.appendLine(segment.uri)
    }

    /// What follows the segments: the markers left (in the segment being built: listed at once,
    /// before its parts), the Low-Latency tags, EXT-X-ENDLIST.
    func appendTrailer(to text: inout String, markers: ArraySlice<DateRange>, map: String?) {
        for marker in markers { text.appendLine(marker.tag) }
        if let lowLatency {
            if !lowLatency.openParts.isEmpty {
                if lowLatency.openDiscontinuity { text.appendLine("#EXT-X-DISCONTINUITY") }
                if let openMap = lowLatency.openMap, openMap != map { text.appendLine("#EXT-X-MAP:URI=\"\(openMap)\"") }
            }
            for part in lowLatency.openParts { text.appendLine(Self.partTag(part)) }
            if let hint = lowLatency.preloadHint, !ended {
                text.appendLine("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"\(hint)\"")
            }
            if !ended {
                for report in lowLatency.renditionReports {
                    text.appendLine(
                        "#EXT-X-RENDITION-REPORT:URI=\"\(report.uri)\",LAST-MSN=\(report.lastMSN)"
                            + (report.lastPart.map { ",LAST-PART=\($0)" } ?? ""))
                }
            }
        }
        if ended { text.appendLine("#EXT-X-ENDLIST") }
    }

    private static func partTag(_ part: Part) -> String {
        "#EXT-X-PART:DURATION=\(decimal(part.duration)),URI=\"\(part.uri)\""
            + (part.independent ? ",INDEPENDENT=YES" : "")
    }

    /// The I-frame playlist of this one (`iframes.m3u8` beside `media.m3u8`): each segment's first
    /// keyframe by its byte range, lasting until the next segment's, numbered as its segment is; no
    /// parts (a player scrubs or fast-forwards with it, it does not play at the edge). A segment
    /// with no keyframe found is listed as a gap (EXT-X-GAP), which keeps the numbers matched.
    public func iFramePlaylist() -> MediaPlaylist {
        var playlist = self
        playlist.lowLatency = nil
        playlist.iFramesOnly = true
        for index in playlist.segments.indices {
            playlist.segments[index].parts = []
            if playlist.segments[index].iFrame == nil { playlist.segments[index].gap = true }
        }
        return playlist
    }

    /// Three decimals, as EXTINF and FRAME-RATE are written.
    static func decimal(_ value: Double) -> String {
        String(fixed: value, decimals: 3)
    }
}

extension String {
    /// Appends `line` and its newline.
    mutating func appendLine(_ line: String) {
        append(line)
        append("\n")
    }
}
