/// A subtitle segment or part: a WebVTT file of the cues that overlap its time, with the
/// `X-TIMESTAMP-MAP` that places them on the media's timeline (RFC 8216bis 3.1.4). The cue times
/// are media time, which the video's own timestamps (its fMP4 `tfdt`, its TS `PTS`) count in
/// 90 kHz ticks from the same 0, so every file maps the same moment: 1 s is 90,000 ticks. One map
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
