public import ArgumentParser
import Capture
import Encoding
import FoundationEssentials
import HLS
import HLSModel
import Logging
import Publisher
import enum Runtime.VideoCodec
import Server

struct SourceOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "What to share: screen (the default with a display; on a Wayland desktop, through its ScreenCast portal), window:<id or title>, region:WxH+X+Y, portal (a screen through the desktop's portal), portal:window, portal:region:WxH+X+Y, or test (an animated pattern with a running clock; the default without a display).",
            valueName: "source"))
    var source: SourceChoice?

    @Option(help: ArgumentHelp("The X display to capture. (default: $DISPLAY)", valueName: "display"))
    var display: String?

    @Flag(help: "Leave the mouse pointer out of the picture.")
    var noCursor = false

    @Option(help: ArgumentHelp("How long a shared window may be gone before the broadcast ends.", valueName: "time"))
    var windowGrace = DurationValue(seconds: 10)

    @Option(
        help: ArgumentHelp(
            "How long to wait for the X server to come back when it goes away (viewers see a card meanwhile) before the broadcast ends.",
            valueName: "time"))
    var reconnectTimeout = DurationValue(seconds: 30)

    @Option(
        help: ArgumentHelp(
            "What to hear: app:<name> (one application's sound through PipeWire: every stream it plays, matched by its application name or binary, ignoring case, or by a process id, which takes the processes it started too), window (the sound of the window shared with --source window:…), pipewire:monitor (what the desktop plays), pipewire:default or pipewire:<node> (a microphone or any PipeWire source or sink), an ALSA capture device (default, pulse, hw:1,0, …), test (a tone that beeps every second), or none. (default: PipeWire's default source where PipeWire runs, else the ALSA default device, with a display; test without)",
            valueName: "source"))
    var audio: String?

    @Option(
        help: ArgumentHelp(
            "A second sound source mixed in (a microphone), named as for --audio: pipewire:default, app:<name>, an ALSA device.",
            valueName: "source"))
    var audioMix: String?

    @Option(parsing: .unconditional, help: ArgumentHelp("Gain of --audio, in dB.", valueName: "dB"))
    var audioGain = 0.0

    @Option(parsing: .unconditional, help: ArgumentHelp("Gain of --audio-mix, in dB.", valueName: "dB"))
    var mixGain = 0.0

    func validate() throws {
        guard (0...3600).contains(windowGrace.seconds) else {
            throw ValidationError("--window-grace must be 0 s to 1 h")
        }
        guard (1...86400).contains(reconnectTimeout.seconds) else {
            throw ValidationError("--reconnect-timeout must be 1 s to 24 h")
        }
        for (name, gain) in [("--audio-gain", audioGain), ("--mix-gain", mixGain)] where !(-60...20).contains(gain) {
            throw ValidationError("\(name) \(gain) is out of range: -60 to 20 dB")
        }
        if audioMix != nil, audio == "test" || audio == "none" {
            throw ValidationError("--audio-mix mixes two capture devices: give --audio a device too")
        }
        for text in [audio, audioMix].compactMap({ $0 }) where text != "window" {
            do {
                _ = try SoundDevice(parsing: text)
            } catch {
                throw ValidationError(error.description)
            }
        }
        if audioMix == "window" {
            throw ValidationError(
                "--audio-mix window: give the window's sound as --audio window, and mix a microphone in")
        }
        if audio == "window" {
            guard case .window = source else {
                throw ValidationError(
                    "--audio window takes the sound of the shared window: share one with --source window:<id or title>, or name the application with --audio app:<name>"
                )
            }
        }
    }

    /// The sound to publish, with capture devices opened once to check them. `window` is the
    /// shared window's process (its `_NET_WM_PID`).
    func resolveAudio(
        video: VideoSourceResolver.Resolved, notice: (String) -> Void
    ) throws -> BroadcastConfiguration.AudioInput {
        let videoIsTestPattern = video.input == .testPattern
        switch audio {
        case "test": return .testTone
        case "none": return .none
        case nil where videoIsTestPattern && audioMix == nil: return .testTone
        case nil:
            let mix = try audioMix.map { try Self.checked(try SoundDevice(parsing: $0), notice: notice) }
            if PipeWireSource.nodes()?.contains(where: { $0.kind == .source }) == true {
                return .capture(device: .pipeWire(.defaultSource), gain: audioGain, mix: mix, mixGain: mixGain)
            }
            do {
                try AlsaSource.probe("default")
            } catch {
                guard audioMix == nil else { throw Self.deviceError("default", error) }
                notice("no sound: the ALSA device 'default' cannot be opened (\(error)); pick one with --audio")
                return .none
            }
            return .capture(device: .alsa("default"), gain: audioGain, mix: mix, mixGain: mixGain)
        case let text?:
            let device = text == "window" ? try Self.windowSound(video.opened) : try SoundDevice(parsing: text)
            let primary = try Self.checked(device, notice: notice)
            let mix = try audioMix.map { try Self.checked(try SoundDevice(parsing: $0), notice: notice) }
            return .capture(device: primary, gain: audioGain, mix: mix, mixGain: mixGain)
        }
    }

    /// The shared window's application, by the process id the window names.
    private static func windowSound(_ video: OpenedVideo) throws -> SoundDevice {
        guard let (window, pid) = video.window else {
            throw UsageError(
                message:
                    "--audio window takes the sound of the shared window: share one with --source window:<id or title>")
        }
        guard let pid else {
            throw UsageError(
                message:
                    "window 0x\(String(window, radix: 16)) does not say which process it belongs to (no _NET_WM_PID): name its application with --audio app:<name> instead"
            )
        }
        return .pipeWire(.application(.processID(pid)))
    }

    /// Opens a device once, so a wrong one is refused before anything starts; an application
    /// not playing yet is only a notice.
    private static func checked(_ device: SoundDevice, notice: (String) -> Void) throws -> SoundDevice {
        switch device {
        case .alsa(let name):
            do {
                try AlsaSource.probe(name)
            } catch {
                throw Self.deviceError(name, error)
            }
        case .pipeWire(let target):
            let playing: [AudioNode]
            do {
                playing = try PipeWireSource.probe(target)
            } catch let error as CaptureError {
                throw UsageError(message: error.description)
            }
            if case .application = target {
                notice(
                    playing.isEmpty
                        ? "\(target) plays nothing yet: silence until it does"
                        : "sharing the sound of \(target): \(playing.count) stream\(playing.count == 1 ? "" : "s") playing"
                )
            }
        }
        return device
    }

    private static func deviceError(_ name: String, _ error: any Error) -> UsageError {
        let devices = AlsaSource.captureDevices().prefix(12).map(\.name).joined(separator: ", ")
        return UsageError(
            message:
                "cannot capture from ALSA device '\(name)' (\(error)); capture devices: \(devices.isEmpty ? "none found" : devices)"
        )
    }
}

struct EncodingOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Exact output size, both even; the picture is letterboxed into it.", valueName: "WxH"))
    var size: FrameSize?

    @Option(
        help: ArgumentHelp(
            "Output short side, keeping the source's shape; never above the source's own. (default: 720p)",
            valueName: "quality"))
    var quality: Quality?

    @Option(
        help: ArgumentHelp(
            "Publish several qualities, players switching between them: e.g. 1080p,720p,360p or "
                + "1280x720@2500k,640x360@600k, or auto (1080p or the source's size, then 720p and 360p; "
                + "one per core). Names take the source's shape; rates for screen content by default "
                + "(2500k at 720p, 4600k at 1080p, 900k at 360p); rungs above the source are skipped.",
            valueName: "list"))
    var renditions: String?

    @Option(help: ArgumentHelp("Frames per second, 1 to 60: the most a screen source sends.", valueName: "n"))
    var fps = 30

    @Option(
        help: ArgumentHelp(
            "follow: a screen's frames follow what changes on it (a still screen costs almost nothing: only new "
                + "pictures, each segment's and part's first frame, a short top-off after a change and one frame a "
                + "second are encoded); constant: every slot is encoded, a steady --fps (editing, ingests that "
                + "demand it). The test pattern, MPEG-TS, and RTMP and SRT destinations keep a constant rate.",
            valueName: "follow|constant"))
    var frameRate = Cadence.Mode.followsScreen

    @Option(
        help: ArgumentHelp(
            "Video codec: h264 (every player and destination) or av1 (libaom's real-time encoder with its "
                + "screen-content tools: sharp text in about half the bytes; fMP4 only, players that decode it). "
                + "A rung of --renditions may name its own: 1080p:av1,1080p,360p.",
            valueName: "h264|av1"))
    var codec = VideoCodec.standard

    @Option(
        help: ArgumentHelp(
            "Video rate in bits per second (k, M suffixes): in h264 a cap; in av1 what libaom aims at, "
                + "which a picture changing whole every frame may pass. (default: 2500k in h264, 1250k in av1)",
            valueName: "rate"))
    var videoBitrate: Bitrate?

    /// `--video-bitrate`, or the default for the codec: 2500k in H.264, its share of that in another.
    var videoBitsPerSecond: Int {
        videoBitrate?.bitsPerSecond ?? Int(2_500_000 * codec.rateShare)
    }

    @Option(help: ArgumentHelp("AAC rate in bits per second (k suffix).", valueName: "rate"))
    var audioBitrate = Bitrate(bitsPerSecond: 128_000)

    func validate(segmentDuration: Double, partDuration: Double?) throws {
        if let size {
            guard (16...3840).contains(size.width), (16...2160).contains(size.height) else {
                throw ValidationError("--size \(size) is out of range: 16x16 to 3840x2160")
            }
            guard size.width % 2 == 0, size.height % 2 == 0 else {
                throw ValidationError("--size \(size) must have even width and height (yuv420p)")
            }
            if quality != nil {
                throw ValidationError("give --size or --quality, not both")
            }
        }
        if let renditions {
            do {
                _ = try LadderRequest.parse(renditions)
            } catch {
                throw ValidationError(error.description)
            }
            if size != nil || quality != nil {
                throw ValidationError("give --renditions or --\(size != nil ? "size" : "quality"), not both")
            }
        }
        guard (1...60).contains(fps) else {
            throw ValidationError("--fps \(fps) is out of range: 1 to 60")
        }
        if let videoBitrate, !(100_000...50_000_000).contains(videoBitrate.bitsPerSecond) {
            throw ValidationError("--video-bitrate \(videoBitrate) is out of range: 100k to 50M")
        }
        guard (32_000...320_000).contains(audioBitrate.bitsPerSecond) else {
            throw ValidationError("--audio-bitrate \(audioBitrate) is out of range: 32k to 320k")
        }
        let frames = Double(fps) * segmentDuration
        guard abs(frames - frames.rounded()) < 1e-9 else {
            throw ValidationError(
                "--segment-duration \(segmentDuration) must hold a whole number of frames at \(fps) fps")
        }
        if let partDuration {
            let frames = Double(fps) * partDuration
            guard abs(frames - frames.rounded()) < 1e-9, frames >= 1 else {
                throw ValidationError(
                    "--part-duration \(partDuration) must hold a whole number of frames at \(fps) fps")
            }
        }
    }
}

struct OutputOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Segment container: fmp4 (CMAF; plays in every browser) or ts (older players).", valueName: "format"))
    var format: ContainerFormat = .fmp4

    @Option(help: ArgumentHelp("Segment length, 1 to 10; every segment starts with a keyframe.", valueName: "seconds"))
    var segmentDuration = 2.0

    @Option(help: ArgumentHelp("Segments listed in the live playlist, at least 3.", valueName: "n"))
    var playlistSize = 6

    @Flag(
        help: ArgumentHelp(
            "Low-Latency HLS (fmp4): parts listed as they are made, blocking playlist reload; about 1 s behind live."))
    var lowLatency = false

    @Option(
        help: ArgumentHelp(
            "With --low-latency: part length, a whole number of frames (default 0.2).", valueName: "seconds"))
    var partDuration: Double?

    @Option(
        help: ArgumentHelp(
            "Also write the stream to DIR/live/<channel>/ (atomic files) for another web server.", valueName: "dir"))
    var hlsDir: String?

    func validate() throws {
        guard (1...10).contains(segmentDuration) else {
            throw ValidationError("--segment-duration \(segmentDuration) is out of range: 1 to 10 seconds")
        }
        guard playlistSize >= 3 else {
            throw ValidationError("--playlist-size \(playlistSize) is too small: players need at least 3 segments")
        }
        guard playlistSize <= 1000 else {
            throw ValidationError("--playlist-size \(playlistSize) is out of range: 3 to 1000")
        }
        if lowLatency, format != .fmp4 {
            throw ValidationError("--low-latency needs --format fmp4: parts are fMP4 fragments")
        }
        if let partDuration {
            guard lowLatency else { throw ValidationError("--part-duration is only for --low-latency") }
            guard partDuration >= 0.05, partDuration <= segmentDuration / 2 else {
                throw ValidationError(
                    "--part-duration \(partDuration) is out of range: 0.05 to half the segment (\(segmentDuration / 2))"
                )
            }
        }
    }

    /// The part length when publishing Low-Latency HLS.
    var lowLatencyPart: Double? { lowLatency ? partDuration ?? 0.2 : nil }
}

struct ServerOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Address to listen on (0.0.0.0: every interface).", valueName: "address"))
    var host = "0.0.0.0"

    @Option(help: ArgumentHelp("TCP port to listen on.", valueName: "port"))
    var port = 8080

    @Option(help: ArgumentHelp("Web pages allowed to play the stream: '*' (any) or one origin.", valueName: "origin"))
    var allowOrigin = "*"

    @Option(
        help: ArgumentHelp(
            "Serve HTTPS with this certificate chain (PEM), speaking HTTP/2 to clients that offer it.",
            valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The private key (PEM) of --tls-cert.", valueName: "file"))
    var tlsKey: String?

    @Option(
        help: ArgumentHelp(
            "Make the channels private: their playlists and media need a link signed with this secret (at least 16 characters); @FILE reads it from a file. Default: $ONAIR_VIEWER_TOKEN. What a private channel writes (rewind window, recordings, --hls-dir) is readable by this user only.",
            valueName: "secret"))
    var viewerToken: String?

    @Option(
        help: ArgumentHelp(
            "How long a signed link works: at least this, at most twice. Links handed out within one such period are the same URL, so edge caches keep one copy.",
            valueName: "time"))
    var viewerLinkLifetime = DurationValue(seconds: 3600)

    @Option(
        help: ArgumentHelp(
            "Close a connection that sends no request for this long (or not all of its headers). A held Low-Latency HLS reload is not idle.",
            valueName: "time"))
    var idleTimeout = DurationValue(seconds: 30)

    @Option(
        help: ArgumentHelp(
            "Connections held at once (plain HTTP); past it a new one closes the longest idle, so idle floods cannot keep viewers out. Lowered to fit the descriptor limit.",
            valueName: "n"))
    var maxConnections = 10_000

    @Option(
        name: .customLong("pathway"),
        help: ArgumentHelp(
            "An origin viewers may play from, for players to move to its twin when one stops answering: give every origin, this one included, to each of them, in the order players should prefer. The multivariant playlist lists each (content steering, redundant variants); each origin tries the others every second, and its steering manifest sends players off one that does not answer.",
            valueName: "name=url"))
    var pathwayTexts: [String] = []

    func validate() throws {
        guard (1...65535).contains(port) else {
            throw ValidationError("--port \(port) is out of range: 1 to 65535")
        }
        _ = try pathways()
        guard (tlsCert == nil) == (tlsKey == nil) else {
            throw ValidationError("give --tls-cert and --tls-key together")
        }
        guard (64...1_000_000).contains(maxConnections) else {
            throw ValidationError("--max-connections \(maxConnections) is out of range: 64 to 1000000")
        }
        guard (1...3600).contains(idleTimeout.seconds) else {
            throw ValidationError("--idle-timeout must be 1 s to 1 h")
        }
        guard (60...7 * 86400).contains(viewerLinkLifetime.seconds) else {
            throw ValidationError("--viewer-link-lifetime must be 1 min to 7 days")
        }
        _ = try viewerAccess(environment: ProcessInfo.processInfo.environment)
    }

    /// Viewer access from --viewer-token or $ONAIR_VIEWER_TOKEN; nil when the channels are public.
    func viewerAccess(environment: [String: String]) throws -> ViewerAccess? {
        let fromEnvironment = environment["ONAIR_VIEWER_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        guard
            let secret = try viewerToken.map({ try SecretText.resolve($0, option: "--viewer-token") })
                ?? fromEnvironment
        else { return nil }
        guard ControlOptions.isToken(secret) else {
            let source = viewerToken == nil ? "ONAIR_VIEWER_TOKEN" : "--viewer-token"
            throw ValidationError("\(source) must be at least 16 characters, without spaces")
        }
        return ViewerAccess(secret: secret, lifetime: Int(viewerLinkLifetime.seconds))
    }

    /// The origins of `--pathway`, checked: none, or two and more on different servers.
    func pathways() throws -> [Pathway] {
        guard !pathwayTexts.isEmpty else { return [] }
        do throws(SettingError) {
            let pathways = try pathwayTexts.map { text throws(SettingError) in try Pathway.parse(text) }
            try Pathway.check(pathways)
            return pathways
        } catch {
            throw ValidationError(error.description)
        }
    }

    var tls: TLSFiles? {
        guard let tlsCert, let tlsKey else { return nil }
        return TLSFiles(certificate: tlsCert, key: tlsKey)
    }
}

/// The control API's token, for a channel this process captures.
struct ControlOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "The bearer token of the control API (pause, resume, stop, events, markers); @FILE reads it from a file. Default: $ONAIR_CONTROL_TOKEN, else the one in ~/.local/state/onair/<channel>.token (publish writes a random one there).",
            valueName: "token"))
    var controlToken: String?

    func validate() throws {
        _ = try token(environment: ProcessInfo.processInfo.environment)
    }

    /// The token from --control-token (or its file) or $ONAIR_CONTROL_TOKEN; nil for a random one.
    func token(environment: [String: String]) throws -> String? {
        let given = try controlToken.map { try SecretText.resolve($0, option: "--control-token") }
        guard let token = given ?? environment["ONAIR_CONTROL_TOKEN"].flatMap({ $0.isEmpty ? nil : $0 }) else {
            return nil
        }
        guard Self.isToken(token) else {
            let source = given == nil ? "ONAIR_CONTROL_TOKEN" : "--control-token"
            throw ValidationError("\(source) must be at least 16 characters, without spaces")
        }
        return token
    }

    /// Long enough not to be guessed, and one word in a header.
    static func isToken(_ text: String) -> Bool {
        text.utf8.count >= 16 && !text.contains(where: \.isWhitespace)
    }
}

/// `--format`: what pictures and sound are packaged in (captions are always WebVTT).
extension ContainerFormat: ExpressibleByArgument {
    init?(argument: String) {
        guard let format = ContainerFormat(rawValue: argument), ContainerFormat.mediaFormats.contains(format) else {
            return nil
        }
        self = format
    }

    static var allValueStrings: [String] { mediaFormats.map(\.rawValue) }
}

extension VideoCodec: ExpressibleByArgument {}

extension Cadence.Mode: ExpressibleByArgument {}

extension Logger.Level: @retroactive ExpressibleByArgument {}
