public import HLSModel

/// A recording's captions as an MP4's text track holds them. Pure.
///
/// A subtitle segment lists every cue that overlaps it, so a cue comes once per segment it spans:
/// the copies are one cue. A text track shows one sample at a time, where WebVTT shows up to
/// ``Cue/maxOverlapping`` cues at once: while two overlap, the sample holds both, the earlier's
/// lines first.
public enum RecordingCaptions {
    /// The samples of `cues` (seconds of the file): one per stretch of time in which the same cues
    /// show, none where none does, in order and never overlapping; a stretch like the one before it
    /// is the same sample.
    public static func samples(of cues: [Cue]) -> [Cue] {
        var seen = Set<Cue>()
        let kept = cues.filter { $0.start.isFinite && $0.end.isFinite && $0.end > $0.start && seen.insert($0).inserted }
        let ordered = kept.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
            .map(\.element)
        let moments = Set(ordered.flatMap { [$0.start, $0.end] }).sorted()
        var samples: [Cue] = []
        var showing: [Cue] = []
        var next = 0
        for (from, to) in zip(moments, moments.dropFirst()) {
            showing.removeAll { $0.end <= from }
            while next < ordered.count, ordered[next].start <= from {
                showing.append(ordered[next])
                next += 1
            }
            guard !showing.isEmpty else { continue }
            // Never more than a caption's rules let be on screen: a file not of this program's is
            // held to them too.
            let text = showing.prefix(Cue.maxOverlapping).map(\.text).joined(separator: "\n")
            if let last = samples.last, last.end == from, last.text == text {
                samples[samples.count - 1].end = to
            } else {
                samples.append(Cue(start: from, end: to, text: text))
            }
        }
        return samples
    }

    /// A cue's WebVTT text as an ASS dialogue's (what libavcodec's timed-text encoder reads): `<b>`,
    /// `<i>` and `<u>` become override tags, a voice `<v Ana>` the speaker's name before the words,
    /// an entity its character, a line break `\N`. A backslash, which ASS reads as the start of a
    /// code, becomes the full-width one.
    public static func dialogue(fromWebVTT text: String) -> String {
        var result = ""
        var rest = Substring(text)
        while let character = rest.first {
            if character == "<", let close = rest.firstIndex(of: ">") {
                let tag = rest[rest.index(after: rest.startIndex)..<close]
                rest = rest[rest.index(after: close)...]
                result += override(for: tag)
            } else if character == "&", let entity = entities.first(where: { rest.hasPrefix($0.key) }) {
                rest = rest.dropFirst(entity.key.count)
                result += entity.value
            } else {
                rest = rest.dropFirst()
                switch character {
                case "\n": result += "\\N"
                case "\\": result += "\u{FF3C}"
                default: result.append(character)
                }
            }
        }
        return result
    }

    private static let entities = [
        "&amp;": "&", "&lt;": "<", "&gt;": ">", "&nbsp;": "\u{A0}", "&lrm;": "\u{200E}", "&rlm;": "\u{200F}",
    ]

    /// The ASS code for a WebVTT tag: `b`, `i`, `u` on and off; a voice's name; nothing for others.
    private static func override(for tag: Substring) -> String {
        let closing = tag.hasPrefix("/")
        let name = tag.dropFirst(closing ? 1 : 0).prefix { $0 != " " && $0 != "." }
        switch name {
        case "b", "i", "u": return "{\\\(name)\(closing ? 0 : 1)}"
        case "v" where !closing:
            let speaker = tag.drop { $0 != " " }.drop { $0 == " " }
            return speaker.isEmpty ? "" : "\(speaker): "
        default: return ""
        }
    }
}
