package import CFFmpeg

/// What a muxer needs to know of an encoder's output: its codec parameters and time base.
public final class StreamDescription: @unchecked Sendable {
    package let parameters: UnsafeMutablePointer<AVCodecParameters>
    public let kind: MediaKind
    public let timeBase: TimeBase
    /// The RFC 6381 codec string for playlists, e.g. `avc1.64001f` or `mp4a.40.2`.
    public let codecString: String

    /// Copies the parameters of an opened encoder. Wraps `avcodec_parameters_from_context`.
    package init(encoder: UnsafePointer<AVCodecContext>, kind: MediaKind) throws(LibavError) {
        var parameters: UnsafeMutablePointer<AVCodecParameters>? = try checkAllocation(
            avcodec_parameters_alloc(), "avcodec_parameters_alloc")
        do {
            try check(avcodec_parameters_from_context(parameters, encoder), "avcodec_parameters_from_context")
        } catch {
            avcodec_parameters_free(&parameters)
            throw error
        }
        self.parameters = parameters!
        self.kind = kind
        self.timeBase = TimeBase(encoder.pointee.time_base.num, encoder.pointee.time_base.den)
        let extradata =
            parameters!.pointee.extradata.map {
                Array(UnsafeBufferPointer(start: $0, count: Int(parameters!.pointee.extradata_size)))
            } ?? []
        switch kind {
        case .video: self.codecString = CodecString.avc(extradata: extradata) ?? "avc1.640028"
        case .audio: self.codecString = CodecString.aac(extradata: extradata)
        }
    }

    deinit {
        var parameters: UnsafeMutablePointer<AVCodecParameters>? = parameters
        avcodec_parameters_free(&parameters)
    }
}
