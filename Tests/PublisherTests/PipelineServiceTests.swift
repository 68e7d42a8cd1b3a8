import Capture
import Encoding
import HLS
import HLSModel
import Logging
import Media
import Runtime
import Synchronization
import Testing

@testable import Publisher

/// The media pipeline as its Service runs it: every stage on its own thread, the end of the
/// stream travelling down behind the last frame, and a stage that fails stopping the others.
/// Real stages (the test pattern and tone, x264, AAC, the packager) at a small size.
@Suite struct PipelineServiceTests {
    /// One broadcast's stages, as `Broadcast.run` assembles them, and what the pipeline fills.
    struct Assembly {
        let pipeline: PipelineService
        let stores: [LiveStore]
        let stats: BroadcastStats
        let finished: Flag

        /// `replacing`: a picture source to capture instead of the test pattern.
        init(
            _ config: BroadcastConfiguration, stopAfter seconds: Double,
            replacing source: sending (any VideoSource)? = nil
        ) throws {
            let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            let hub = EventHub(channel: config.channel, logger: logger)
            let stop = StopSignal(after: seconds)
            let pause = PauseSwitch()
            let clock = MediaClock.start()
            let audioEncoder = try AudioEncoder(bitrate: config.audioBitrate, track: TrackID(1))
            let plan = BroadcastPlan(config, report: hub.reporter)
            let renditions = try BroadcastRenditions(
                .init(
                    config: config, plan: plan, clock: clock,
                    numbering: EpochNumbering.start(
                        at: clock.anchorWallMilliseconds, segmentDuration: config.segmentDuration, after: nil),
                    audioStream: audioEncoder.stream,
                    board: plan.isLadder ? LadderBoard(renditions: plan.outputs) : nil, markers: MarkerBook(),
                    captions: nil, report: hub.reporter, logger: logger))
            let sources = try BroadcastSources(
                config: config, video: .testPattern, audioEncoder: audioEncoder, clock: clock, stop: stop, pause: pause,
                hub: hub,
                logger: logger)
            var capture = sources.capture
            if let source, let original = sources.capture.take() {
                original.source.close()
                capture = Handoff(CaptureStage(pacer: original.pacer, source: source))
            }
            let stats = BroadcastStats(renditions: config.ladder.map(\.id))
            let finished = Flag()
            pipeline = PipelineService(
                .init(
                    capture: capture, keyframeInterval: config.keyframeInterval,
                    partSlots: config.cadence.configuration.partSlots, renditions: renditions.stages,
                    sound: sources.sound, audioPackaging: renditions.audioPackaging),
                thumbnailer: sources.thumbnailer, sinks: renditions.sinks, packetSinks: renditions.packetSinks,
                captioner: nil, stop: stop, pause: pause, clock: clock, stats: stats, logger: logger,
                report: hub.reporter
            ) { finished.set() }
            stores = renditions.stores
            self.stats = stats
            self.finished = finished
        }
    }

    static func small() -> BroadcastConfiguration {
        var config = BroadcastConfiguration()
        config.width = 320
        config.height = 180
        config.fps = 10
        config.videoBitrate = 300_000
        config.segmentDuration = 1
        config.serve = false
        return config
    }

    @Test func aStopEndsEveryPlaylistAfterItsLastCompleteSegment() async throws {
        let assembly = try Assembly(Self.small(), stopAfter: 2.5)
        try await assembly.pipeline.run()
        #expect(assembly.finished.isSet)
        let timeline = try #require(assembly.stores.first).timeline
        #expect(timeline.ended)
        // 2.5 s in 1 s segments: two whole ones and the half cut at the stop (the pacer skips the
        // slots of a machine too busy to keep time, so the last may hold none), each from a keyframe.
        #expect((2...3).contains(timeline.segments.count))
        #expect(timeline.segments.allSatisfy { $0.iFrame != nil && !$0.bytes.isEmpty })
        let listed = timeline.segments.reduce(0) { $0 + $1.duration }
        #expect(listed > 1.9 && listed < 2.65, "listed \(listed) s")
        #expect(assembly.stats.framesEncoded.current >= timeline.segments.count)
    }

    @Test func aLaddersRungsAndItsSoundEndTogether() async throws {
        var config = Self.small()
        config.ladder = [
            RenditionLadder.Rung(id: "180p", width: 320, height: 180, videoBitrate: 300_000, codec: .standard),
            RenditionLadder.Rung(id: "90p", width: 160, height: 90, videoBitrate: 100_000, codec: .standard),
        ]
        let assembly = try Assembly(config, stopAfter: 2.2)
        try await assembly.pipeline.run()
        // Two video rungs and the sound in a rendition of its own, cut on the same grid.
        #expect(assembly.stores.count == 3)
        let timelines = assembly.stores.map(\.timeline)
        #expect(timelines.allSatisfy { $0.ended })
        // The rungs take the same pictures: the same segments. The sound is cut on the same grid
        // from the same start (its last segment may hold sound where a busy machine skipped pictures).
        let video = timelines.prefix(2).map { $0.segments.map(\.sequence) }
        let sound = timelines[2].segments.map(\.sequence)
        #expect(video[0] == video[1])
        #expect(sound.first == video[0].first && abs(sound.count - video[0].count) <= 1)
    }

    /// A source that fails after a few pictures.
    final class FailingSource: VideoSource {
        struct Gone: Error {}
        let width = 320
        let height = 180
        private let pattern: TestPattern
        private var pictures = 0

        init(clock: MediaClock) throws {
            pattern = try TestPattern(width: width, height: height, fps: 10, clock: clock)
        }

        func capture(index: Int64, at seconds: Double) throws -> CapturedPicture? {
            pictures += 1
            guard pictures <= 5 else { throw Gone() }
            return try pattern.capture(index: index, at: seconds)
        }
    }

    @Test func aStageThatFailsStopsTheOthersAndTheServiceThrows() async throws {
        let assembly = try Assembly(
            Self.small(), stopAfter: 60, replacing: try FailingSource(clock: MediaClock.start()))
        await #expect(throws: FailingSource.Gone.self) { try await assembly.pipeline.run() }
        // The encoders and packagers were unblocked: run returned long before the 60 s stop.
        #expect(assembly.finished.isSet)
    }
}
