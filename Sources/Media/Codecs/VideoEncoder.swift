internal import CFFmpeg

/// How the H.264 encoder is set up.
public struct VideoEncoderSettings: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var fps: Int
    /// The rate cap, in bits per second.
    public var bitrate: Int
    /// Frames between IDRs: fps × segment duration, so every segment starts with one.
    public var keyframeInterval: Int
    public var preset: String = "veryfast"

    public init(width: Int, height: Int, fps: Int, bitrate: Int, keyframeInterval: Int) {
        self.width = width
        self.height = height
        self.fps = fps
        self.bitrate = bitrate
        self.keyframeInterval = keyframeInterval
    }
}

/// H.264 through libx264: yuv420p, tune zerolatency (no frames held back), IDRs only on the
/// segment grid, SPS/PPS in band before every IDR and in the extradata for fMP4.
public final class VideoEncoder {
    public let settings: VideoEncoderSettings
    public let stream: StreamDescription
    private let codec: CodecContext
    /// The encoder's own view of the frame being sent: a reference to the shared picture (no copy)
    /// that carries this encoder's keyframe decision, so the frame the pacer holds (and may send
    /// again, or to other encoders) is never written to.
    private let sending: UnsafeMutablePointer<AVFrame>

    public init(settings: VideoEncoderSettings, track: TrackID) throws {
        self.settings = settings
        codec = try CodecContext(encoder: "libx264", track: track, kind: .video) { context in
            context.pointee.width = Int32(settings.width)
            context.pointee.height = Int32(settings.height)
            context.pointee.pix_fmt = AV_PIX_FMT_YUV420P
            context.pointee.time_base = AVRational(num: 1, den: Int32(settings.fps))
            context.pointee.framerate = AVRational(num: Int32(settings.fps), den: 1)
            context.pointee.gop_size = Int32(settings.keyframeInterval)
            context.pointee.keyint_min = Int32(settings.keyframeInterval)
            context.pointee.max_b_frames = 0
            context.pointee.bit_rate = Int64(settings.bitrate)
            context.pointee.rc_max_rate = Int64(settings.bitrate)
            context.pointee.rc_buffer_size = Int32(settings.bitrate)
            context.pointee.color_range = AVCOL_RANGE_MPEG
            context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
            try check(av_opt_set(context.pointee.priv_data, "preset", settings.preset, 0), "preset")
            try check(av_opt_set(context.pointee.priv_data, "tune", "zerolatency", 0), "tune")
            try check(av_opt_set(context.pointee.priv_data, "x264-params", Self.x264Parameters, 0), "x264-params")
            try check(av_opt_set(context.pointee.priv_data, "forced-idr", "1", 0), "forced-idr")
        } finish: { _, packet in
            // One tick of the 1/fps time base; a picture shown longer (a still screen's frames come
            // with gaps) gets its real length from the packager, once the next one is known.
            packet.pointee.duration = 1
            // No frame is reordered (zerolatency: no B-frames), so each decodes when it is shown.
            // libx264 counts decode times in frames, not from the timestamps, which a variable
            // frame rate would leave behind the presentation times.
            packet.pointee.dts = packet.pointee.pts
        }
        stream = try codec.streamDescription()
        sending = try checkAllocation(av_frame_alloc(), "av_frame_alloc")
    }

    /// What onair sets of x264 beyond the preset and `zerolatency`, for a shared screen:
    /// - `scenecut=0`: IDRs only where they are forced, on the segment grid;
    /// - `repeat-headers=1`: SPS/PPS in band even with a global header, so any segment of either
    ///   format is a join point;
    /// - `force-cfr=0`: the rate control takes each frame's duration from the timestamps.
    ///   `zerolatency` assumes a constant rate, so a still screen's frames, which the cadence sends
    ///   seconds apart, were each budgeted as a 30th of a second: the IDR a joining viewer sees first
    ///   came out blurred (SSIM 0.94 to 0.99 against the screen, worse with every segment);
    /// - `ipratio=2`: the IDR is what every later frame of a still screen refers to and what a
    ///   joining viewer sees first: it gets a finer quantizer than film's 1.4 gives it (at half
    ///   the default rate, SSIM 0.995 became 0.997).
    public static let x264Parameters = "scenecut=0:repeat-headers=1:force-cfr=0:ipratio=2"

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
        return try codec.encode(sending)
    }

    /// The grid point of the next forced IDR, in frames.
    private var nextKeyframe: Int64 = 0

    /// Drains the frames still in the encoder.
    public func flush() throws -> [EncodedPacket] {
        try codec.encode(nil)
    }

    deinit {
        var sending: UnsafeMutablePointer<AVFrame>? = sending
        av_frame_free(&sending)
    }
}
