import Runtime
import Capture
import Encoding
import Logging
import Media

/// A broadcast's sources: the picture (the test pattern, an X screen, window or region, or a
/// Wayland desktop through the portal) with the pacer that stamps the watermark and hands the
/// encoders their slots, the sound (the test tone, or one or two capture devices mixed) with its
/// encoder, each ready for its thread; and the thumbnailer.
struct BroadcastSources: Sendable {
    /// The picture and its pacer.
    let capture: Handoff<CaptureStage>
    /// The sound and its encoder; nil without sound.
    let sound: Handoff<AudioEncodingStage>?
    /// What the pacer counts, read while it runs.
    let pacing: Pacer.Counts
    /// What capturing the picture costs, for sources that read a screen.
    let work: CaptureWork?
    let overlay: WatermarkOverlay?
    let thumbnailer: Thumbnailer

    init(
        config: BroadcastConfiguration, audioEncoder: sending AudioEncoder?, clock: MediaClock, stop: StopSignal,
        pause: PauseSwitch, hub: EventHub, logger: Logger
    ) throws {
        let overlay = config.watermark.map {
            WatermarkOverlay(
                image: $0.image, placement: $0.placement, frameWidth: config.width, frameHeight: config.height)
        }
        if let overlay, overlay.fitted {
            logger.warning("the watermark is larger than the \(config.width)x\(config.height) picture: shrunk to fit")
        }
        self.overlay = overlay
        let pacer = Pacer(
            fps: config.fps, clock: clock, pause: pause, cadence: config.cadence,
            prepare: overlay.map { overlay in { overlay.apply(to: $0) } })
        let video: any VideoSource =
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
        let audio: (any AudioSource)? =
            switch config.audio {
            case .testTone: ToneSource(clock: clock, stop: stop)
            case .none: nil
            case .capture(let device, let gain, let mix, let mixGain):
                try Self.capture(
                    device: device, gain: gain, mix: mix, mixGain: mixGain, clock: clock, stop: stop,
                    report: hub.reporter, logger: logger)
            }
        thumbnailer = Thumbnailer(fps: config.fps)
        pacing = pacer.counts
        work = video.work
        capture = Handoff(CaptureStage(pacer: pacer, source: video))
        sound =
            if let audio, let audioEncoder { Handoff(AudioEncodingStage(source: audio, encoder: audioEncoder)) } else {
                nil
            }
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

    /// What stamping the watermark cost, once the broadcast is over.
    func reportWatermark(logger: Logger) {
        guard overlay != nil, pacing.captured.current > 0 else { return }
        let microseconds = Double(pacing.preparing.current) / Double(pacing.captured.current) / 1000
        logger.info(
            "watermark: \(pacing.captured.current) frames stamped, \(String(fixed: microseconds, decimals: 1)) µs each, \(String(fixed: Double(pacing.preparing.current) / 1e9, decimals: 3)) s in all"
        )
    }
}
