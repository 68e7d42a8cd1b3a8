import ArgumentParser
import Encoding
import FoundationEssentials
import HLS
import HLSModel
import Logging
import Media
import Publisher
import Push
import enum Runtime.VideoCodec
import Server
#if canImport(Glibc)
    import Glibc
#endif

struct Publish: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Capture, encode and publish a live HLS stream on a channel.",
        discussion: """
            Watch it at http://HOST:PORT/watch/<channel> (with the embed code for other sites), or play \
            http://HOST:PORT/live/<channel>/index.m3u8 in any HLS player, until you press Ctrl-C (or \
            --duration runs out). The last segment is then listed and the playlist ended; the server \
            stays while viewers fetch the end of the stream (a second Ctrl-C quits at once).

            Examples:
              onair publish --channel demo
              onair publish --channel demo --format ts --segment-duration 4 --duration 10m
              onair publish --channel demo --low-latency   (about 1 s behind live)
              onair publish --channel demo --watermark web/logo.png --watermark-opacity 0.8
              onair publish --channel demo --hls-dir /var/www/hls   (also serve with nginx)
              onair publish --channel demo --dvr 2h   (viewers can rewind two hours)
              onair publish --channel demo --captions   (then POST captions to /api/channels/demo/captions)
              onair publish --channel demo --push https://ingest.example.com/live/demo/
              AWS_ACCESS_KEY_ID=… AWS_SECRET_ACCESS_KEY=… onair publish --push s3://bucket/live/demo/
              onair publish --channel demo --push rtmp://a.rtmp.youtube.com/live2/STREAM-KEY
            """)

    @Option(help: ArgumentHelp("Channel name: letters, digits, '-' and '_', up to 64.", valueName: "name"))
    var channel = "demo"

    @OptionGroup(title: "Sources")
    var sources: SourceOptions

    @OptionGroup(title: "Encoding")
    var encoding: EncodingOptions

    @OptionGroup(title: "Watermark")
    var watermark: WatermarkOptions

    @OptionGroup(title: "HLS output")
    var output: OutputOptions

    @OptionGroup(title: "Captions and markers")
    var captions: CaptionOptions

    @OptionGroup(title: "Recording")
    var recording: RecordOptions

    @ArgumentParser.Flag(
        help: ArgumentHelp(
            "With --record: when the broadcast stops, also save the recording as one MP4 (recording.mp4 in its folder; no re-encode, index at the front)."
        ))
    var recordMP4 = false

    @OptionGroup(title: "Recording")
    var rewind: DVROptions

    @OptionGroup(title: "HTTP server")
    var server: ServerOptions

    @OptionGroup(title: "HTTP server")
    var control: ControlOptions

    @OptionGroup(title: "Publishing to servers, S3, RTMP and SRT services")
    var push: PushOptions

    @OptionGroup(title: "Publishing to servers, S3, RTMP and SRT services")
    var serving: ServingSwitch

    @Option(help: ArgumentHelp("Stop by itself after this long (30s, 10m, 1h). Default: at Ctrl-C.", valueName: "time"))
    var duration: DurationValue?

    @Option(help: ArgumentHelp("How much to log.", valueName: "level"))
    var logLevel: Logger.Level = .info

    @Option(help: ArgumentHelp("How log lines look: text, or json (one object a line).", valueName: "format"))
    var logFormat = LogFormat.text

    func validate() throws {
        guard ChannelName(channel) != nil else {
            throw ValidationError("channel '\(channel)' must be \(ChannelName.rule)")
        }
        if recordMP4, recording.record == nil || recording.isObjectStorage {
            throw ValidationError(
                recording.isObjectStorage
                    ? "--record-mp4 is made from a recording on this machine's disk, not one in object storage"
                    : "--record-mp4 needs --record DIR: the MP4 is made from the recording")
        }
        if serving.noServe, push.destinations.isEmpty {
            throw ValidationError("--no-serve needs at least one --push destination: the stream would go nowhere")
        }
        if captions.captionsFrom != nil, sources.audio == "none" {
            throw ValidationError("--captions-from writes the broadcast's sound to its command: drop --audio none")
        }
        if rewind.dvr != nil, serving.noServe {
            throw ValidationError("--dvr needs the built-in server: viewers rewind through it (drop --no-serve)")
        }
        if let duration, duration.seconds <= 0 || duration.seconds > 366 * 86400 {
            throw ValidationError("--duration must be longer than zero and at most 366 days")
        }
        try encoding.validate(segmentDuration: output.segmentDuration, partDuration: output.lowLatencyPart)
        try checkCodecs()
        try checkNotPushingToItself()
        let target = output.segmentDuration.rounded(.up)
        guard Double(output.playlistSize) * output.segmentDuration >= 3 * target else {
            throw ValidationError(
                "--playlist-size \(output.playlistSize) of \(output.segmentDuration) s segments is too short: "
                    + "a live playlist holds at least 3 target durations (\(Int(3 * target)) s)")
        }
    }

    /// Each codec the broadcast encodes must be in this libavcodec and travel in its segments and
    /// to its destinations: AV1 is carried in fMP4 only (not MPEG-TS, RTMP's FLV or SRT's MPEG-TS).
    private func checkCodecs() throws {
        let request = try? encoding.renditions.map { try LadderRequest.parse($0) }
        var codecs = [encoding.codec]
        if case .rungs(let rungs) = request { codecs = rungs.map { $0.codec ?? encoding.codec } }
        for codec in Set(codecs).sorted(by: { $0.rawValue < $1.rawValue }) {
            let named = request == nil ? "--codec \(codec.rawValue)" : "the \(codec.rawValue) rendition"
            guard VideoEncoder.isAvailable(codec) else {
                throw ValidationError(
                    "\(named) needs libavcodec's \(codec.encoderName) encoder, which this libavcodec lacks: "
                        + "install one built with it, or publish in h264")
            }
            guard !codec.travelsInMPEGTSAndFLV else { continue }
            if output.format == .ts {
                throw ValidationError("\(named) is carried in fMP4 segments only: drop --format ts")
            }
            let destinations = (try? push.parsed(environment: ProcessInfo.processInfo.environment)) ?? []
            for case .packets(let link) in destinations {
                throw ValidationError(
                    "\(named) cannot go to --push \(link): RTMP and SRT carry h264 only; "
                        + "push fMP4 over HTTP or S3, or publish in h264")
            }
        }
    }

    /// A `--push` to this publisher's own server would never be taken (it is no origin): refused
    /// before anything starts.
    private func checkNotPushingToItself() throws {
        guard !serving.noServe else { return }
        try push.checkNotPushing(toHost: server.host, port: server.port) { base, port in
            "--push \(base) is this publisher's own server (port \(port)): push to an origin "
                + "(onair serve) on another port, or serve on another --port"
        }
    }

    /// `--channel`, as `validate()` found it.
    var channelName: ChannelName {
        guard let name = ChannelName(channel) else { preconditionFailure("--channel is checked by validate()") }
        return name
    }

    /// The broadcast this command describes.
    var broadcastConfiguration: BroadcastConfiguration {
        var config = BroadcastConfiguration()
        config.channel = channelName
        config.audio = sources.audio == "none" ? .none : .testTone
        let size = encoding.size ?? FrameSize(width: 1280, height: 720)
        config.width = size.width
        config.height = size.height
        config.fps = encoding.fps
        config.frameRate = encoding.frameRate
        config.videoBitrate = encoding.videoBitsPerSecond
        config.videoCodec = encoding.codec
        config.audioBitrate = encoding.audioBitrate.bitsPerSecond
        config.format = output.format
        config.segmentDuration = output.segmentDuration
        config.playlistSize = output.playlistSize
        config.partDuration = output.lowLatencyPart
        config.hlsDirectory = output.hlsDir
        config.recordDirectory = recording.folder?.path
        config.recordS3 = try? recording.s3Location(environment: ProcessInfo.processInfo.environment)
        config.recordMP4 = recordMP4
        config.recordKeep = recording.recordKeep
        config.recordMaxBytes = recording.recordMaxSize?.bytes
        config.captions = captions.settings
        config.dvrSeconds = rewind.dvr?.seconds
        config.dvrDirectory = rewind.dvr == nil ? nil : rewind.root.path
        config.push = (try? push.parsed(environment: ProcessInfo.processInfo.environment)) ?? []
        config.pushTrust = push.trust
        config.numberingRecord = StateFolder.path() + "/\(channel).numbering"
        config.serve = !serving.noServe
        config.duration = duration?.seconds
        config.reconnectTimeout = sources.reconnectTimeout.seconds
        config.server = ServerConfiguration(
            host: server.host, port: server.port, allowOrigin: server.allowOrigin, tls: server.tls,
            controlToken: (try? control.token(environment: ProcessInfo.processInfo.environment)) ?? "",
            viewerAccess: try? server.viewerAccess(environment: ProcessInfo.processInfo.environment),
            idleTimeout: server.idleTimeout.seconds,
            maxConnections: OpenFileLimit.connections(wanted: server.maxConnections))
        config.server.recordings = recording.folder
        config.server.pathways = (try? server.pathways()) ?? []
        return config
    }

    func run() async throws {
        LibavLog.silence()
        OpenFileLimit.raise()
        try Startup.checkListening(server, serves: !serving.noServe)
        var configuration = broadcastConfiguration
        Startup.settle(privateChannels: configuration.server.viewerAccess != nil)
        configuration.watermark = try watermark.load()
        let registry = Startup.bootstrap(logFormat: logFormat, logLevel: logLevel)
        let logger = Logger(label: "onair")
        let resolver = VideoSourceResolver(
            choice: sources.source, channel: channel, display: sources.display, cursor: !sources.noCursor,
            windowGrace: sources.windowGrace.seconds, size: encoding.size, quality: encoding.quality)
        // Said once every check has passed: a refusal stays one line.
        var notices: [String] = []
        let video = try resolver.resolve { notices.append($0) }
        configuration.video = video.input
        configuration.audio = try sources.resolveAudio(video: video) { notices.append($0) }
        configuration.width = video.output.width
        configuration.height = video.output.height
        if let renditions = encoding.renditions {
            try plan(
                renditions, capturedWidth: video.opened.capturedWidth, capturedHeight: video.opened.capturedHeight,
                into: &configuration
            ) {
                notices.append($0)
            }
        }
        // Last of the checks, as they are the only ones that write (the channel's folder, the token file).
        try checkOutputFolder()
        notices.append(try controlNotice(&configuration))
        if configuration.serve, let access = configuration.server.viewerAccess {
            notices.append(
                "the channel is private: the watch link works for \(Self.lifetime(access.lifetime)) or more; "
                    + "newer links from \(configuration.server.scheme)://\(configuration.server.displayHost):\(configuration.server.port)/api/channels "
                    + "with Authorization: Bearer <viewer token>")
        }
        if configuration.frameRate == .followsScreen {
            notices.append(
                configuration.constantRateReason.map { "every frame slot is encoded: \($0)" }
                    ?? "frames follow the screen: a still screen is encoded only where the stream needs a frame (--frame-rate constant for every slot)"
            )
        }
        for notice in notices where !notice.isEmpty { logger.notice("\(notice)") }
        let broadcast = Broadcast(configuration: configuration, video: video.opened, logger: logger, metrics: registry)
        try await broadcast.run(showStatus: isatty(STDERR_FILENO) == 1)
    }

    /// `--renditions`: the ladder planned for the captured size and this machine's cores.
    private func plan(
        _ renditions: String, capturedWidth: Int, capturedHeight: Int, into configuration: inout BroadcastConfiguration,
        notice: (String) -> Void
    ) throws {
        let ladder: RenditionLadder
        do {
            ladder = try RenditionLadder.plan(
                try LadderRequest.parse(renditions), sourceWidth: capturedWidth, sourceHeight: capturedHeight,
                cores: ProcessInfo.processInfo.activeProcessorCount, codec: configuration.videoCodec)
        } catch {
            throw UsageError(message: error.description)
        }
        for skipped in ladder.skipped { notice("rendition \(skipped): left out") }
        notice(
            "publishing \(ladder.rungs.count) rendition\(ladder.rungs.count == 1 ? "" : "s"): "
                + ladder.rungs.map {
                    "\($0.id) \($0.width)x\($0.height) at \(Bitrate(bitsPerSecond: $0.videoBitrate))"
                        + ($0.codec == .standard ? "" : " in \($0.codec.rawValue)")
                }
                .joined(separator: ", "))
        configuration.width = ladder.rungs[0].width
        configuration.height = ladder.rungs[0].height
        configuration.videoBitrate = ladder.rungs[0].videoBitrate
        configuration.videoCodec = ladder.rungs[0].codec
        configuration.ladder = ladder.isLadder ? ladder.rungs : []
    }

    /// How to pause and resume: the signals without a server; with one, the control API and the
    /// file of its token (made here when none was given). The token itself is not logged: logs are
    /// often shared; its file is the user's own (0600).
    private func controlNotice(_ configuration: inout BroadcastConfiguration) throws -> String {
        if serving.noServe {
            // No server, no control API: the signals still pause and resume.
            return "no built-in server: pause with kill -USR1 \(getpid()), resume with -USR2"
        }
        let file = ControlToken.file(channel: channel)
        guard configuration.server.controlToken.isEmpty else { return "" }
        configuration.server.controlToken = ControlToken.random()
        do {
            try ControlToken.write(configuration.server.controlToken, to: file)
        } catch {
            throw UsageError(
                message: "cannot write the control token to \(file.path) (\(error)); give one with --control-token")
        }
        return "control token in \(file.path): "
            + "curl -X POST -H \"Authorization: Bearer $(cat \(file.path))\" "
            + "\(configuration.server.apiURL(channel: channelName))/pause (or kill -USR1 \(getpid()); -USR2 resumes)"
    }

    /// `1 h`, `30 min`, `90 s`.
    static func lifetime(_ seconds: Int) -> String {
        seconds % 3600 == 0 ? "\(seconds / 3600) h" : seconds % 60 == 0 ? "\(seconds / 60) min" : "\(seconds) s"
    }

    /// The --hls-dir folder must be writable (this creates the channel's folder).
    func checkOutputFolder() throws {
        if let folder = output.hlsDir {
            do {
                try DirectoryMirror.checkWritable(root: URL(fileURLWithPath: folder), channel: channelName)
            } catch {
                throw UsageError(message: "--hls-dir \(folder) is not writable; choose a folder you can write to")
            }
        }
        try recording.checkWritable(channel: channel)
        try rewind.checkWritable()
    }
}
