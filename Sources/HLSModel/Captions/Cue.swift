/// One caption: text shown from `start` to `end`, in the broadcast's media time (seconds from its
/// clock's start, the time its pictures and sound are stamped with). A subtitle segment lists the
/// cues that overlap it in WebVTT (``WebVTTFile``).
///
/// Pure: the rules a cue keeps, so that nothing is served that a WebVTT parser rejects or shows
/// other than meant.
public struct Cue: Sendable, Equatable, Hashable {
    /// The most a cue's text may hold, in characters.
    public static let maxTextLength = 500
    /// The longest a cue may stay on screen, in seconds: it is repeated in every segment it overlaps.
    public static let maxDuration = 30.0
    /// The most cues on screen at once (two speakers).
    public static let maxOverlapping = 2
    /// The WebVTT markup a cue may hold: bold, italic, underline and a voice (`<v Ana>`).
    public static let allowedTags: Set<String> = ["b", "i", "u", "v"]

    public var start: Double
    public var end: Double
    public var text: String

    public init(start: Double, end: Double, text: String) {
        self.start = start
        self.end = end
        self.text = text
    }

    /// Why `text` cannot be a cue's, or nil when it can: not blank, at most 500 characters, no
    /// control characters but single line breaks, no `-->`, and markup only `<b>`, `<i>`, `<u>` and
    /// `<v …>`, each closed in order.
    public static func problem(withText text: String) -> String? {
        if text.allSatisfy(\.isWhitespace) { return "a caption needs text" }
        if text.count > maxTextLength {
            return "a caption is at most \(maxTextLength) characters (this one has \(text.count))"
        }
        if text.unicodeScalars.contains(where: { $0 != "\n" && $0.properties.generalCategory == .control }) {
            return "a caption cannot hold control characters (tabs, carriage returns) but line breaks"
        }
        if text.contains("\n\n")
            || text.split(separator: "\n", omittingEmptySubsequences: false).contains(where: {
                $0.allSatisfy(\.isWhitespace)
            })
        {
            return "a caption cannot hold an empty line"
        }
        if text.contains("-->") { return "a caption cannot hold \"-->\"" }
        return markupProblem(in: text)
    }

    /// Why the cue's times cannot be, or nil: it ends after it starts, within ``maxDuration``.
    public var timeProblem: String? {
        guard start.isFinite, end.isFinite, start >= 0 else { return "a caption's times must be real moments" }
        if end <= start { return "a caption must end after it starts" }
        if end - start > Self.maxDuration {
            return "a caption lasts at most \(Int(Self.maxDuration)) s (this one \(WebVTTFile.seconds(end - start)) s)"
        }
        return nil
    }

    /// Tags are only the allowed ones, closed in the order opened; `<` starts nothing else.
    private static func markupProblem(in text: String) -> String? {
        var open: [String] = []
        var rest = Substring(text)
        while let opening = rest.firstIndex(of: "<") {
            guard let closing = rest[opening...].firstIndex(of: ">") else {
                return "a caption's \"<\" must start a tag (write &lt; for the sign)"
            }
            let tag = rest[rest.index(after: opening)..<closing]
            rest = rest[rest.index(after: closing)...]
            if tag.hasPrefix("/") {
                let name = String(tag.dropFirst())
                guard open.last == name else { return "a caption's </\(name)> closes no open <\(name)>" }
                open.removeLast()
                continue
            }
            let name = String(tag.prefix { $0 != " " && $0 != "." })
            guard allowedTags.contains(name) else {
                return "a caption may hold only <b>, <i>, <u> and <v name> (not <\(tag)>)"
            }
            if name == "v", tag.dropFirst().allSatisfy(\.isWhitespace) { return "a caption's <v> needs a name" }
            if name != "v", tag != Substring(name) { return "a caption's <\(name)> takes nothing more" }
            open.append(name)
        }
        // An unclosed <v> runs to the cue's end, as WebVTT allows; others must close.
        if let unclosed = open.last(where: { $0 != "v" }) { return "a caption's <\(unclosed)> is not closed" }
        return nil
    }

    /// Whether the cue is on screen at some moment of [`from`, `to`).
    public func overlaps(from: Double, to: Double) -> Bool { start < to && end > from }
}

/// Why cues were refused, each a rule broken: a client's mistake (400).
public struct CueRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

extension [Cue] {
    /// Checks `cue` against the cues already taken (oldest first): its text and times, a start no
    /// earlier than the newest cue's, and at most ``Cue/maxOverlapping`` on screen at once.
    public func check(_ cue: Cue) throws(CueRefusal) {
        if let problem = Cue.problem(withText: cue.text) ?? cue.timeProblem { throw CueRefusal(problem) }
        if let last, cue.start < last.start {
            throw CueRefusal(
                "captions come in order: this one starts at \(WebVTTFile.seconds(cue.start)) s, before the one at \(WebVTTFile.seconds(last.start)) s"
            )
        }
        let onScreen = reversed().prefix { $0.start > cue.start - Cue.maxDuration }.filter {
            $0.overlaps(from: cue.start, to: cue.start + 0.001)
        }
        if onScreen.count >= Cue.maxOverlapping {
            throw CueRefusal("at most \(Cue.maxOverlapping) captions are on screen at once")
        }
    }
}
