import FoundationEssentials
public import HLSModel
import Hummingbird

/// A marker as the control API takes it (`{"title": "Slide 12", "at": "2026-11-28T10:15:00.000Z"}`,
/// `at` optional: now) and gives it back (`{"id", "title", "start"}`).
struct MarkerRequest: Equatable {
    var title: String
    /// Milliseconds since 1970; nil: now.
    var start: Int64?

    private struct Body: Decodable {
        var title: String?
        var at: String?
    }

    private struct Answer: Encodable {
        var id: String
        var title: String
        var start: String
    }

    /// Reads the body; a body that is not such JSON is a 400 that shows the form.
    static func parse(_ bytes: [UInt8]) throws -> MarkerRequest {
        let form =
            "the body is JSON: {\"title\": \"Slide 12\"}, with \"at\": a date-time such as "
            + "\"2026-11-28T10:15:00.000Z\" (default: now)"
        guard let body = try? JSONDecoder().decode(Body.self, from: Data(bytes)) else {
            throw HTTPError(.badRequest, message: form)
        }
        guard let title = body.title else { throw HTTPError(.badRequest, message: "a marker needs a title: \(form)") }
        guard let at = body.at else { return MarkerRequest(title: title, start: nil) }
        guard let start = time(at) else {
            throw HTTPError(.badRequest, message: "\"at\" is not a date-time: \(form)")
        }
        return MarkerRequest(title: title, start: start)
    }

    /// `2026-11-28T10:15:00.250Z` as playlists write it, or ISO 8601 with seconds and a zone.
    static func time(_ text: String) -> Int64? {
        if let milliseconds = ProgramDateTime.parse(text) { return milliseconds }
        guard let date = try? Date(text, strategy: .iso8601) else { return nil }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    static func json(_ marker: DateRange) throws -> [UInt8] {
        try encode(answer(marker))
    }

    static func json(_ markers: [DateRange]) throws -> [UInt8] {
        try encode(markers.map(answer))
    }

    private static func answer(_ marker: DateRange) -> Answer {
        Answer(id: marker.id, title: marker.title, start: ProgramDateTime.format(milliseconds: marker.start))
    }

    private static func encode(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(value))
    }
}
