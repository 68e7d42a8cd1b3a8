public import Runtime
public import Capture
import Encoding
import Logging
import Media

/// A broadcast's sources: the picture (the test pattern, an X screen, window or region, or a
/// Wayland desktop through the portal: the ``OpenedVideo`` opened from the configuration's
/// description before the broadcast) with the pacer that stamps the watermark and hands the
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

    /// `video`: `config.video` opened (``OpenedVideo/init(opening:remembered:say:)``).
    init(
        config: BroadcastConfiguration, video opened: OpenedVideo, audioEncoder: sending AudioEncoder?,
        clock: MediaClock, stop: StopSignal, pause: PauseSwitch, hub: EventHub, logger: Logger
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
            switch opened.source {
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

/// A picture source opened and checked, before anything of the broadcast starts: the X
/// connection and what of it is captured, or the portal's stream, or the test pattern. What the
/// command line reads of it (the size captured, the display, the shared window) is here; the
/// broadcast's sources take it (``BroadcastSources``) and make its capture stage.
public struct OpenedVideo: Sendable {
    enum Source: Sendable {
        case testPattern
        case screen(X11Display, ScreenSource.Target, cursor: Bool, windowGrace: Double)
        case portal(PortalCapture, region: PixelRect?)
    }

    let source: Source
    /// The size of what is captured: the screen, the region or the window; the test pattern's.
    public let capturedWidth: Int
    public let capturedHeight: Int
    /// The X display's name, for a screen, a region or a window of it.
    public let displayName: String?
    /// The shared window (`--source window:…`) and the process it names (`_NET_WM_PID`), if any.
    public let window: (id: UInt, process: Int?)?
    /// The portal's whole picture, before a region is cut from it.
    public let portalWidth: Int?
    public let portalHeight: Int?

    /// The test pattern, whose pictures are 1280x720 before they are fitted.
    public static let testPattern = OpenedVideo(
        source: .testPattern, capturedWidth: 1280, capturedHeight: 720, displayName: nil, window: nil,
        portalWidth: nil, portalHeight: nil)
}

extension OpenedVideo {
    /// Opens and checks `input`: the X display and the window or region on it, or the desktop's
    /// ScreenCast portal (whose dialog may be shown; `remembered` keeps the user's choice, `say`
    /// tells what it waits for). Throws before anything of the broadcast has started.
    public init(
        opening input: BroadcastConfiguration.VideoInput, remembered: RestoreTokenStore?, say: (String) -> Void
    ) throws(CaptureError) {
        switch input {
        case .testPattern:
            self = .testPattern
        case .screen(let name, let area, let cursor, let windowGrace):
            let display = try X11Display(name: name)
            let screen = PixelRect(x: 0, y: 0, width: display.screenWidth, height: display.screenHeight)
            let target: ScreenSource.Target
            let captured: PixelRect
            var window: (id: UInt, process: Int?)?
            switch area {
            case .whole:
                (target, captured) = (.screen, screen)
            case .region(let rect):
                guard rect.clipped(to: screen) == rect else {
                    throw .regionOutsideScreen(rect.description, screenWidth: screen.width, screenHeight: screen.height)
                }
                (target, captured) = (.region(rect), rect)
            case .window(let query):
                let found = try display.window(matching: query)
                (target, captured) = (
                    .window(found.id), PixelRect(x: 0, y: 0, width: found.width, height: found.height)
                )
                window = (found.id, display.processID(of: found.id))
            }
            self.init(
                source: .screen(display, target, cursor: cursor, windowGrace: windowGrace),
                capturedWidth: captured.width, capturedHeight: captured.height, displayName: display.name,
                window: window, portalWidth: nil, portalHeight: nil)
        case .portal(let kind, let region, let cursor):
            let capture = try ScreenCastPortal.open(kind, cursor: cursor, remembered: remembered, notice: say)
            let shared = PixelRect(x: 0, y: 0, width: capture.width, height: capture.height)
            if let region, region.clipped(to: shared) != region {
                throw .regionOutsideScreen(region.description, screenWidth: shared.width, screenHeight: shared.height)
            }
            let captured = region ?? shared
            self.init(
                source: .portal(capture, region: region), capturedWidth: captured.width,
                capturedHeight: captured.height, displayName: nil, window: nil, portalWidth: capture.width,
                portalHeight: capture.height)
        }
    }
}
