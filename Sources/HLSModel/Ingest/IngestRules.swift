/// The bounds every number and attribute a publisher pushes must keep, checked where a pushed
/// playlist enters an origin, so that what the origin serves always obeys the HLS rules and no
/// arithmetic on it can overflow. A push outside them is refused with the rule it broke (HTTP 400).
public enum IngestRules {
    /// EXT-X-TARGETDURATION, in seconds.
    public static let targetDurations = 1...60
    /// The shortest EXTINF of a segment with media: 10 ms (a frame at 100 fps).
    public static let shortestSegment = 0.01
    /// How far a segment may run past EXT-X-TARGETDURATION, not reached (Apple: 0.5 s): as served
    /// (three decimals), its EXTINF rounds to the target duration at most, as HLS requires.
    public static let overrun = 0.5
    /// Segments one pushed media playlist may list: a live window, not a recording.
    public static let listedSegments = 1000
    /// Parts one segment may list.
    public static let partsPerSegment = 600
    /// BANDWIDTH and AVERAGE-BANDWIDTH, bits per second.
    public static let bandwidths = 1...1_000_000_000
    /// Each side of a RESOLUTION.
    public static let sides = 1...16_384
    /// FRAME-RATE.
    public static let frameRates = 0.0...1000.0
    /// An audio rendition's CHANNELS.
    public static let audioChannels = 1...32
    /// Codec strings (RFC 6381): `avc1.64001f`, `mp4a.40.2`, `ec-3`; at most 8 of them.
    public static let codecCount = 8
    /// A publisher's segment and discontinuity numbers, its playlist's last included: below 2^49.
    /// Every number served stays below 2^50 (``LiveRequest/maximumNumber``); the other half is the
    /// origin's own, for the numbers it goes on under when a publisher restarts from 0 and for the
    /// discontinuities it adds between runs.
    public static let publisherNumbers = 0..<(1 << 49)
    /// EXT-X-PROGRAM-DATE-TIME, milliseconds since 1970: up to 9000-01-01, so that the times the
    /// origin makes after one (segments that follow it unstamped) keep four-digit years.
    public static let programDateTimes: ClosedRange<Int64> = 0...221_845_392_000_000

    /// Checks a pushed media playlist.
    public static func check(_ playlist: MediaPlaylist) throws(IngestAssembler.Refusal) {
        let target = playlist.targetDuration
        guard targetDurations.contains(target) else {
            throw .badRequest(
                "media.m3u8: EXT-X-TARGETDURATION \(target) is out of range (\(targetDurations.lowerBound)"
                    + "-\(targetDurations.upperBound) s)")
        }
        let discontinuities = playlist.segments.filter(\.discontinuity).count
        guard publisherNumbers.contains(playlist.mediaSequence + playlist.segments.count),
            publisherNumbers.contains(playlist.discontinuitySequence + discontinuities)
        else {
            throw .badRequest(
                "media.m3u8: EXT-X-MEDIA-SEQUENCE or EXT-X-DISCONTINUITY-SEQUENCE runs past 2^49 "
                    + "(\(publisherNumbers.upperBound)); a publisher's numbers stay below it")
        }
        guard playlist.segments.count <= listedSegments else {
            throw .badRequest(
                "media.m3u8 lists \(playlist.segments.count) segments; an origin takes at most \(listedSegments) "
                    + "(a live window: ffmpeg's -hls_list_size)")
        }
        // In milliseconds, as the origin writes EXTINF: 2.4996 is served as 2.500, which rounds to 3.
        let longest = (Double(target) + overrun) * 1000
        for segment in playlist.segments {
            guard programDateTimes.contains(segment.programDateTime) else {
                throw .badRequest(
                    "media.m3u8: the EXT-X-PROGRAM-DATE-TIME of \(segment.uri) is out of range (1970 to 9000)")
            }
            let shortest = segment.gap ? 0 : shortestSegment
            guard segment.duration >= shortest, (segment.duration * 1000).rounded() < longest else {
                throw .badRequest(
                    "media.m3u8: #EXTINF:\(MediaPlaylist.decimal(segment.duration)) of \(segment.uri) is out of "
                        + "range (\(MediaPlaylist.decimal(shortestSegment)) s to under EXT-X-TARGETDURATION + "
                        + "\(MediaPlaylist.decimal(overrun)) s)")
            }
        }
        try checkListedOnce(playlist)
        guard let lowLatency = playlist.lowLatency else { return }
        guard lowLatency.partTarget >= shortestSegment, lowLatency.partTarget <= Double(target) else {
            throw .badRequest("media.m3u8: PART-TARGET must be above 10 ms and at most EXT-X-TARGETDURATION")
        }
        for parts in playlist.segments.map(\.parts) + [lowLatency.openParts] {
            guard parts.count <= partsPerSegment else {
                throw .badRequest("media.m3u8 lists more than \(partsPerSegment) parts in one segment")
            }
            // HLS: every part's duration is at most PART-TARGET (as written, to the millisecond).
            for part in parts where part.duration <= 0 || part.duration > lowLatency.partTarget + 0.001 {
                throw .badRequest(
                    "media.m3u8: the part \(part.uri) lasts \(MediaPlaylist.decimal(part.duration)) s; "
                        + "a part lasts more than 0 and at most PART-TARGET")
            }
        }
    }

    /// Every segment and part is listed once: a segment is built from the files its publisher sent,
    /// so a part listed twice would make the origin hold (and serve) its bytes twice, and one listed
    /// 600 times, 600 copies of what was pushed once.
    static func checkListedOnce(_ playlist: MediaPlaylist) throws(IngestAssembler.Refusal) {
        var seen = Set<String>()
        let uris =
            playlist.segments.flatMap { [$0.uri] + $0.parts.map(\.uri) }
            + (playlist.lowLatency?.openParts.map(\.uri) ?? [])
        for uri in uris where !seen.insert(uri).inserted {
            throw .badRequest("media.m3u8 lists \(uri) twice; each segment and part is listed once")
        }
    }

    /// Checks a variant of a pushed multivariant playlist.
    public static func check(_ variant: MultivariantPlaylist.Variant) throws(IngestAssembler.Refusal) {
        let name = "index.m3u8: the variant \(variant.uri)"
        guard bandwidths.contains(variant.bandwidth) else {
            throw .badRequest("\(name) has BANDWIDTH \(variant.bandwidth), out of range (1 to 10^9)")
        }
        guard (0...variant.bandwidth).contains(variant.averageBandwidth) else {
            throw .badRequest("\(name) has AVERAGE-BANDWIDTH \(variant.averageBandwidth), above its BANDWIDTH")
        }
        guard
            variant.width == 0 && variant.height == 0 || sides.contains(variant.width) && sides.contains(variant.height)
        else {
            throw .badRequest("\(name) has RESOLUTION \(variant.width)x\(variant.height), out of range (1 to 16384)")
        }
        guard frameRates.contains(variant.frameRate) else {
            throw .badRequest("\(name) has FRAME-RATE out of range (0 to 1000)")
        }
        try check(codecs: variant.codecs, in: name)
    }

    /// Checks every variant and audio rendition of a pushed multivariant playlist.
    public static func check(_ playlist: MultivariantPlaylist) throws(IngestAssembler.Refusal) {
        for variant in playlist.variants { try check(variant) }
        for audio in playlist.audio { try check(audio) }
        for subtitles in playlist.subtitles {
            if let problem = Rendition.Captions(language: subtitles.language, name: subtitles.name).problem {
                throw .badRequest("index.m3u8: \(problem)")
            }
        }
    }

    /// Checks an audio rendition (EXT-X-MEDIA) of a pushed multivariant playlist.
    public static func check(_ audio: MultivariantPlaylist.Audio) throws(IngestAssembler.Refusal) {
        if let channels = audio.channels, !audioChannels.contains(channels) {
            throw .badRequest("index.m3u8: the audio rendition \(audio.uri) has CHANNELS \(channels) (1 to 32)")
        }
    }

    /// RFC 6381 codec strings: letters, digits, `.` and `-`, at most 64 characters each.
    static func check(codecs: [String], in name: String) throws(IngestAssembler.Refusal) {
        guard codecs.count <= codecCount else { throw .badRequest("\(name) lists more than \(codecCount) codecs") }
        for codec in codecs {
            let allowed = codec.utf8.allSatisfy { byte in
                (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
            }
            guard allowed, !codec.isEmpty, codec.utf8.count <= 64 else {
                throw .badRequest(
                    "\(name) has a CODECS entry that is not a codec string (RFC 6381): letters, digits, . and -")
            }
        }
    }
}
