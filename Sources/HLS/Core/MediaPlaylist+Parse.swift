extension MediaPlaylist {
    /// Reads back a media playlist this program wrote to a folder (whole segments, no parts), to
    /// continue its numbering after a restart. Nil when the text is not such a playlist.
    public static func parse(_ text: String) -> MediaPlaylist? {
        let lines = text.split(whereSeparator: \.isNewline).map(String.init)
        guard lines.first == "#EXTM3U" else { return nil }
        var playlist = MediaPlaylist(version: 0, targetDuration: 0)
        var map: String?
        var pending = Segment(uri: "", duration: -1, programDateTime: 0)
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
        return playlist
    }

    private static func split(_ line: String) -> (tag: String, value: String) {
        guard line.hasPrefix("#"), let colon = line.firstIndex(of: ":") else { return (line, "") }
        return (String(line[..<colon]), String(line[line.index(after: colon)...]))
    }
}
