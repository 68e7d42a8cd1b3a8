internal import CFFmpeg
public import Runtime

/// How a rendition's video encoder is set up.
public struct VideoEncoderSettings: Sendable, Equatable {
    public var codec: VideoCodec = .standard
    public var width: Int
    public var height: Int
    public var fps: Int
    /// The rate, in bits per second: x264's cap, libaom's aim (`aomQualityLevel`).
    public var bitrate: Int
    /// Frames between IDRs: fps × segment duration, so every segment starts with one.
    public var keyframeInterval: Int
    /// x264's preset.
    public var preset: String = "veryfast"

    public init(codec: VideoCodec = .standard, width: Int, height: Int, fps: Int, bitrate: Int, keyframeInterval: Int) {
        self.codec = codec
        self.width = width
        self.height = height
        self.fps = fps
        self.bitrate = bitrate
        self.keyframeInterval = keyframeInterval
    }
}

/// A rendition's video encoder: yuv420p in, no frame held back or reordered, a key frame only on
/// the segment grid, the stream's headers in band before every key frame (any segment is a join
/// point) and in the extradata for fMP4. H.264 through libx264, AV1 through libaom.
public final class VideoEncoder {
    public let settings: VideoEncoderSettings
    public let stream: StreamDescription
    private let codec: CodecContext
    /// The encoder's own view of the frame being sent: a reference to the shared picture (no copy)
    /// that carries this encoder's keyframe decision, so the frame the pacer holds (and may send
    /// again, or to other encoders) is never written to.
    private let sending: UnsafeMutablePointer<AVFrame>
    /// AV1: the sequence header the init segment carries, which the encoder's own must match.
    private let sequenceHeader: [UInt8]?

    public init(settings: VideoEncoderSettings, track: TrackID) throws {
        self.settings = settings
        codec = try Self.open(settings, track: track)
        if settings.codec == .av1 {
            // libaom gives its sequence header with its first packet, not when it opens; the init
            // segment is written before that, so the warm-up's first packet gives it.
            let header = try Self.warmUp(codec, settings)
            try Self.setExtradata(header, of: codec.context)
            sequenceHeader = header
        } else {
            sequenceHeader = nil
        }
        stream = try codec.streamDescription()
        sending = try checkAllocation(av_frame_alloc(), "av_frame_alloc")
    }

    /// Whether the installed libavcodec has the encoder `codec` needs.
    public static func isAvailable(_ codec: VideoCodec) -> Bool {
        avcodec_find_encoder_by_name(codec.encoderName) != nil
    }

    private static func open(_ settings: VideoEncoderSettings, track: TrackID) throws -> CodecContext {
        try CodecContext(encoder: settings.codec.encoderName, track: track, kind: .video) { context in
            context.pointee.width = Int32(settings.width)
            context.pointee.height = Int32(settings.height)
            context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            context.pointee.time_base = AVRational(num: 1, den: Int32(settings.fps))
            context.pointee.framerate = AVRational(num: Int32(settings.fps), den: 1)
            let distance = Self.automaticKeyframeDistance(settings)
            context.pointee.gop_size = distance
            context.pointee.keyint_min = distance
            context.pointee.max_b_frames = 0
            context.pointee.bit_rate = Int64(settings.bitrate)
            context.pointee.rc_max_rate = Int64(settings.bitrate)
            context.pointee.rc_buffer_size = Int32(settings.bitrate)
            context.pointee.color_range = AVCOL_RANGE_MPEG
            context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
            let options = context.pointee.priv_data
            switch settings.codec {
            case .h264:
                try check(av_opt_set(options, "preset", settings.preset, 0), "preset")
                try check(av_opt_set(options, "tune", "zerolatency", 0), "tune")
                try check(av_opt_set(options, "x264-params", Self.x264Parameters, 0), "x264-params")
                try check(av_opt_set(options, "forced-idr", "1", 0), "forced-idr")
            case .av1:
                try check(av_opt_set(options, "usage", "realtime", 0), "usage")
                try check(av_opt_set(options, "lag-in-frames", "0", 0), "lag-in-frames")
                try check(av_opt_set(options, "row-mt", "1", 0), "row-mt")
                try check(av_opt_set(options, "enable-palette", "1", 0), "enable-palette")
                // Two intra tools libaom searches on every block, which took a third of its CPU in
                // key frames: chroma from luma, which a screen's text never chose, and the fine
                // angles of directional prediction. Without them a key frame of text has the same
                // bytes and sharpness. A segment starts with a key frame, and key frames are most
                // of what AV1 costs on a screen that changes little (docs/codecs.md).
                try check(av_opt_set(options, "enable-cfl-intra", "0", 0), "enable-cfl-intra")
                try check(av_opt_set(options, "enable-angle-delta", "0", 0), "enable-angle-delta")
                try check(av_opt_set(options, "aom-params", Self.aomParameters, 0), "aom-params")
                try check(av_opt_set(options, "crf", String(Self.aomQualityLevel), 0), "crf")
            }
        } finish: { _, packet in
            // One tick of the 1/fps time base; a picture shown longer (a still screen's frames come
            // with gaps) gets its real length from the packager, once the next one is known.
            packet.pointee.duration = 1
            // No frame is reordered (no B-frames, no look-ahead), so each decodes when it is shown.
            // The encoders count decode times in frames, not from the timestamps, which a variable
            // frame rate would leave behind the presentation times.
            packet.pointee.dts = packet.pointee.pts
        }
    }

    /// The longest run of frames the encoder may go without a key frame of its own choosing.
    /// Every key frame is forced on the segment grid (`encode(_:)`); x264 counts from each one,
    /// but libaom keeps counting from its own, so once frames had been dropped its key frames
    /// fell inside segments (12 of 13 segments held one, measured on a loaded machine). libaom is
    /// given no interval of its own.
    static func automaticKeyframeDistance(_ settings: VideoEncoderSettings) -> Int32 {
        settings.codec == .av1 ? Int32.max : Int32(settings.keyframeInterval)
    }

    /// What onair sets of libaom beyond its real-time mode: `tune-content=screen` (palette and
    /// intra block copy for text and flat areas, and rate control for a screen's bursts) and speed
    /// 9, one below its fastest: at 10, libaom refines typed text more slowly after each key frame
    /// (typing at 1250k, two runs: SSIM 0.99980–0.99983 at 10, 0.99990–0.99992 at 9, as x264 at
    /// 2500k, in fewer bytes), and 9 costs 6–14 % more CPU on text, 12 % with a video on screen
    /// (docs/codecs.md).
    public static let aomParameters = "tune-content=screen:cpu-used=9"

    /// libaom's quality level (`cq-level`, 0–63), which puts it in its constrained-quality mode: the
    /// rate is aimed at `bitrate`, and no frame is quantized finer than this level. Without it,
    /// libaom's real-time mode runs its one-pass CBR, which sizes a key frame as three or four
    /// frames of the average rate: made for a camera, where one more frame says little, and
    /// starving a screen, whose key frame is the whole picture of text every later frame refers
    /// to. Every segment starts with one, so a joining viewer saw it blurred, and the frames after
    /// it refined it slowly. Replayed screens at 1250k through libaom as onair sends them (the
    /// frames the cadence encodes; SSIM Y of every picture a viewer sees): typing 0.99970 → 0.99992
    /// for 7 % more bytes, a terminal 0.99950 → 0.99987 (its worst picture 0.9941 → 0.9994), a video
    /// in a corner 0.99816 → 0.99971 (its key frames 0.964 → 0.9998) for 16 % fewer bytes (level
    /// 20). Typed text is the same from 10 to 30; a scrolled file is not: onair at 2000k, scrolling a
    /// page a second, 0.99979 at 20 and 0.99986 at 12 (x264 at 4000k: onair's 0.99987), for 3 %
    /// more bytes. A moving picture costs a quarter more at 12 than at 20. The cost: on a picture
    /// that changes whole every frame, libaom's constrained quality does not hold the rate (a 1080p
    /// fractal zoom took 1.6–1.7× it); the playlists' BANDWIDTH is measured, so players are told
    /// (docs/codecs.md).
    public static let aomQualityLevel = 12

    /// Blank pictures an AV1 encoder is given before the stream's first (``warmUp(_:_:)``).
    static let aomWarmUpFrames = 40

    /// Runs a new AV1 encoder's rate control in on blank pictures, whose packets are dropped, and
    /// gives the sequence header of the first: the init segment's, written before the stream has a
    /// packet. libaom's one-pass rate control starts a frame's quantizer halfway up its range (index
    /// 127 of 255) and moves it a quarter of the way toward each coded frame's. A camera's 30 frames
    /// a second bring it down within a second; a screen, whose cadence encodes a frame or two a
    /// second when it is still, kept its P frames at 98–110 (quality level 12 is 48) for the first
    /// 30 coded frames, half a minute of a still screen, and what was typed or scrolled meanwhile
    /// was refined no further. onair at 2000k on 16 s of a 1080p screen: typing 0.99996 → 0.99997,
    /// a file scrolled a page a second 0.99986 → 0.99990, for 4–6 % more bytes (BENCHMARKS.md).
    /// Forty pictures bring it to 48 (offline, twenty-four left the scrolled file softer, sixty
    /// gave what forty did). The cost: 0.35 CPU-seconds at 1080p, once; and a moving picture from
    /// the first frame on overshoots the rate a little more in its first seconds (a fractal zoom:
    /// 1.5–2.4× over its first 6 s, 1.4–2.0× cold).
    /// The stream's first frame is a key frame (`encode(_:)`), so nothing refers to these.
    private static func warmUp(_ codec: CodecContext, _ settings: VideoEncoderSettings) throws -> [UInt8] {
        let frame = try LibavAllocation(av_frame_alloc(), "av_frame_alloc") { av_frame_free(&$0) }
        frame.pointer.pointee.width = Int32(settings.width)
        frame.pointer.pointee.height = Int32(settings.height)
        frame.pointer.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        try check(av_frame_get_buffer(frame.pointer, 0), "av_frame_get_buffer")
        let picture = frame.pointer.pointee
        let planes = [
            (picture.data.0, picture.linesize.0, settings.height, Int32(16)),
            (picture.data.1, picture.linesize.1, settings.height / 2, Int32(128)),
            (picture.data.2, picture.linesize.2, settings.height / 2, Int32(128)),
        ]
        for (data, stride, rows, value) in planes {
            guard let data else { continue }
            memset(data, value, Int(stride) * rows)
        }
        var header: [UInt8]?
        // Before the stream's timestamps, a frame's length apart: libaom counts from the first it
        // is given, and takes the frame rate from the gaps.
        for index in 0..<aomWarmUpFrames {
            frame.pointer.pointee.pts = Int64(index - aomWarmUpFrames)
            frame.pointer.pointee.pict_type = index == 0 ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
            for packet in try codec.encode(frame.pointer) where header == nil {
                header = packet.newExtradata
            }
        }
        guard let header else {
            throw LibavError(code: LibavError.invalidData, operation: "libaom-av1 gave no sequence header")
        }
        return header
    }

    private static func setExtradata(_ bytes: [UInt8], of context: UnsafeMutablePointer<AVCodecContext>) throws {
        let padded = bytes.count + Int(AV_INPUT_BUFFER_PADDING_SIZE)
        let buffer = try checkAllocation(av_mallocz(padded), "av_mallocz").assumingMemoryBound(to: UInt8.self)
        buffer.update(from: bytes, count: bytes.count)
        av_freep(&context.pointee.extradata)
        context.pointee.extradata = buffer
        context.pointee.extradata_size = Int32(bytes.count)
    }

    /// What onair sets of x264 beyond the preset and `zerolatency`, for a shared screen:
    /// - `scenecut=0`: IDRs only where they are forced, on the segment grid;
    /// - `repeat-headers=1`: SPS/PPS in band even with a global header, so any segment of either
    ///   format is a join point;
    /// - `force-cfr=0`: the rate control takes each frame's duration from the timestamps.
    ///   `zerolatency` assumes a constant rate, so a still screen's frames, which the cadence sends
    ///   seconds apart, were each budgeted as a 30th of a second: the IDR a joining viewer sees first
    ///   came out blurred (SSIM 0.94 to 0.99 against the screen, worse with every segment);
    /// - `ipratio=3`: the IDR is what every later frame of a still screen refers to and what a
    ///   joining viewer sees first: it gets a finer quantizer than film's 1.4 gives it. At half the
    ///   default rate, a still screen's IDRs went from 0.995 (1.4) to 0.9955–0.9963 (2) to
    ///   0.9977–0.9983 (3); someone typing got 0.99915 on average where 2 gave 0.99882, for 4 %
    ///   more bytes (BENCHMARKS.md).
    public static let x264Parameters = "scenecut=0:repeat-headers=1:force-cfr=0:ipratio=3"

    /// Encodes one frame, forcing an IDR on the keyframe grid: on the first frame at or past each
    /// grid point, as the frame on it may have been dropped when encoding fell behind (a segment
    /// would otherwise run on to the next grid point, twice its length). Wraps `avcodec_send_frame`.
    public func encode(_ frame: VideoFrame) throws -> [EncodedPacket] {
        let interval = Int64(settings.keyframeInterval)
        let keyframe = frame.index >= nextKeyframe
        if keyframe { nextKeyframe = (frame.index / interval + 1) * interval }
        try check(av_frame_ref(sending, frame.frame), "av_frame_ref")
        defer { av_frame_unref(sending) }
        sending.pointee.pict_type = keyframe ? AV_PICTURE_TYPE_I : AV_PICTURE_TYPE_NONE
        return try checked(codec.encode(sending))
    }

    /// The packets, once an AV1 encoder's sequence header has been found the one the init segment
    /// carries: a stream must never say one thing and decode as another.
    private func checked(_ packets: [EncodedPacket]) throws -> [EncodedPacket] {
        guard let sequenceHeader else { return packets }
        for packet in packets {
            if let header = packet.newExtradata, header != sequenceHeader {
                throw LibavError(
                    code: LibavError.invalidData,
                    operation: "libaom-av1 changed its sequence header after the init segment was written")
            }
        }
        return packets
    }

    /// The grid point of the next forced IDR, in frames.
    private var nextKeyframe: Int64 = 0

    /// Drains the frames still in the encoder.
    public func flush() throws -> [EncodedPacket] {
        try checked(codec.encode(nil))
    }

    deinit {
        var sending: UnsafeMutablePointer<AVFrame>? = sending
        av_frame_free(&sending)
    }
}
