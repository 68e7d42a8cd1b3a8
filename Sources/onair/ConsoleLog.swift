import ArgumentParser
import FoundationEssentials
import HLS
import HLSModel
import Logging
import Runtime
#if canImport(Glibc)
    import Glibc
#endif

/// How log lines look on stderr.
enum LogFormat: String, ExpressibleByArgument, CaseIterable {
    /// `2026-11-22T10:00:00.250Z warning [audio_device_lost] audio device pulse failed …`
    case text
    /// One JSON object a line: time, level, message, and the event code and channel of events.
    case json
}

/// The log handler of the command line: text for people, JSON lines for log collectors.
struct ConsoleLogHandler: LogHandler {
    let format: LogFormat
    var logLevel: Logger.Level
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let time = ProgramDateTime.format(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded()))
        let fields = metadata.merging(event.metadata ?? [:]) { $1 }
        let line = Self.line(
            format: format, time: time, level: event.level, message: "\(event.message)",
            fields: fields.mapValues { "\($0)" })
        writeToStandardError(line + "\n")
    }

    static func line(format: LogFormat, time: String, level: Logger.Level, message: String, fields: [String: String])
        -> String
    {
        switch format {
        case .text:
            let code = fields["event"].map { "[\($0)] " } ?? ""
            return "\(time) \(level) \(code)\(message)"
        case .json:
            var object = fields
            object["time"] = time
            object["level"] = level.rawValue
            object["message"] = message
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            return String(decoding: (try? encoder.encode(object)) ?? Data(), as: UTF8.self)
        }
    }
}
