extension MediaPlaylist {
    /// Reads a media playlist as this program writes it, or a publisher pushes it to an origin:
    /// whole segments, and the Low-Latency HLS parts and preload hint when it has them, or an I-frame
    /// playlist's byte ranges. Delta
    /// updates are not read. Nil when the text is not such a playlist.
    public static func parse(_ text: String) -> MediaPlaylist? {
        let lines = text.split(whereSeparator: \.isNewline).map(String.init)
        guard lines.first == "#EXTM3U" else { return nil }
        var playlist = MediaPlaylist(version: 0, targetDuration: 0)
        var map: String?
        var pending = Segment(uri: "", duration: -1, programDateTime: 0)
        var lowLatency: LowLatency?
        for line in lines.dropFirst() {
            let (tag, value) = Self.split(line)
            switch tag {
            case "#EXT-X-VERSION": playlist.version = Int(value) ?? 0
            case "#EXT-X-TARGETDURATION": playlist.targetDuration = Int(value) ?? 0
            case "#EXT-X-MEDIA-SEQUENCE":
                // Far below Int.max, so counting on from it cannot overflow.
                guard let number = Int(value), (0..<(1 << 50)).contains(number) else { return nil }
                playlist.mediaSequence = number
            case "#EXT-X-DISCONTINUITY-SEQUENCE":
                guard let number = Int(value), (0..<(1 << 50)).contains(number) else { return nil }
                playlist.discontinuitySequence = number
            case "#EXT-X-MAP":
                guard value.hasPrefix("URI=\""), value.hasSuffix("\""), value.count > 6 else { return nil }
                map = String(value.dropFirst(5).dropLast())
                if playlist.initSegmentURI == nil { playlist.initSegmentURI = map }
            case "#EXT-X-DISCONTINUITY": pending.discontinuity = true
            case "#EXT-X-GAP": pending.gap = true
            case "#EXT-X-PROGRAM-DATE-TIME":
                guard let milliseconds = ProgramDateTime.parse(value) else { return nil }
                pending.programDateTime = milliseconds
            case "#EXTINF":
                // Seconds, as this program writes them: no exponents past a day, no infinities.
                guard let duration = Double(value.split(separator: ",").first ?? ""), duration >= 0, duration <= 86_400
                else { return nil }
                pending.duration = duration
            case "#EXT-X-ENDLIST": playlist.ended = true
            case "#EXT-X-PLAYLIST-TYPE":
                guard let type = PlaylistType(rawValue: value) else { return nil }
                playlist.playlistType = type
            case "#EXT-X-PART-INF":
                guard let target = Self.attributes(Substring(value))["PART-TARGET"].flatMap(Double.init),
                    target > 0, target <= 60
                else { return nil }
                lowLatency = LowLatency(partTarget: target)
            case "#EXT-X-PART":
                let attributes = Self.attributes(Substring(value))
                guard let uri = attributes["URI"], !uri.isEmpty,
                    let duration = attributes["DURATION"].flatMap(Double.init), duration >= 0, duration <= 60
                else { return nil }
                pending.parts.append(
                    Part(uri: uri, duration: duration, independent: attributes["INDEPENDENT"] == "YES"))
            case "#EXT-X-PRELOAD-HINT":
                lowLatency?.preloadHint = Self.attributes(Substring(value))["URI"]
            case "#EXT-X-SKIP": return nil
            case "#EXT-X-DATERANGE":
                // onair's markers are kept, whole and by the rules, or the playlist is not read;
                // date ranges of other kinds are not carried.
                guard Self.attributes(Substring(value))["CLASS"] == DateRange.chapterClass else { continue }
                guard let marker = DateRange.parse(Substring(value)) else { return nil }
                playlist.dateRanges.append(marker)
            case "#EXT-X-I-FRAMES-ONLY": playlist.iFramesOnly = true
            case "#EXT-X-BYTERANGE":
                // `<length>@<offset>`, as the I-frame playlists write it.
                let fields = value.split(separator: "@", omittingEmptySubsequences: false)
                guard fields.count == 2, let length = Int(fields[0]), let offset = Int(fields[1]), length > 0,
                    offset >= 0, length <= 1 << 40, offset <= 1 << 40
                else { return nil }
                pending.iFrame = IFrameRange(offset: offset, length: length)
            default:
                guard !line.hasPrefix("#"), !line.isEmpty else { continue }
                guard pending.duration >= 0 else { return nil }
                pending.uri = line
                pending.map = map
                playlist.segments.append(pending)
                pending = Segment(uri: "", duration: -1, programDateTime: 0)
            }
        }
        guard playlist.targetDuration > 0 else { return nil }
        if var lowLatency {
            // Parts after the last segment belong to the one being built.
            lowLatency.openParts = pending.parts
            lowLatency.openDiscontinuity = pending.discontinuity
            lowLatency.openMap = map
            playlist.lowLatency = lowLatency
        }
        return playlist
    }

    /// An attribute list (`NAME=value,NAME="quoted, value"`) by name; quotes removed.
    static func attributes(_ text: Substring) -> [String: String] {
        var result: [String: String] = [:]
        var rest = text[...]
        while !rest.isEmpty {
            guard let equals = rest.firstIndex(of: "=") else { break }
            let name = String(rest[..<equals])
            rest = rest[rest.index(after: equals)...]
            let value: Substring
            if rest.first == "\"" {
                let body = rest.dropFirst()
                guard let close = body.firstIndex(of: "\"") else { break }
                value = body[..<close]
                rest = body[body.index(after: close)...]
            } else {
                let end = rest.firstIndex(of: ",") ?? rest.endIndex
                value = rest[..<end]
                rest = rest[end...]
            }
            if rest.first == "," { rest = rest.dropFirst() }
            if result[name] == nil { result[name] = String(value) }
        }
        return result
    }

    private static func split(_ line: String) -> (tag: String, value: String) {
        guard line.hasPrefix("#"), let colon = line.firstIndex(of: ":") else { return (line, "") }
        return (String(line[..<colon]), String(line[line.index(after: colon)...]))
    }
}
