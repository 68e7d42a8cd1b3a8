/// Adds a query to every URI a playlist names: the URI lines (segments, variants) and every
/// `URI="…"` attribute (EXT-X-MAP, EXT-X-PART, EXT-X-PRELOAD-HINT, EXT-X-RENDITION-REPORT,
/// EXT-X-MEDIA, …). A player that requests what the playlist lists then carries it, whatever it
/// was given first.
public enum PlaylistQuery {
    /// `playlist` with `query` (`key=value`, already percent-encoded) added to each URI, after `&`
    /// when the URI has a query already.
    public static func appending(_ query: String, to playlist: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(playlist.count + 64 * 32)
        var lineStart = 0
        while lineStart < playlist.count {
            var lineEnd = lineStart
            while lineEnd < playlist.count, playlist[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            var contentEnd = lineEnd
            if contentEnd > lineStart, playlist[contentEnd - 1] == UInt8(ascii: "\r") { contentEnd -= 1 }
            let line = playlist[lineStart..<contentEnd]
            if line.first == UInt8(ascii: "#") {
                appendTag(line, query: query, to: &out)
            } else if line.contains(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) {
                out += line
                out += separator(for: line) + query.utf8
            } else {
                out += line
            }
            out += playlist[contentEnd..<min(lineEnd + 1, playlist.count)]
            lineStart = lineEnd + 1
        }
        return out
    }

    /// A tag line with the query added inside each quoted `URI` attribute value.
    private static func appendTag(_ line: ArraySlice<UInt8>, query: String, to out: inout [UInt8]) {
        let name = Array("URI=\"".utf8)
        var index = line.startIndex
        while index < line.endIndex {
            let before = index > line.startIndex ? line[index - 1] : 0
            let startsAttribute = before == UInt8(ascii: ":") || before == UInt8(ascii: ",")
            if startsAttribute, line[index...].starts(with: name) {
                let valueStart = index + name.count
                guard let close = line[valueStart...].firstIndex(of: UInt8(ascii: "\"")) else { break }
                out += line[index..<close]
                if close > valueStart { out += separator(for: line[valueStart..<close]) + query.utf8 }
                index = close
            } else if line[index] == UInt8(ascii: "\"") {
                // Another quoted value: copied whole, so a URI= inside it is not taken for an attribute.
                let close = line[(index + 1)...].firstIndex(of: UInt8(ascii: "\"")) ?? line.endIndex - 1
                out += line[index...close]
                index = close + 1
                continue
            }
            guard index < line.endIndex else { break }
            out.append(line[index])
            index += 1
        }
    }

    private static func separator(for uri: ArraySlice<UInt8>) -> [UInt8] {
        uri.contains(UInt8(ascii: "?")) ? [UInt8(ascii: "&")] : [UInt8(ascii: "?")]
    }
}
