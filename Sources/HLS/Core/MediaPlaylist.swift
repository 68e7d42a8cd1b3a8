import Media

/// A live media playlist as a value: what it lists, not how it is stored.
public struct MediaPlaylist: Sendable, Equatable {
    public struct Segment: Sendable, Equatable {
        public var uri: String
        public var duration: Double
        /// Wall time of the segment's first frame, milliseconds since 1970.
        public var programDateTime: Int64
        /// A change of format, tracks or timestamps before this segment.
        public var discontinuity: Bool

        public init(uri: String, duration: Double, programDateTime: Int64, discontinuity: Bool = false) {
            self.uri = uri
            self.duration = duration
            self.programDateTime = programDateTime
            self.discontinuity = discontinuity
        }
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

    public init(
        version: Int, targetDuration: Int, mediaSequence: Int = 0, discontinuitySequence: Int = 0,
        initSegmentURI: String? = nil, segments: [Segment] = [], ended: Bool = false
    ) {
        self.version = version
        self.targetDuration = targetDuration
        self.mediaSequence = mediaSequence
        self.discontinuitySequence = discontinuitySequence
        self.initSegmentURI = initSegmentURI
        self.segments = segments
        self.ended = ended
    }

    /// Total duration of the listed segments.
    public var duration: Double { segments.reduce(0) { $0 + $1.duration } }
}

extension MediaPlaylist {
    /// The m3u8 text.
    public func render() -> String {
        var lines = [
            "#EXTM3U",
            "#EXT-X-VERSION:\(version)",
            "#EXT-X-TARGETDURATION:\(targetDuration)",
            "#EXT-X-MEDIA-SEQUENCE:\(mediaSequence)",
            "#EXT-X-DISCONTINUITY-SEQUENCE:\(discontinuitySequence)",
            "#EXT-X-INDEPENDENT-SEGMENTS",
        ]
        if let initSegmentURI {
            lines.append("#EXT-X-MAP:URI=\"\(initSegmentURI)\"")
        }
        for segment in segments {
            if segment.discontinuity {
                lines.append("#EXT-X-DISCONTINUITY")
            }
            lines.append("#EXT-X-PROGRAM-DATE-TIME:\(ProgramDateTime.format(milliseconds: segment.programDateTime))")
            lines.append("#EXTINF:\(Self.decimal(segment.duration)),")
            lines.append(segment.uri)
        }
        if ended {
            lines.append("#EXT-X-ENDLIST")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Three decimals, as EXTINF and FRAME-RATE are written.
    static func decimal(_ value: Double) -> String {
        String(fixed: value, decimals: 3)
    }
}
