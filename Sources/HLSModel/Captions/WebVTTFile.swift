/// A subtitle segment or part: a WebVTT file of the cues that overlap its time, with the
/// `X-TIMESTAMP-MAP` that places them on the media's timeline (RFC 8216bis 3.1.4). The cue times
/// are media time, which the video's own timestamps (its fMP4 `tfdt`, its TS `PTS`) count from the
/// same 0; `MPEGTS` is in 90 kHz ticks whatever clock the segments keep, so every file maps the
/// same moment: 1 s is 90,000 ticks. One map
/// for all (not each file's start) lets a player that offsets each file's cues by its map find the
/// same cue in two files the same to the bit, and show it once (hls.js compares them so).
///
/// Pure.
public enum WebVTTFile {
    /// The one timestamp map: media time 1 s (not 0, which some players take for "no map").
    public static let timestampMap = "X-TIMESTAMP-MAP=MPEGTS:90000,LOCAL:00:00:01.000"

    /// The file of `cues`: the header with the timestamp map, then each cue, with the characters
    /// WebVTT gives a meaning to (`&` not starting an entity, `>` outside a tag) escaped.
    public static func render(cues: [Cue]) -> String {
        var text = "WEBVTT\n\(timestampMap)\n"
        for cue in cues {
            text += "\n\(timestamp(cue.start)) --> \(timestamp(cue.end))\n\(escaped(cue.text))\n"
        }
        return text
    }

    /// Whether pushed bytes can be served as a subtitle file: UTF-8 text that starts with the
    /// `WEBVTT` signature (after a byte-order mark, if any) on a line of its own.
    public static func looksLikeOne(_ bytes: [UInt8]) -> Bool {
        guard let text = String(validating: bytes, as: UTF8.self) else { return false }
        let body = text.hasPrefix("\u{FEFF}") ? text.dropFirst() : Substring(text)
        guard body.hasPrefix("WEBVTT") else { return false }
        let after = body.dropFirst(6).first
        return after == nil || after == "\n" || after == "\r" || after == " " || after == "\t"
    }

    /// The cues of a WebVTT file, their times as written (a file of this program's has every cue's
    /// media time; see ``timestampMap``). What is not a cue is passed over: the header, a `NOTE`, a
    /// block whose timing line does not read, a cue with no text.
    public static func cues(in text: String) -> [Cue] {
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        var cues: [Cue] = []
        var index = 0
        while index < lines.count {
            guard lines[index].contains("-->"), let (start, end) = timing(lines[index]) else {
                index += 1
                continue
            }
            var body: [Substring] = []
            index += 1
            while index < lines.count, !lines[index].isEmpty {
                body.append(lines[index])
                index += 1
            }
            if !body.isEmpty { cues.append(Cue(start: start, end: end, text: body.joined(separator: "\n"))) }
        }
        return cues
    }

    /// The start and end of a timing line (`00:00:01.000 --> 00:00:02.500 line:90%`).
    private static func timing(_ line: Substring) -> (Double, Double)? {
        let halves = line.split(separator: "-->", maxSplits: 1)
        guard halves.count == 2, let start = seconds(reading: halves[0].trimmingSpaces),
            let end = seconds(reading: halves[1].trimmingSpaces.prefix { $0 != " " && $0 != "\t" })
        else { return nil }
        return (start, end)
    }

    /// `[hh:]mm:ss.ttt`, as WebVTT writes a timestamp.
    static func seconds(reading text: Substring) -> Double? {
        let fields = text.split(separator: ":", omittingEmptySubsequences: false)
        guard (2...3).contains(fields.count), let last = fields.last else { return nil }
        let parts = last.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 2, parts[1].count == 3,
            fields.dropLast().allSatisfy({ $0.count >= 2 && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
            let secs = Int(parts[0]), let thousandths = Int(parts[1]), secs < 60
        else { return nil }
        var total = Double(secs) + Double(thousandths) / 1000
        for (place, field) in fields.dropLast().reversed().enumerated() {
            guard let value = Int(field.prefix(12)), field.count <= 12, place == 1 || value < 60 else { return nil }
            total += Double(value) * (place == 0 ? 60 : 3600)
        }
        return total
    }

    /// `hh:mm:ss.ttt` (hours past 99 take more digits).
    public static func timestamp(_ seconds: Double) -> String {
        let milliseconds = Int64(max(0, seconds * 1000).rounded())
        let hours = milliseconds / 3_600_000
        let minutes = milliseconds / 60_000 % 60
        let secs = milliseconds / 1000 % 60
        return "\(pad(hours, 2)):\(pad(minutes, 2)):\(pad(secs, 2)).\(pad(milliseconds % 1000, 3))"
    }

    /// Seconds with at most three decimals, for messages.
    /// Any number a captioner writes may reach here (in a refusal): beyond what a broadcast lasts it
    /// is written as it came, never converted to an integer that cannot hold it.
    public static func seconds(_ value: Double) -> String {
        guard value.isFinite, abs(value) < 1e12 else { return String(value) }
        let milliseconds = (value * 1000).rounded()
        return milliseconds.truncatingRemainder(dividingBy: 1000) == 0
            ? String(Int64(milliseconds / 1000)) : String(milliseconds / 1000)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// The entities a cue's text may already hold.
    private static let entities = ["&amp;", "&lt;", "&gt;", "&lrm;", "&rlm;", "&nbsp;"]

    /// A cue's text as WebVTT reads it back: tags kept, a bare `&` and a `>` outside a tag escaped.
    static func escaped(_ text: String) -> String {
        var result = ""
        var inTag = false
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            switch character {
            case "<": inTag = true; result.append(character)
            case ">" where inTag: inTag = false; result.append(character)
            case ">": result += "&gt;"
            case "&" where !entities.contains(where: { text[index...].hasPrefix($0) }): result += "&amp;"
            default: result.append(character)
            }
            index = text.index(after: index)
        }
        return result
    }
}

extension Substring {
    /// Without its leading and trailing spaces and tabs.
    fileprivate var trimmingSpaces: Substring {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let first = firstIndex(where: { !blank($0) }), let last = lastIndex(where: { !blank($0) }) else {
            return self[endIndex...]
        }
        return self[first...last]
    }
}
