import Runtime
import Capture
import Encoding
import Logging
import Media

/// A broadcast's sources: the picture (the test pattern, an X screen, window or region, or a
/// Wayland desktop through the portal), the sound (the test tone, or one or two capture devices
/// mixed), the pacer that stamps the watermark and hands the encoders their slots, and the
/// thumbnailer.
struct BroadcastSources {
    let video: any VideoSource
    let audio: (any AudioSource)?
    let pacer: Pacer
    let overlay: WatermarkOverlay?
    let thumbnailer: Thumbnailer

    init(
        config: BroadcastConfiguration, clock: MediaClock, stop: StopSignal, pause: PauseSwitch, hub: EventHub,
        logger: Logger
    ) throws {
        overlay = config.watermark.map {
            WatermarkOverlay(
                image: $0.image, placement: $0.placement, frameWidth: config.width, frameHeight: config.height)
        }
        if let overlay, overlay.fitted {
            logger.warning("the watermark is larger than the \(config.width)x\(config.height) picture: shrunk to fit")
        }
        pacer = Pacer(
            fps: config.fps, clock: clock, pause: pause, cadence: config.cadence,
            prepare: overlay.map { overlay in { overlay.apply(to: $0) } })
        video =
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
        audio =
            switch config.audio {
            case .testTone: ToneSource(clock: clock, stop: stop)
            case .none: nil
            case .capture(let device, let gain, let mix, let mixGain):
                try Self.capture(
                    device: device, gain: gain, mix: mix, mixGain: mixGain, clock: clock, stop: stop,
                    report: hub.reporter, logger: logger)
            }
        thumbnailer = Thumbnailer(fps: config.fps)
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
        guard overlay != nil, pacer.captured.current > 0 else { return }
        let microseconds = Double(pacer.preparing.current) / Double(pacer.captured.current) / 1000
        logger.info(
            "watermark: \(pacer.captured.current) frames stamped, \(String(fixed: microseconds, decimals: 1)) µs each, \(String(fixed: Double(pacer.preparing.current) / 1e9, decimals: 3)) s in all"
        )
    }
}
