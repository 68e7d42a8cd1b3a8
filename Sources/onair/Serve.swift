import ArgumentParser
import FoundationEssentials
import Logging
import Media
import Publisher
import Push
import Runtime
import Server
import Origin

struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the HTTP server alone: a Low-Latency HLS origin that publishers elsewhere push to.",
        discussion: """
            Publishers push a channel with PUT under http://HOST:PORT/ingest/<channel>/ and a bearer \
            token; viewers (or edge caches in front of this server) get it at \
            http://HOST:PORT/live/<channel>/index.m3u8, with the watch and embed pages, /api/channels \
            and /metrics, as from onair publish. A channel appears when its publisher starts pushing \
            and is shown as ended when it stops, or goes silent for --publisher-timeout.

            A hosted channel goes where a published one can: --dvr keeps each channel's rewind \
            window, --record keeps each run of it (on this disk or in a bucket), and --push sends \
            every channel on, each in a folder of its own (another origin's /ingest/, or a bucket).

            Examples:
              ONAIR_INGEST_TOKEN=… onair serve --port 8080
              onair publish --channel demo --low-latency --no-serve \\
                  --push http://origin:8080/ingest/demo/ \\
                  --push-header "Authorization: Bearer $ONAIR_INGEST_TOKEN"
              ffmpeg … -f hls -hls_segment_type fmp4 -hls_fmp4_init_filename init.mp4 \\
                  -hls_segment_filename http://origin:8080/ingest/demo/seg%d.m4s \\
                  -method PUT -headers "Authorization: Bearer $ONAIR_INGEST_TOKEN" \\
                  http://origin:8080/ingest/demo/media.m3u8
              onair serve --dvr 2h --record s3://archive/shows/ \\
                  --push https://origin2:8443/ingest/ --push-header @ingest-header.txt
            """)

    @OptionGroup(title: "HTTP server")
    var server: ServerOptions

    @Option(
        help: ArgumentHelp(
            "The bearer token publishers push with, for every channel (at least 16 characters); @FILE reads it from a file. Default: $ONAIR_INGEST_TOKEN.",
            valueName: "token"))
    var ingestToken: String?

    @Option(
        help: ArgumentHelp(
            "A file of 'CHANNEL TOKEN' lines: each channel's own ingest token.", valueName: "file"))
    var ingestTokens: String?

    @Option(help: ArgumentHelp("Segments listed in each channel's live playlist, at least 3.", valueName: "n"))
    var playlistSize = 6

    @Option(
        help: ArgumentHelp(
            "How long a publisher may be silent before its channel is ended for viewers.", valueName: "time"))
    var publisherTimeout = DurationValue(seconds: 10)

    @Option(
        help: ArgumentHelp(
            "What one channel may hold in memory, its renditions' pushed files and live windows together; past it a push is refused (507).",
            valueName: "size"))
    var channelMemory = ByteSize(bytes: 256_000_000)

    @Option(
        help: ArgumentHelp(
            "What every channel may hold in memory together; past it a push is refused (507).", valueName: "size"))
    var originMemory = ByteSize(bytes: 2_000_000_000)

    @OptionGroup(title: "Recording")
    var recording: RecordOptions

    @OptionGroup(title: "Recording")
    var rewind: DVROptions

    @OptionGroup(title: "Pushing each channel onward: to another origin or a bucket")
    var push: PushOptions

    @Option(help: ArgumentHelp("How much to log.", valueName: "level"))
    var logLevel: Logger.Level = .info

    @Option(help: ArgumentHelp("How log lines look: text, or json (one object a line).", valueName: "format"))
    var logFormat = LogFormat.text

    func validate() throws {
        for destination in try push.parsed(environment: ProcessInfo.processInfo.environment) {
            if case .packets = destination {
                throw ValidationError(
                    "--push \(destination): onair serve pushes its channels onward as HLS, to http(s):// or s3:// "
                        + "(an RTMP or SRT stream comes from onair publish, which has the encoded packets)")
            }
        }
        try push.checkNotPushing(toHost: server.host, port: server.port) { base, port in
            "--push \(base) is this origin itself (port \(port)): push on to another origin, or serve on another --port"
        }
        guard playlistSize >= 3, playlistSize <= 1000 else {
            throw ValidationError("--playlist-size \(playlistSize) is out of range: 3 to 1000")
        }
        guard publisherTimeout.seconds >= 1, publisherTimeout.seconds <= 3600 else {
            throw ValidationError("--publisher-timeout must be 1 s to 1 h")
        }
        guard channelMemory.bytes >= 16_000_000, channelMemory.bytes <= originMemory.bytes else {
            throw ValidationError("--channel-memory must be 16M to --origin-memory (\(originMemory))")
        }
        if let ingestToken, !ControlOptions.isToken(try SecretText.resolve(ingestToken, option: "--ingest-token")) {
            throw ValidationError("--ingest-token must be at least 16 characters, without spaces")
        }
    }

    /// The tokens from the options, the environment and the tokens file; a refusal names what to fix.
    func tokens(environment: [String: String]) throws -> IngestTokens {
        var tokens = IngestTokens(
            everyChannel: try ingestToken.map { try SecretText.resolve($0, option: "--ingest-token") }
                ?? environment["ONAIR_INGEST_TOKEN"].flatMap { $0.isEmpty ? nil : $0 })
        if ingestToken == nil, let common = tokens.everyChannel, !ControlOptions.isToken(common) {
            throw UsageError(message: "ONAIR_INGEST_TOKEN must be at least 16 characters, without spaces")
        }
        if let path = ingestTokens {
            let bytes: [UInt8]
            do throws(RegularFile.Problem) {
                bytes = try RegularFile.read(path, limit: 1 << 20)
            } catch {
                switch error {
                case .unreadable: throw UsageError(message: "--ingest-tokens \(path) cannot be read; check the path")
                case .notRegular: throw UsageError(message: "--ingest-tokens \(path) is not a regular file")
                case .tooLarge: throw UsageError(message: "--ingest-tokens \(path) is larger than 1 MiB")
                }
            }
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw UsageError(message: "--ingest-tokens \(path) is not UTF-8 text")
            }
            SecretText.warnIfShared(path, what: "--ingest-tokens \(path)")
            do throws(ServerError) {
                tokens.byChannel = try IngestTokens.parse(file: text)
            } catch {
                throw UsageError(message: "--ingest-tokens \(path), \(error)")
            }
        }
        guard !tokens.isEmpty else {
            throw UsageError(
                message: "onair serve needs an ingest token: --ingest-token, ONAIR_INGEST_TOKEN or --ingest-tokens FILE"
            )
        }
        return tokens
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        OpenFileLimit.raise()
        let tokens = try tokens(environment: environment)
        let viewerAccess = try server.viewerAccess(environment: environment)
        try Startup.checkListening(server)
        Startup.settle(privateChannels: viewerAccess != nil)
        try recording.checkWritable()
        try rewind.checkWritable()
        let registry = Startup.bootstrap(logFormat: logFormat, logLevel: logLevel)
        let recordings = recording.folder
        var serving = ServerConfiguration(
            host: server.host, port: server.port, allowOrigin: server.allowOrigin, tls: server.tls,
            viewerAccess: viewerAccess,
            idleTimeout: server.idleTimeout.seconds,
            maxConnections: OpenFileLimit.connections(wanted: server.maxConnections))
        serving.recordings = recordings
        serving.pathways = try server.pathways()
        let origin = OriginServer(
            configuration: .init(
                server: serving, tokens: tokens,
                channels: .init(
                    playlistSize: playlistSize, publisherTimeout: publisherTimeout.seconds,
                    channelMemory: channelMemory.bytes, originMemory: originMemory.bytes),
                destinations: ChannelDestinations(
                    push: try push.parsed(environment: environment), trust: push.trust,
                    record: recordings.map {
                        .init(root: $0, keep: recording.recordKeep, maxBytes: recording.recordMaxSize?.bytes)
                    },
                    recordS3: try recording.s3Location(environment: environment),
                    rewind: rewind.dvr.map { .init(root: rewind.root, seconds: $0.seconds) },
                    pushesInFolders: true, announcesRecordings: true, report: { _, _ in })),
            logger: Logger(label: "onair"), metrics: registry)
        try await origin.run()
    }
}
