import FoundationEssentials
import HLSModel
import Hummingbird

/// Captions as the control API takes them: one (`{"text": "Hello", "start": "2026-11-28T10:15:00.000Z",
/// "end": "…"}`) or several (`{"cues": [ … ]}`), each with `start` a date-time or "now" (the
/// default), and `end` a date-time or `duration` seconds (default 3). The answer lists them with
/// their times as date-times.
enum CaptionRequest {
    /// How long a caption without an end stays, in seconds.
    static let defaultDuration = 3.0

    private struct One: Decodable {
        var text: String?
        var start: String?
        var end: String?
        var duration: Double?
    }

    private struct Many: Decodable {
        var cues: [One]
    }

    private struct Answer: Encodable {
        var text: String
        var start: String
        var end: String
    }

    static let form =
        "the body is JSON: {\"text\": \"Hello\"} or {\"cues\": [{\"text\": …}, …]}, each with \"start\" "
        + "(a date-time such as \"2026-11-28T10:15:00.000Z\", or \"now\": the default) and \"end\" (a date-time) "
        + "or \"duration\" (seconds, default 3)"

    /// Reads the body, placing "now" at `now` (milliseconds since 1970); a body that is not such
    /// JSON, or a time that is not one, is a 400 that says so.
    static func parse(_ bytes: [UInt8], now: Int64) throws -> [Caption] {
        let data = Data(bytes)
        let given: [One]
        if let many = try? JSONDecoder().decode(Many.self, from: data) {
            given = many.cues
        } else if let one = try? JSONDecoder().decode(One.self, from: data) {
            given = [one]
        } else {
            throw HTTPError(.badRequest, message: form)
        }
        guard !given.isEmpty else { throw HTTPError(.badRequest, message: "no captions given: \(form)") }
        return try given.map { one in
            guard let text = one.text else { throw HTTPError(.badRequest, message: "a caption needs text: \(form)") }
            let start: Int64
            if let text = one.start, text != "now" {
                guard let time = MarkerRequest.time(text) else {
                    throw HTTPError(.badRequest, message: "\"start\" is not a date-time or \"now\": \(form)")
                }
                start = time
            } else {
                start = now
            }
            if one.end != nil, one.duration != nil {
                throw HTTPError(.badRequest, message: "a caption has \"end\" or \"duration\", not both")
            }
            let end: Int64
            if let text = one.end {
                guard let time = MarkerRequest.time(text) else {
                    throw HTTPError(.badRequest, message: "\"end\" is not a date-time: \(form)")
                }
                end = time
            } else {
                let duration = one.duration ?? defaultDuration
                guard duration.isFinite, duration > 0, duration <= Cue.maxDuration else {
                    throw HTTPError(
                        .badRequest, message: "\"duration\" is seconds, above 0 and at most \(Int(Cue.maxDuration))")
                }
                end = start + Int64((duration * 1000).rounded())
            }
            return Caption(text: text, start: start, end: end)
        }
    }

    static func json(_ captions: [Caption]) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let answers = captions.map {
            Answer(
                text: $0.text, start: ProgramDateTime.format(milliseconds: $0.start),
                end: ProgramDateTime.format(milliseconds: $0.end))
        }
        return Array(try encoder.encode(["cues": answers]))
    }
}
