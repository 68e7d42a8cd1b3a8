package import CFFmpeg

/// What a muxer needs to know of an encoder's output: its codec parameters and time base.
// Unchecked Sendable: a C handle (AVCodecParameters), immutable once made.
public final class StreamDescription: @unchecked Sendable {
    package let parameters: UnsafeMutablePointer<AVCodecParameters>
    public let track: TrackID
    public let kind: MediaKind
    /// The encoder's time base, which its packets are stamped in.
    public let timeBase: TimeBase
    /// The RFC 6381 codec string for playlists, e.g. `avc1.64001f`, `av01.0.08M.08` or `mp4a.40.2`.
    public let codecString: String

    /// Copies the parameters of an opened encoder. Wraps `avcodec_parameters_from_context`.
    package init(encoder: UnsafePointer<AVCodecContext>, track: TrackID, kind: MediaKind) throws(LibavError) {
        let allocation = try LibavAllocation(avcodec_parameters_alloc(), "avcodec_parameters_alloc") {
            avcodec_parameters_free(&$0)
        }
        try check(avcodec_parameters_from_context(allocation.pointer, encoder), "avcodec_parameters_from_context")
        let parameters = allocation.handOver()
        self.parameters = parameters
        self.track = track
        self.kind = kind
        self.timeBase = TimeBase(encoder.pointee.time_base.num, encoder.pointee.time_base.den)
        let extradata =
            parameters.pointee.extradata.map {
                Array(UnsafeBufferPointer(start: $0, count: Int(parameters.pointee.extradata_size)))
            } ?? []
        switch kind {
        case .video where parameters.pointee.codec_id == AV_CODEC_ID_AV1:
            // 8-bit 4:2:0 main profile at level 5.1 when the header cannot be read (it always can).
            self.codecString = CodecString.av1(sequenceHeader: extradata) ?? "av01.0.13M.08"
        case .video: self.codecString = CodecString.avc(extradata: extradata) ?? "avc1.640028"
        case .audio: self.codecString = CodecString.aac(extradata: extradata)
        }
    }

    /// The time base a muxer stores the track in: microseconds for video, the sample rate for sound
    /// (exact to the sample). Browsers count media time in whole microseconds, each frame's start
    /// and length apart: in 90 kHz, a 30 fps frame (3000 ticks, 33,333.3 µs) lost its third of a
    /// microsecond twice, and every segment ended 1 µs short in Chromium's buffer (7.999999 where the
    /// playlist says 8). hls.js, looking for what follows its buffer there, found the segment it
    /// held and waited. In microseconds, with a frame's length the rounded time of the next less
    /// its own (`Muxer.write`), the lengths add up to the next frame's time in whole microseconds:
    /// a segment ends where the next begins. MPEG-TS and FLV keep their own clocks (90 kHz,
    /// milliseconds).
    public var muxTimeBase: TimeBase {
        switch kind {
        case .video: TimeBase(1, 1_000_000)
        case .audio: TimeBase(1, parameters.pointee.sample_rate)
        }
    }

    deinit {
        var parameters: UnsafeMutablePointer<AVCodecParameters>? = parameters
        avcodec_parameters_free(&parameters)
    }
}
