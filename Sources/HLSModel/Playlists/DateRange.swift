/// A moment of the broadcast with a name, a viewer can jump to: a chapter ("Slide 12"). Every
/// media playlist of the channel lists it as an `EXT-X-DATERANGE` while the segment it starts in
/// is listed; a recording keeps it for good, and an MP4 export makes it a chapter.
///
/// Pure: the rules a marker keeps, its tag, and the tag read back (a publisher's, at an origin).
public struct DateRange: Sendable, Equatable, Hashable, Codable {
    /// Its `CLASS`: what onair's markers are, for players that tell kinds of date ranges apart.
    public static let chapterClass = "org.onair.chapter"
    /// The most a title may hold, in characters.
    public static let maxTitleLength = 200
    /// The most markers a channel keeps.
    public static let maxCount = 1000

    /// Unique in the channel, for good: `ID` (RFC 8216bis 4.4.5.1).
    public var id: String
    /// When it starts, milliseconds since 1970: `START-DATE`.
    public var start: Int64
    /// What a viewer sees: `X-TITLE`.
    public var title: String

    public init(id: String, start: Int64, title: String) {
        self.id = id
        self.start = start
        self.title = title
    }

    /// The tag, as a media playlist lists it.
    public var tag: String {
        "#EXT-X-DATERANGE:ID=\"\(id)\",CLASS=\"\(Self.chapterClass)\","
            + "START-DATE=\"\(ProgramDateTime.format(milliseconds: start))\",X-TITLE=\"\(title)\""
    }

    /// Why a title cannot be a marker's, or nil when it can: not empty, at most 200 characters,
    /// no control characters, and no double quote (an HLS quoted string cannot hold one).
    public static func problem(withTitle title: String) -> String? {
        if title.allSatisfy(\.isWhitespace) { return "a marker needs a title" }
        if title.count > maxTitleLength {
            return "a title is at most \(maxTitleLength) characters (this one has \(title.count))"
        }
        if title.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            return "a title cannot hold control characters (tabs, line breaks)"
        }
        if title.contains("\"") { return "a title cannot hold a double quote (\"); use “ and ” instead" }
        return nil
    }

    /// An id made of the channel's count and the start (`m12-1764300000250`): a run that continues
    /// a channel goes on counting from the markers it lists, so no id is given twice.
    public static func id(number: Int, start: Int64) -> String { "m\(number)-\(start)" }

    /// Reads a tag's attribute list (after `#EXT-X-DATERANGE:`), as onair writes it or a publisher
    /// pushes it. Nil when it is not a marker onair can keep: no ID, no START-DATE, another class,
    /// or a title that breaks the rules.
    public static func parse(_ attributes: Substring) -> DateRange? {
        let values = MediaPlaylist.attributes(attributes)
        guard let id = values["ID"], LiveRequest.isToken(id, limit: 64, dots: true), values["CLASS"] == chapterClass,
            let start = values["START-DATE"].flatMap(ProgramDateTime.parse), let title = values["X-TITLE"],
            problem(withTitle: title) == nil
        else { return nil }
        return DateRange(id: id, start: start, title: title)
    }
}

/// Why a marker is refused (HTTP 400 with the rule it broke, or 429 once a channel has as many as
/// it keeps); nothing is added.
public enum MarkerRefusal: Error, Equatable, CustomStringConvertible {
    case badTitle(String)
    case badTime(String)
    case full

    public var description: String {
        switch self {
        case .badTitle(let rule), .badTime(let rule): rule
        case .full: "the channel has \(DateRange.maxCount) markers, as many as it keeps"
        }
    }

    public var status: Int { self == .full ? 429 : 400 }
}

extension DateRange {
    /// Checks a marker before it is added: its title by ``problem(withTitle:)``, its time neither
    /// in the future (a second's leeway for clocks) nor before `earliest` (what viewers can still
    /// go back to: the rewind window's start, or the live playlist's).
    public static func check(title: String, at start: Int64, now: Int64, earliest: Int64) throws(MarkerRefusal) {
        if let problem = problem(withTitle: title) { throw .badTitle(problem) }
        if start > now + 1000 {
            throw .badTime("\(ProgramDateTime.format(milliseconds: start)) is in the future")
        }
        if start < earliest {
            throw .badTime(
                "\(ProgramDateTime.format(milliseconds: start)) is before what viewers can go back to "
                    + "(\(ProgramDateTime.format(milliseconds: earliest)))")
        }
    }
}

extension [DateRange] {
    /// Adds the markers of `given` it does not have (by id) that `include` takes, keeping the
    /// order of their starts. True when it added any.
    public mutating func merge(_ given: [DateRange], where include: (DateRange) -> Bool = { _ in true }) -> Bool {
        guard !given.isEmpty else { return false }
        var known = Set(map(\.id))
        let added = given.filter { include($0) && known.insert($0.id).inserted }
        guard !added.isEmpty else { return false }
        self = (self + added).sorted { ($0.start, $0.id) < ($1.start, $1.id) }
        return true
    }
}
