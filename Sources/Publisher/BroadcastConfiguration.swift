public import Capture
public import Encoding
import FoundationEssentials
import HLS
public import HLSModel
import Media
public import Push
public import Runtime
public import Server

/// Everything one broadcast needs, with the defaults a person going live expects.
/// The command line maps onto it; tests build it directly.
public struct BroadcastConfiguration: Sendable {
    /// The picture shared, as a description: ``OpenedVideo/init(opening:remembered:say:)`` opens it
    /// (the X connection, the portal's stream) and checks it before anything starts.
    public enum VideoInput: Sendable, Equatable {
        /// The built-in animated test pattern.
        case testPattern
        /// An X screen, a rectangle of it or a window, on a display (nil: `DISPLAY`'s).
        case screen(display: String?, area: ScreenArea, cursor: Bool, windowGrace: Double)
        /// A Wayland screen or window the user agrees to share through the ScreenCast portal, or a
        /// rectangle of it.
        case portal(ScreenCastPortal.Kind, region: PixelRect?, cursor: Bool)
    }

    /// What of an X screen is shared.
    public enum ScreenArea: Sendable, Equatable {
        case whole
        case region(PixelRect)
        /// A window by id (`0x400001` or decimal) or by title text.
        case window(String)
    }

    public enum AudioInput: Sendable, Equatable {
        /// The built-in tone with a beep every second.
        case testTone
        /// A capture device (ALSA, or PipeWire: an application's sound, a sink's monitor, a
        /// source), with a second one mixed in if given; gains in dB.
        case capture(device: SoundDevice, gain: Double, mix: SoundDevice?, mixGain: Double)
        /// No audio track.
        case none
    }

    public var channel: ChannelName = "demo"
    public var video = VideoInput.testPattern
    public var audio = AudioInput.testTone
    public var width = 1280
    public var height = 720
    public var fps = 30
    public var videoBitrate = 2_500_000
    /// `--codec`: the one rendition's video codec (a ladder's rungs each carry their own).
    public var videoCodec = VideoCodec.standard
    public var audioBitrate = 128_000
    public var format = ContainerFormat.fmp4
    public var segmentDuration = 2.0
    public var playlistSize = 6
    /// Low-Latency HLS part length; nil for plain HLS.
    public var partDuration: Double?
    /// Where to mirror the published files, if anywhere.
    public var hlsDirectory: String?
    /// `--record`: where the whole broadcast is kept.
    public var recordDirectory: String?
    /// `--record s3://…`: where the whole broadcast is kept in object storage instead.
    public var recordS3: PushDestination.S3Location?
    /// `--record-mp4`: also save the recording as one MP4 when the broadcast stops.
    public var recordMP4 = false
    /// `--record-keep` / `--record-max-size`: how many of the channel's recordings, and how many bytes, to keep.
    public var recordKeep: Int?
    public var recordMaxBytes: Int?
    /// `--dvr`: how many seconds viewers may rewind; nil: none.
    public var dvrSeconds: Double?
    /// `--dvr-dir`: where the rewind window is kept while the broadcast runs (default: the user's cache).
    public var dvrDirectory: String?
    /// Where else to send the stream: HTTP ingests, S3 buckets, RTMP and SRT services.
    public var push: [PushDestination] = []
    /// `--push-ca`: whom the pushes' TLS trusts, and the bucket recording's.
    public var pushTrust = PushTrust.system
    /// Where the channel's last start is kept (``EpochNumbering/Start``), so that a restart never
    /// reuses a segment number; nil keeps nothing.
    public var numberingRecord: String?
    /// Run the built-in HTTP server (off: publish to the push destinations only).
    public var serve = true
    /// Stop by itself after this many seconds.
    public var duration: Double?
    /// How long a screen source waits for its X server to come back before the broadcast ends.
    public var reconnectTimeout = 30.0
    public var server = ServerConfiguration()
    /// The decoded watermark image and where to stamp it, if any.
    public var watermark: (image: WatermarkImage, placement: WatermarkPlacement)?

    /// `--captions` / `--captions-from`: the channel's captions, a subtitle rendition; nil: none.
    public var captions: Captions?

    /// A channel's captions: what players call them, and the command that writes them from the
    /// broadcast's sound (nil: they come from the control API only).
    public struct Captions: Sendable {
        public var language: String
        public var name: String
        public var command: String?

        public init(language: String = "en", name: String = "English", command: String? = nil) {
            self.language = language
            self.name = name
            self.command = command
        }
    }

    /// The ladder, largest first, when publishing in several renditions; empty for one, at
    /// `width`×`height` and `videoBitrate`. The first rung's size is `width`×`height`.
    public var ladder: [RenditionLadder.Rung] = []

    public init() {}

    /// What is encoded: the ladder's rungs, or the one rendition.
    public var renditions: [RenditionLadder.Rung] {
        ladder.isEmpty
            ? [
                RenditionLadder.Rung(
                    id: Rendition.singleID, width: width, height: height, videoBitrate: videoBitrate, codec: videoCodec)
            ]
            : ladder
    }

    /// Frames between IDRs: one GOP per segment.
    public var keyframeInterval: Int { Int((Double(fps) * segmentDuration).rounded()) }

    /// `--frame-rate`: a screen's frames follow what changes on it, or every slot is encoded.
    public var frameRate = Cadence.Mode.followsScreen

    /// Why this broadcast encodes every slot although `frameRate` says to follow the screen; nil
    /// when it follows. The test pattern changes every frame anyway; MPEG-TS carries no frame
    /// durations (a player guesses the last frame's after a gap), and a packet destination may say
    /// why it needs a steady rate (RTMP, SRT's MPEG-TS): those keep the constant one.
    public var constantRateReason: String? {
        guard frameRate == .followsScreen else { return "--frame-rate constant" }
        if case .testPattern = video { return "the test pattern changes every frame" }
        if format == .ts { return "MPEG-TS carries no frame durations" }
        for case .packets(let link) in push {
            if let reason = link.steadyRateReason { return reason }
        }
        return nil
    }

    /// Which slots the encoder gets.
    public var cadence: Cadence {
        Cadence(
            configuration: .init(
                mode: constantRateReason == nil ? .followsScreen : .constant, keyframeInterval: keyframeInterval,
                partSlots: partDuration.map { Int((Double(fps) * $0).rounded()) }, heartbeat: fps,
                topOff: Self.topOff(fps: fps)))
    }

    /// The top-off after a change: the picture again about 0.27 s and 0.67 s after it (8 and 20
    /// slots at 30 fps). Sooner repeats (1, 2, 4 and 8 slots) fell between the keys of someone typing
    /// five a second: 402 of 600 slots encoded, 0.45x ffmpeg's CPU (BENCHMARKS.md).
    static func topOff(fps: Int) -> [Int] {
        Array(Set([fps * 4 / 15, fps * 2 / 3].filter { $0 > 0 })).sorted()
    }

    /// Where the channel goes besides its live store and `--hls-dir`, as `onair serve` describes
    /// its channels' too.
    func destinations(report: @escaping EventReporter) -> ChannelDestinations {
        ChannelDestinations(
            push: push, trust: pushTrust,
            record: recordDirectory.map {
                .init(root: URL(fileURLWithPath: $0), keep: recordKeep, maxBytes: recordMaxBytes)
            },
            recordS3: recordS3,
            rewind: dvrSeconds.map {
                .init(
                    root: dvrDirectory.map { URL(fileURLWithPath: $0) }
                        ?? DVRFolder.defaultRoot(environment: ProcessInfo.processInfo.environment),
                    seconds: $0)
            }, report: report)
    }
}
