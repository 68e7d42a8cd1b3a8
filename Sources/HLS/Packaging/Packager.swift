internal import CFFmpeg
import Media

/// Muxes encoded packets into fragmented MP4 or MPEG-TS in memory, one fragment at a time,
/// over libavformat's own muxers. Owns the AVFormatContext.
final class Packager {
    let format: ContainerFormat
    private let context: UnsafeMutablePointer<AVFormatContext>
    private let output: MemoryOutput
    private let streamIndex: [MediaKind: Int32]
    /// The init segment (ftyp + moov) for fMP4; empty for TS.
    private(set) var initSegment: [UInt8] = []

    /// Opens the muxer and writes the header. Wraps `avformat_alloc_output_context2` and
    /// `avformat_write_header`.
    init(format: ContainerFormat, streams: [StreamDescription]) throws {
        self.format = format
        var allocated: UnsafeMutablePointer<AVFormatContext>?
        try check(
            avformat_alloc_output_context2(&allocated, nil, format == .fmp4 ? "mp4" : "mpegts", nil),
            "avformat_alloc_output_context2")
        context = allocated!
        output = try MemoryOutput()
        context.pointee.pb = output.context
        context.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        var indices: [MediaKind: Int32] = [:]
        for stream in streams {
            let created = try checkAllocation(avformat_new_stream(context, nil), "avformat_new_stream")
            try check(avcodec_parameters_copy(created.pointee.codecpar, stream.parameters), "avcodec_parameters_copy")
            created.pointee.time_base =
                stream.kind == .video ? AVRational(num: 1, den: 90_000) : AVRational(num: 1, den: 48_000)
            indices[stream.kind] = created.pointee.index
        }
        streamIndex = indices
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        switch format {
        case .fmp4:
            // Fragments are cut by us (frag_custom); the moov is empty so the init segment
            // stands alone; no trailer, since a live stream has no end index.
            av_dict_set(&options, "movflags", "+frag_custom+empty_moov+default_base_moof+skip_trailer", 0)
        case .ts:
            av_dict_set(&options, "mpegts_flags", "+resend_headers", 0)
        }
        try check(avformat_write_header(context, &options), "avformat_write_header")
        initSegment = format == .fmp4 ? output.take() : []
    }

    /// Writes one packet into the open fragment. Wraps `av_write_frame`.
    func write(_ packet: EncodedPacket) throws {
        guard let index = streamIndex[packet.kind] else { return }
        var copy: UnsafeMutablePointer<AVPacket>? = try checkAllocation(
            av_packet_clone(packet.packet), "av_packet_clone")
        defer { av_packet_free(&copy) }
        copy!.pointee.stream_index = index
        av_packet_rescale_ts(
            copy, AVRational(num: packet.timeBase.numerator, den: packet.timeBase.denominator),
            context.pointee.streams[Int(index)]!.pointee.time_base)
        try check(av_write_frame(context, copy), "av_write_frame")
    }

    /// Ends the open fragment and returns its bytes. For TS, when a segment starts next,
    /// PAT and PMT are written again at its head.
    func cutFragment(segmentStartsNext: Bool) throws -> [UInt8] {
        try check(av_write_frame(context, nil), "av_write_frame(flush)")
        if format == .ts, segmentStartsNext {
            try check(av_opt_set(context.pointee.priv_data, "mpegts_flags", "+resend_headers", 0), "mpegts_flags")
        }
        return output.take()
    }

    /// Ends the stream and returns the last bytes. Wraps `av_write_trailer`.
    func finish() throws -> [UInt8] {
        try check(av_write_trailer(context), "av_write_trailer")
        return output.take()
    }

    deinit {
        avformat_free_context(context)
    }
}
