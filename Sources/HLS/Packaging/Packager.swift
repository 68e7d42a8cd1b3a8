import HLSModel
internal import CFFmpeg
import Media

/// Muxes encoded packets into fragmented MP4 or MPEG-TS in memory, one fragment at a time,
/// over libavformat's own muxers. Owns the AVFormatContext.
final class Packager {
    let format: ContainerFormat
    private let context: UnsafeMutablePointer<AVFormatContext>
    private let output: MemoryOutput
    /// Each track's stream in the muxer, and the time base the muxer stores it in.
    private let streams: [TrackID: (index: Int32, timeBase: AVRational)]
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
        let context = try LibavAllocation(allocated, "avformat_alloc_output_context2") { avformat_free_context($0) }
        output = try MemoryOutput()
        context.pointer.pointee.pb = output.context
        context.pointer.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
        var muxed: [TrackID: (index: Int32, timeBase: AVRational)] = [:]
        for stream in streams {
            let created = try checkAllocation(avformat_new_stream(context.pointer, nil), "avformat_new_stream")
            try check(avcodec_parameters_copy(created.pointee.codecpar, stream.parameters), "avcodec_parameters_copy")
            created.pointee.time_base = AVRational(
                num: stream.muxTimeBase.numerator, den: stream.muxTimeBase.denominator)
            muxed[stream.track] = (created.pointee.index, created.pointee.time_base)
        }
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
        try check(avformat_write_header(context.pointer, &options), "avformat_write_header")
        // The muxer may change a stream's time base in write_header: read them after it.
        self.streams = muxed.mapValues { ($0.index, context.pointer.pointee.streams[Int($0.index)]!.pointee.time_base) }
        self.context = context.handOver()
        initSegment = format == .fmp4 ? output.take() : []
    }

    /// Writes one packet into the open fragment; `duration` (in the packet's time base) replaces
    /// its own, for a picture shown until the next one however many slots lie between. Wraps
    /// `av_write_frame`.
    func write(_ packet: EncodedPacket, duration: Int64? = nil) throws {
        guard let stream = streams[packet.track] else { return }
        // The muxer writes into the packet: it gets a reference of its own, the shared one stays as it is.
        let copy = try LibavAllocation(av_packet_clone(packet.packet), "av_packet_clone") { av_packet_free(&$0) }
        copy.pointer.pointee.stream_index = stream.index
        if let duration { copy.pointer.pointee.duration = duration }
        av_packet_rescale_ts(
            copy.pointer, AVRational(num: packet.timeBase.numerator, den: packet.timeBase.denominator), stream.timeBase)
        try check(av_write_frame(context, copy.pointer), "av_write_frame")
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
