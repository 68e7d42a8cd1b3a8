import Capture
import Encoding
import Foundation
import HLS
public import Logging
import Media
public import Prometheus
import Push
import Server
import ServiceLifecycle

/// One broadcast: the media pipeline and the HTTP server run as Services in one ServiceGroup,
/// with one graceful shutdown on SIGINT/SIGTERM or when the set duration is reached.
public final class Broadcast: Sendable {
    public let configuration: BroadcastConfiguration
    private let logger: Logger
    /// Where `/metrics` reads from; nil serves no `/metrics`.
    private let metrics: PrometheusCollectorRegistry?

    public init(configuration: BroadcastConfiguration, logger: Logger, metrics: PrometheusCollectorRegistry? = nil) {
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
    }

    /// A capture device, or two mixed.
    private static func capture(
        device: SoundDevice, gain: Double, mix: SoundDevice?, mixGain: Double, clock: MediaClock, stop: StopSignal,
        report: @escaping EventReporter, logger: Logger
    ) throws -> any AudioSource {
        let warn: @Sendable (String) -> Void = { logger.warning("\($0)") }
        let log: @Sendable (String) -> Void = { logger.info("\($0)") }
        let primary = try device.open(clock: clock, stop: stop, report: report, warn: warn, log: log)
        guard let mix else { return gain == 0 ? primary : try AudioMixer(primary: primary, primaryGain: gain) }
        let secondary = try mix.open(clock: clock, stop: stop, report: report, warn: warn, log: log)
        return try AudioMixer(primary: primary, primaryGain: gain, secondary: secondary, secondaryGain: mixGain)
    }

    /// Builds every stage, then runs until stopped. A clean stop lists the last segment and
    /// writes EXT-X-ENDLIST before returning.
    public func run(showStatus: Bool) async throws {
        let config = configuration
        let stop = StopSignal(after: config.duration)
        let stats = BroadcastStats(renditions: config.ladder.map(\.id))
        let pause = PauseSwitch()
        let hub = EventHub(channel: config.channel, logger: logger)

        let audioEncoder =
            config.audio == .none ? nil : try AudioEncoder(bitrate: config.audioBitrate, track: TrackID(1))
        let rungs = config.renditions
        let isLadder = rungs.count > 1
        // A ladder in fMP4 carries its sound once, in an audio rendition every video rendition names
        // (EXT-X-MEDIA): a player switching video keeps its sound, and no rung repeats it. In TS, and
        // for one rendition, the sound is muxed in.
        let sharedAudio = isLadder && config.format == .fmp4 ? audioEncoder : nil
        let outputs = rungs.map(\.id) + (sharedAudio == nil ? [] : [Rendition.audioID])
        let board = isLadder ? LadderBoard(renditions: outputs) : nil
        let root = config.hlsDirectory.map { URL(fileURLWithPath: $0) }
        // A restart of the channel on the same folder goes on from where the last run stopped; a
        // ladder only when every rendition's folder agrees on where, so their numbers stay matched.
        var previous = outputs.map { id in
            root.flatMap {
                DirectoryMirror.previousRun(root: $0, channel: config.channel, rendition: isLadder ? id : nil)
            }
        }
        if isLadder,
            Set(previous.map { $0.map { $0.playlist.mediaSequence + $0.playlist.segments.count } ?? -1 }).count != 1
        {
            previous = outputs.map { _ in nil }
        }
        let destinations = config.destinations(report: hub.reporter)
        // The recordings: on disk a new folder, or the one a killed broadcast left unfinished,
        // continued (planned now: its folder is said before the broadcast starts); in object
        // storage a new one each broadcast, under its start time.
        let recordings = destinations.run(
            of: config.channel, renditions: isLadder ? outputs.map { $0 } : [nil], format: config.format,
            startedAt: MediaClock.wallMilliseconds())
        let recording = recordings?.disk?.resolved
        // The broadcast's clock starts once what reads the disk (an earlier run, the recording's plan)
        // is done: a slow disk delays the start, never the first frames.
        let earlierStart = config.numberingRecord.flatMap {
            (try? String(contentsOfFile: $0, encoding: .utf8)).flatMap(EpochNumbering.Start.init(text:))
        }
        let clock = MediaClock.start()
        if let address = recordings?.cloudAddress { logger.notice("recording to \(address)") }
        if let recording {
            logger.notice(
                recording.continuing.isEmpty
                    ? "recording to \(recording.folder.path)"
                    : "continuing the recording in \(recording.folder.path): the broadcast before did not stop cleanly")
        }
        // The rewind window: scratch space on disk, one folder per rendition, removed at the end.
        let dvr = try destinations.rewind.map {
            try DVRFolder.make(root: $0.root, channel: config.channel, seconds: $0.seconds)
        }
        if let dvr {
            logger.notice(
                "viewers can rewind \(DVRFolder.describe(seconds: dvr.seconds)); the window is kept in \(dvr.url.path)")
        }
        // Every rendition numbers its segments from the broadcast's start on the epoch: the same
        // names wherever the stream is served, never a name an earlier run gave.
        let numbering = EpochNumbering.start(
            at: clock.anchorWallMilliseconds, segmentDuration: config.segmentDuration, after: earlierStart)
        Self.keep(numbering, config: config, logger: logger)
        let firstSequence = numbering.sequence
        var stages: [RenditionStages] = []
        var audioPackaging: PackagingStage?
        var stores: [LiveStore] = []
        var sinks: [SinkRunner] = []
        var pushSinks: [PushSink] = []
        var topTracks: [StreamDescription] = []
        for (number, id) in outputs.enumerated() {
            let rung = number < rungs.count ? rungs[number] : nil
            let videoEncoder = try rung.map { rung in
                try VideoEncoder(
                    settings: VideoEncoderSettings(
                        width: rung.width, height: rung.height, fps: config.fps, bitrate: rung.videoBitrate,
                        keyframeInterval: config.keyframeInterval),
                    track: TrackID(0))
            }
            let rendition: Rendition
            let tracks: [StreamDescription]
            if let rung, let videoEncoder {
                tracks = [videoEncoder.stream] + (sharedAudio == nil ? audioEncoder.map { [$0.stream] } ?? [] : [])
                rendition = Rendition(
                    id: rung.id, width: rung.width, height: rung.height, fps: config.fps,
                    videoBitrate: rung.videoBitrate,
                    audioBitrate: audioEncoder == nil || sharedAudio != nil ? 0 : config.audioBitrate,
                    codecs: tracks.map(\.codecString))
            } else {
                tracks = sharedAudio.map { [$0.stream] } ?? []
                rendition = .audio(
                    bitrate: config.audioBitrate, codecs: tracks.map(\.codecString), channels: AudioEncoder.channels)
            }
            if number == 0 { topTracks = [videoEncoder!.stream] + (audioEncoder.map { [$0.stream] } ?? []) }
            let timeline = Timeline(
                configuration: .init(
                    channel: config.channel, rendition: rendition, format: config.format,
                    segmentDuration: config.segmentDuration, playlistSize: config.playlistSize,
                    partDuration: config.partDuration),
                continuing: previous[number], firstSequence: firstSequence)
            if number == 0, previous[number] == nil {
                logger.notice(
                    "numbering segments from \(firstSequence) (the broadcast's start on the epoch): the same names wherever it is served"
                )
            }
            if number == 0, let earlier = previous[number] {
                let (first, kept) = timeline.continuation
                logger.notice(
                    "continuing channel \(config.channel) after an earlier run: its next segment is \(first)\(kept > 0 ? ", after \(kept) of the earlier run's (EXT-X-DISCONTINUITY between)" : "")\(earlier.playlist.ended ? "" : "; the earlier run did not stop cleanly")"
                )
            }
            let store = LiveStore(timeline: timeline, startedAt: clock.anchorWallMilliseconds)
            let folder = isLadder ? id : nil
            let mirror = root.map {
                DirectoryMirror(
                    root: $0, channel: config.channel, rendition: folder, writesIndex: number == 0,
                    earlier: previous[number], report: hub.reporter)
            }
            // Each sink on its own thread: the live store viewers read, the folder, and where the
            // channel's destinations send it (pushes, the rewind window, recordings).
            let sent =
                destinations.lastingSinks(of: config.channel, rendition: folder, writesIndex: number == 0)
                + (recordings?.sinks(rendition: folder, writesIndex: number == 0, after: nil) ?? [])
            let runners = [SinkRunner(store)] + (mirror.map { [SinkRunner($0)] } ?? []) + sent.map { SinkRunner($0) }
            // The audio rendition is cut on the same grid, at the first AAC frame on or after each point.
            let segmenter =
                rung == nil
                ? Segmenter.Configuration(
                    segmentDuration: config.segmentDuration, partDuration: config.partDuration,
                    frameDuration: Double(AudioEncoder.samplesPerFrame) / Double(AudioEncoder.sampleRate),
                    cutsOn: .audio)
                : Segmenter.Configuration(
                    segmentDuration: config.segmentDuration, partDuration: config.partDuration,
                    frameDuration: 1 / Double(config.fps))
            let packaging = try PackagingStage(
                timeline: timeline, tracks: tracks, segmenter: segmenter, clock: clock, sinks: runners, board: board)
            if let rung, let videoEncoder {
                stages.append(
                    RenditionStages(
                        id: rung.id,
                        scaler: number == 0 ? nil : try RungScaler(width: rung.width, height: rung.height),
                        encoder: videoEncoder, packaging: packaging))
            } else {
                audioPackaging = packaging
            }
            stores.append(store)
            sinks += runners
            pushSinks += sent.compactMap { $0 as? PushSink }
        }
        let store = stores[0]
        let packetSinks = config.push.compactMap { destination -> (any PacketSink)? in
            guard case .packets(let link) = destination else { return nil }
            return PacketPusher(link: link, channel: config.channel, streams: topTracks, report: hub.reporter)
        }
        let logger = self.logger

        let overlay = config.watermark.map {
            WatermarkOverlay(
                image: $0.image, placement: $0.placement, frameWidth: config.width, frameHeight: config.height)
        }
        if let overlay, overlay.fitted {
            logger.warning("the watermark is larger than the \(config.width)x\(config.height) picture: shrunk to fit")
        }
        let pacer = Pacer(
            fps: config.fps, clock: clock, pause: pause, cadence: config.cadence,
            prepare: overlay.map { overlay in { overlay.apply(to: $0) } })
        let videoSource: any VideoSource =
            switch config.video {
            case .testPattern:
                try TestPattern(width: config.width, height: config.height, fps: config.fps, clock: clock)
            case .screen(let display, let target, let cursor, let windowGrace):
                try ScreenSource(
                    display: display, target: target, outputWidth: config.width, outputHeight: config.height,
                    cursor: cursor, windowGrace: windowGrace, reconnectTimeout: config.reconnectTimeout, stop: stop,
                    warn: { logger.warning("\($0)") },
                    report: hub.reporter)
            case .portal(let capture, let region):
                try PortalSource(
                    capture: capture, region: region, outputWidth: config.width, outputHeight: config.height,
                    stop: stop, report: hub.reporter)
            }
        let audioSource: (any AudioSource)? =
            switch config.audio {
            case .testTone: ToneSource(clock: clock, stop: stop)
            case .none: nil
            case .capture(let device, let gain, let mix, let mixGain):
                try Self.capture(
                    device: device, gain: gain, mix: mix, mixGain: mixGain, clock: clock, stop: stop,
                    report: hub.reporter, logger: logger)
            }
        let thumbnailer = Thumbnailer(fps: config.fps)
        let control = BroadcastControl(
            channel: config.channel, pause: pause, stop: stop, clock: clock, hub: hub, pacer: pacer, stats: stats,
            store: store, work: videoSource.work)
        let pipeline = PipelineService(
            pacer: pacer, videoSource: videoSource, renditions: stages, audioSource: audioSource,
            audioEncoder: audioEncoder, audioPackaging: audioPackaging, thumbnailer: thumbnailer, sinks: sinks,
            packetSinks: packetSinks, stop: stop,
            pause: pause,
            clock: clock,
            stats: stats, logger: logger, report: hub.reporter
        ) {
            // Its last number, for the next start's (a run that went on from its folder's numbers
            // stayed below its start on the epoch).
            var stopped = numbering
            stopped.lastSequence = max(store.timeline.lastSequence, numbering.sequence - 1)
            Self.keep(stopped, config: config, logger: logger)
            // Said while the server still answers, so the events stream carries it.
            let counts = control.statistics()
            hub.report(
                .stopped,
                "stopped channel \(config.channel): \(counts.segmentsOut) segments, \(counts.framesCaptured) frames captured, \(counts.framesRepeated) repeated, \(counts.framesDropped) dropped, \(counts.framesEncoded) encoded"
                    + (counts.renditions ?? []).map {
                        "; \($0.id): \($0.framesEncoded) encoded, \($0.framesDropped) dropped, \($0.framesShed) repeated to keep up"
                    }.joined()
            )
            hub.finish()
        }
        let viewers = ViewerRegistry()
        let metricsEndpoint = metrics.map { registry in
            let counts = BroadcastMetrics(control: control) {
                viewers.count(
                    channel: config.channel, at: Double(MediaClock.monotonicNanoseconds()) / 1e9,
                    window: store.viewerWindow)
            }
            return MetricsEndpoint(registry: registry, refresh: counts.refresh)
        }
        let url = config.server.watchURL(channel: config.channel)
        // Hummingbird's own info lines ("Server started and listening…", "Shutting down") repeat what
        // the events say; they show from --log-level debug, its warnings and errors always.
        var serverLogger = logger
        if serverLogger.logLevel == .info { serverLogger.logLevel = .notice }
        // Said once the server answers, so the address it gives can be opened at once.
        let registry = ChannelRegistry()
        registry.add(
            isLadder ? LiveLadder(stores: stores) : store, control: control,
            thumbnail: ThumbnailSource(
                isReady: { thumbnailer.hasPicture },
                jpeg: { [logger] in
                    do { return try thumbnailer.jpeg() } catch {
                        logger.warning("the thumbnail could not be made: \(error)")
                        return nil
                    }
                }), dvr: dvr)
        let pushing =
            config.push.isEmpty ? "" : ", pushing to \(config.push.map(\.description).joined(separator: ", "))"
        let server = try HTTPServer.application(
            registry: registry, viewers: viewers, metrics: metricsEndpoint,
            configuration: config.server, logger: serverLogger
        ) {
            hub.report(
                .started,
                "publishing channel \(config.channel): watch at \(url), playlist \(config.server.playlistURL(channel: config.channel))\(pushing)"
            )
        }
        let status = StatusReporter(
            store: store, stats: stats, url: config.serve ? url : "",
            destinations: pushSinks.map(\.status) + packetSinks.map(\.status), paused: pause,
            interactive: showStatus, report: hub.reporter, logger: logger)
        // Shutdown runs in reverse order: the pipeline finishes its last segment while the server still answers,
        // and the server stays while viewers fetch the end of the stream.
        let serving: [ServiceGroupConfiguration.ServiceConfiguration] =
            config.serve
            ? [
                .init(service: server),
                .init(
                    service: EndOfStreamGrace(
                        channel: config.channel, viewers: viewers, idle: config.segmentDuration,
                        limit: Double(config.playlistSize + 1) * config.segmentDuration, logger: logger)),
            ] : []
        if !config.serve {
            hub.report(.started, "publishing channel \(config.channel) without the built-in server\(pushing)")
        }
        let group = ServiceGroup(
            configuration: .init(
                services: serving + [
                    .init(service: status),
                    .init(service: ControlSignals(control: control)),
                    .init(service: pipeline, successTerminationBehavior: .gracefullyShutdownGroup),
                ],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: Logger(label: "onair.services", factory: { _ in SwiftLogNoOpLogHandler() })))
        try await group.run()
        dvr?.remove()
        if config.recordMP4, let recording { Self.saveMP4(of: recording.folder, logger: logger) }
        if overlay != nil, pacer.captured.current > 0 {
            let microseconds = Double(pacer.preparing.current) / Double(pacer.captured.current) / 1000
            logger.info(
                "watermark: \(pacer.captured.current) frames stamped, \(String(fixed: microseconds, decimals: 1)) µs each, \(String(fixed: Double(pacer.preparing.current) / 1e9, decimals: 3)) s in all"
            )
        }
    }

    /// `--record-mp4`, once the recording's playlists are final: said as it goes, as it can take a while.
    private static func saveMP4(of folder: URL, logger: Logger) {
        logger.notice("saving the recording as an MP4 in \(folder.path)")
        let started = MediaClock.monotonicNanoseconds()
        do {
            let summary = try RecordingExport.mp4(recording: folder) { done in
                if done < 1 { logger.info("saving the MP4: \(Int(done * 100)) %") }
            }
            let seconds = Double(MediaClock.monotonicNanoseconds() - started) / 1e9
            logger.notice(
                "saved \(summary.file.path): \(String(fixed: summary.seconds, decimals: 1)) s, \(summary.videoFrames) frames, \(String(fixed: Double(summary.bytes) / 1e6, decimals: 1)) MB (in \(String(fixed: seconds, decimals: 1)) s)"
            )
        } catch {
            logger.error(
                "the recording in \(folder.path) could not be saved as an MP4: \(error); its HLS playlist plays as it is"
            )
        }
    }

    /// Keeps the channel's numbering (``EpochNumbering/Start``) for its next start: at the start,
    /// before the first frame, and with its last number once it has stopped. A folder that cannot
    /// keep it costs only the guarantee for a restart within one segment.
    private static func keep(_ start: EpochNumbering.Start, config: BroadcastConfiguration, logger: Logger) {
        guard let record = config.numberingRecord else { return }
        let file = URL(fileURLWithPath: record)
        do {
            // onair's state folder is private, as for the control token (0700).
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700])
            try Data(start.text.utf8).write(to: file, options: .atomic)
        } catch {
            logger.warning(
                "could not keep the channel's numbering in \(record) (\(error.localizedDescription)): a restart within one segment may reuse its last segment number"
            )
        }
    }
}
