import Capture
import Encoding
import FoundationEssentials
import HLS
import Packaging
import HLSModel
public import Logging
import Media
public import Prometheus
import Push
import Runtime
import Server
import ServiceLifecycle
import UnixSignals

/// One broadcast: the media pipeline and the HTTP server run as Services in one ServiceGroup,
/// with one graceful shutdown on SIGINT/SIGTERM or when the set duration is reached.
public final class Broadcast: Sendable {
    public let configuration: BroadcastConfiguration
    private let logger: Logger
    /// Where `/metrics` reads from; nil serves no `/metrics`.
    private let metrics: PrometheusCollectorRegistry?

    /// The picture shared: `configuration.video` opened.
    private let video: OpenedVideo

    /// `video`: `configuration.video` as ``OpenedVideo/init(opening:remembered:say:)`` opened it.
    public init(
        configuration: BroadcastConfiguration, video: OpenedVideo, logger: Logger,
        metrics: PrometheusCollectorRegistry? = nil
    ) {
        self.configuration = configuration
        self.video = video
        self.logger = logger
        self.metrics = metrics
    }

    /// Plans the broadcast, assembles every stage, then runs until stopped. A clean stop lists
    /// the last segment and writes EXT-X-ENDLIST before returning.
    public func run(showStatus: Bool) async throws {
        let config = configuration
        let stop = StopSignal(after: config.duration)
        let pause = PauseSwitch()
        let hub = EventHub(channel: config.channel, logger: logger)
        let audioEncoder =
            config.audio == .none ? nil : try AudioEncoder(bitrate: config.audioBitrate, track: TrackID(1))
        let plan = BroadcastPlan(config, report: hub.reporter)
        let clock = MediaClock.start()
        plan.announce(logger: logger)
        // The rewind window: scratch space on disk, one folder per rendition, removed at the end.
        let dvr = plan.destinations.rewindWindow(of: config.channel)
        try dvr?.makeAnew(channel: config.channel)
        if let dvr {
            logger.notice(
                "viewers can rewind \(DVRFolder.describe(seconds: dvr.seconds)); the window is kept in \(dvr.url.path)")
        }
        // Every rendition numbers its segments from the broadcast's start on the epoch: the same
        // names wherever the stream is served, never a name an earlier run gave.
        let numbering = EpochNumbering.start(
            at: clock.anchorWallMilliseconds, segmentDuration: config.segmentDuration, after: plan.earlierStart)
        Self.keep(numbering, config: config, logger: logger)
        let markers = MarkerBook()
        let captions = config.captions.map { _ in CaptionBook() }
        let renditions = try BroadcastRenditions(
            .init(
                config: config, plan: plan, clock: clock, numbering: numbering, audioStream: audioEncoder?.stream,
                board: plan.isLadder ? LadderBoard(renditions: plan.outputs) : nil, markers: markers,
                captions: captions,
                report: hub.reporter,
                logger: logger))
        let sources = try BroadcastSources(
            config: config, video: video, audioEncoder: audioEncoder, clock: clock, stop: stop, pause: pause, hub: hub,
            logger: logger)
        let stats = BroadcastStats(renditions: config.ladder.map(\.id))
        let control = BroadcastControl(
            channel: config.channel, pause: pause, stop: stop, clock: clock, hub: hub, pacing: sources.pacing,
            stats: stats, store: renditions.store, work: sources.work, markers: markers,
            captions: captions, rewindSeconds: dvr?.seconds)
        let captioner: Captioner? =
            if let command = config.captions?.command, let captions {
                Captioner(command: command, book: captions, clock: clock, report: hub.reporter, logger: logger)
            } else {
                nil
            }
        let pipeline = PipelineService(
            .init(
                capture: sources.capture, keyframeInterval: config.keyframeInterval,
                partSlots: config.cadence.configuration.partSlots, renditions: renditions.stages, sound: sources.sound,
                audioPackaging: renditions.audioPackaging),
            thumbnailer: sources.thumbnailer, sinks: renditions.sinks, packetSinks: renditions.packetSinks,
            captioner: captioner, stop: stop, pause: pause, clock: clock, stats: stats, logger: logger,
            report: hub.reporter
        ) { [logger, store = renditions.store] in
            Self.stopped(
                numbering: numbering, store: store, control: control, hub: hub, config: config,
                logger: logger)
        }
        let services = try self.services(
            renditions: renditions, sources: sources, control: control, stats: stats, pause: pause, hub: hub,
            dvr: dvr, showStatus: showStatus)
        let group = ServiceGroup(
            configuration: .init(
                services: services + [.init(service: pipeline, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: Logger(label: "onair.services", factory: { _ in SwiftLogNoOpLogHandler() })))
        captioner?.start()
        try await group.run()
        captioner?.finish()
        dvr?.remove()
        if config.recordMP4, let recording = plan.recording { Self.saveMP4(of: recording.folder, logger: logger) }
        sources.reportWatermark(logger: logger)
    }

    /// What runs beside the pipeline, which shuts down first (in reverse order): the server and
    /// the grace that keeps it while viewers fetch the end of the stream, the status line and the
    /// control signals.
    private func services(
        renditions: BroadcastRenditions, sources: BroadcastSources, control: BroadcastControl,
        stats: BroadcastStats, pause: PauseSwitch, hub: EventHub, dvr: DVRFolder?, showStatus: Bool
    ) throws -> [ServiceGroupConfiguration.ServiceConfiguration] {
        let config = configuration
        let logger = self.logger
        let store = renditions.store
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
        let registry = ChannelRegistry()
        let thumbnailer = sources.thumbnailer
        registry.add(
            renditions.stores.count > 1 ? LiveLadder(stores: renditions.stores) : store, control: control,
            thumbnail: ThumbnailSource(
                isReady: { thumbnailer.hasPicture },
                jpeg: {
                    do { return try thumbnailer.jpeg() } catch {
                        logger.warning("the thumbnail could not be made: \(error)")
                        return nil
                    }
                }), dvr: dvr)
        let pushing =
            config.push.isEmpty ? "" : ", pushing to \(config.push.map(\.description).joined(separator: ", "))"
        // Said once the server answers, so the address it gives can be opened at once.
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
            destinations: renditions.pushes + renditions.packetSinks.map(\.status),
            paused: pause, interactive: showStatus, report: hub.reporter, logger: logger)
        guard config.serve else {
            hub.report(.started, "publishing channel \(config.channel) without the built-in server\(pushing)")
            return [
                .init(service: status), .init(service: ControlSignals(control: control)),
                .init(service: HeapTrimming(logger: logger)),
            ]
        }
        return [
            .init(service: server),
            .init(
                service: EndOfStreamGrace(
                    channel: config.channel, viewers: viewers, idle: config.segmentDuration,
                    limit: Double(config.playlistSize + 1) * config.segmentDuration, logger: logger)),
            .init(service: status),
            .init(service: ControlSignals(control: control)),
            .init(service: HeapTrimming(logger: logger)),
        ]
    }

    /// Once the pipeline has stopped: the channel's last number kept for its next start, and the
    /// broadcast's figures said while the server still answers (so the events stream carries them).
    private static func stopped(
        numbering: EpochNumbering.Start, store: LiveStore, control: BroadcastControl, hub: EventHub,
        config: BroadcastConfiguration, logger: Logger
    ) {
        // A run that went on from its folder's numbers stayed below its start on the epoch.
        var stopped = numbering
        stopped.lastSequence = max(store.timeline.lastSequence, numbering.sequence - 1)
        keep(stopped, config: config, logger: logger)
        let counts = control.statistics()
        hub.report(
            .stopped,
            "stopped channel \(config.channel): \(counts.segmentsOut) segments, \(counts.framesCaptured) frames captured, \(counts.framesRepeated) repeated, \(counts.framesDropped) dropped, \(counts.framesEncoded) encoded"
                + (counts.renditions ?? []).map {
                    "; \($0.id): \($0.framesEncoded) encoded, \($0.framesDropped) dropped, \($0.framesShed) held to keep up"
                }.joined()
        )
        hub.finish()
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
                "could not keep the channel's numbering in \(record) (\(error)): a restart within one segment may reuse its last segment number"
            )
        }
    }
}
