import ArgumentParser
import AsyncHTTPClient
import FoundationEssentials
import HLSModel
import NIOCore
import NIOHTTP1
import Runtime
#if canImport(Glibc)
    import Glibc
#endif

/// `onair mark`: adds a marker (a chapter) to a running broadcast through its control API.
struct Mark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Add a marker (a chapter: \"Slide 12\") to a running broadcast.",
        discussion: """
            Every media playlist of the channel lists it (EXT-X-DATERANGE) within a part or a segment; \
            onair's player shows it on the seek bar, a recording keeps it, and its MP4 export makes it a \
            chapter. The token is the broadcast's control token: --control-token, $ONAIR_CONTROL_TOKEN, \
            or the file `onair publish` wrote for the channel.

              onair mark --channel demo "Slide 12"
              onair mark --channel demo --at 2026-11-28T10:15:00Z "Questions"
            """)

    @Option(help: ArgumentHelp("The channel to mark.", valueName: "name"))
    var channel: String

    @Argument(help: ArgumentHelp("The marker's title (at most 200 characters).", valueName: "title"))
    var title: String

    @Option(
        help: ArgumentHelp(
            "When it starts: a date-time such as 2026-11-28T10:15:00Z, within what viewers can go back to. Default: now.",
            valueName: "time"))
    var at: String?

    @Option(help: ArgumentHelp("The publisher's address.", valueName: "url"))
    var server = "http://127.0.0.1:8080"

    @OptionGroup var control: ControlOptions

    func validate() throws {
        guard ChannelName(channel) != nil else {
            throw ValidationError("--channel: 1 to 64 letters, digits, - or _")
        }
        if let problem = DateRange.problem(withTitle: title) { throw ValidationError(problem) }
        if let at, Self.milliseconds(at) == nil {
            throw ValidationError("--at: \(at) is not a date-time such as 2026-11-28T10:15:00Z")
        }
        guard let url = URL(string: server), ["http", "https"].contains(url.scheme ?? ""), url.host != nil else {
            throw ValidationError("--server: \(server) is not an http:// or https:// address")
        }
    }

    func run() async throws {
        let token = try control.token(environment: ProcessInfo.processInfo.environment) ?? Self.savedToken(channel)
        var request = HTTPClientRequest(
            url: server.trimmingSuffix("/") + "/api/channels/\(channel)/markers")
        request.method = .POST
        request.headers.add(name: "Authorization", value: "Bearer \(token)")
        request.headers.add(name: "Content-Type", value: "application/json")
        var body: [String: String] = ["title": title]
        if let at { body["at"] = ProgramDateTime.format(milliseconds: Self.milliseconds(at)!) }
        request.body = .bytes(ByteBuffer(bytes: try JSONEncoder().encode(body)))
        let response: HTTPClientResponse
        do {
            response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        } catch {
            writeToStandardError(
                "onair: nothing answers at \(server) (\(error)): is `onair publish --channel \(channel)` "
                    + "running there? Give its address with --server\n")
            throw ExitCode(1)
        }
        let answer = try await response.body.collect(upTo: 64 * 1024)
        let text = String(buffer: answer)
        guard response.status == .created else {
            let said =
                (try? JSONDecoder().decode(Refusal.self, from: Data(answer.readableBytesView)))?.error.message ?? text
            writeToStandardError("onair: the marker was refused (\(response.status.code)): \(said)\n")
            throw ExitCode(1)
        }
        print(text)
    }

    /// The token `onair publish` wrote for the channel when it was given none.
    static func savedToken(_ channel: String) throws -> String {
        let file = ControlToken.file(channel: channel)
        guard let text = try? String(contentsOf: file, encoding: .utf8),
            let token = text.split(whereSeparator: \.isNewline).first.map(String.init), !token.isEmpty
        else {
            throw UsageError(
                message:
                    "no control token: give --control-token or $ONAIR_CONTROL_TOKEN (none is saved in \(file.path))")
        }
        return token
    }

    /// A refusal's JSON, as Hummingbird writes it: `{"error":{"message":"…"}}`.
    private struct Refusal: Decodable {
        struct Detail: Decodable { let message: String }
        let error: Detail
    }

    static func milliseconds(_ text: String) -> Int64? {
        if let milliseconds = ProgramDateTime.parse(text) { return milliseconds }
        return (try? Date(text, strategy: .iso8601)).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
