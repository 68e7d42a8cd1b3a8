public import Runtime
internal import CFFmpeg

/// Where a muxer's bytes go.
public enum MuxerOutput {
    /// Kept in memory, handed over in pieces by ``Muxer/take()``.
    case memory
    /// A file path or a network address libavformat opens itself (`rtmp://`, `srt://`), with the
    /// protocol's options; `interrupt`, once raised, makes a blocked network call give up.
    case address(String, options: [(name: String, value: String)] = [], interrupt: Flag? = nil)
}

/// A container being written (fragmented MP4, MPEG-TS, FLV, MP4) over libavformat's own muxers:
/// streams added, opened, packets written in order, finished. Owns the AVFormatContext and its
/// output; dropping an unfinished muxer closes its output without a trailer.
public final class Muxer {
    /// One stream of the container, as ``addStream(like:)`` made it.
    public struct Stream: Sendable, Hashable {
        let index: Int32
    }

    private let context: UnsafeMutablePointer<AVFormatContext>
    private let memory: MemoryOutput?
    /// Raised by the owner to make a blocked network call give up; kept while the output lives.
    private let interrupt: Flag?
    private let address: String?
    private let protocolOptions: [(name: String, value: String)]
    /// The streams made from encoders' descriptions, by track.
    private var tracks: [TrackID: Int32] = [:]
    /// Each stream's time base once open (the muxer may change the one asked for).
    private var timeBases: [AVRational] = []
    private var opened = false

    /// Makes the container `format` ("mp4", "mpegts", "flv") writing to `output`. Wraps
    /// `avformat_alloc_output_context2`.
    public init(format: String, to output: MuxerOutput) throws(LibavError) {
        var allocated: UnsafeMutablePointer<AVFormatContext>?
        switch output {
        case .memory:
            try check(avformat_alloc_output_context2(&allocated, nil, format, nil), "avformat_alloc_output_context2")
            address = nil
            protocolOptions = []
            interrupt = nil
        case .address(let target, let options, let flag):
            try check(avformat_alloc_output_context2(&allocated, nil, format, target), "avformat_alloc_output_context2")
            address = target
            protocolOptions = options
            interrupt = flag
        }
        let context = try LibavAllocation(allocated, "avformat_alloc_output_context2") { avformat_free_context($0) }
        if case .memory = output {
            let memory = try MemoryOutput()
            context.pointer.pointee.pb = memory.context
            context.pointer.pointee.flags |= AVFMT_FLAG_CUSTOM_IO
            self.memory = memory
        } else {
            memory = nil
        }
        self.context = context.handOver()
    }

    /// Adds a stream for an encoder's track, stored in its ``StreamDescription/muxTimeBase``;
    /// packets of that track go to it. Wraps `avformat_new_stream`.
    public func addStream(for description: StreamDescription) throws(LibavError) {
        let stream = try newStream(copying: description.parameters, timeBase: description.muxTimeBase)
        tracks[description.track] = stream.index
    }

    /// Adds a stream like one a demuxer reads, in its time base; its packets are copied in with
    /// ``write(_:to:shiftedBy:)``.
    public func addStream(like input: Demuxer.Stream) throws(LibavError) -> Stream {
        try newStream(copying: input.parameters, timeBase: input.timeBase)
    }

    /// Adds a subtitle stream for `encoder`'s samples, in milliseconds, its `language` (an ISO 639-2
    /// code, as an MP4 keeps it) and `name` (the track's handler name) with it; its
    /// samples go in with ``write(textSample:to:start:end:)``. Wraps `avcodec_parameters_from_context`.
    public func addStream(for encoder: TimedTextEncoder, language: String, name: String) throws(LibavError) -> Stream {
        let created = try checkAllocation(avformat_new_stream(context, nil), "avformat_new_stream")
        try check(
            avcodec_parameters_from_context(created.pointee.codecpar, encoder.context),
            "avcodec_parameters_from_context")
        created.pointee.time_base = AVRational(num: 1, den: 1000)
        av_dict_set(&created.pointee.metadata, "language", language, 0)
        av_dict_set(&created.pointee.metadata, "handler_name", name, 0)
        return Stream(index: created.pointee.index)
    }

    /// Writes one text sample (``TimedTextEncoder/sample(dialogue:)``) shown from `start` to `end`
    /// (seconds of the file). A gap between samples is the muxer's to fill with an empty one. Wraps
    /// `av_interleaved_write_frame`.
    public func write(textSample bytes: [UInt8], to stream: Stream, start: Double, end: Double) throws(LibavError) {
        let packet = try LibavAllocation(av_packet_alloc(), "av_packet_alloc") { av_packet_free(&$0) }
        try check(av_new_packet(packet.pointer, Int32(bytes.count)), "av_new_packet")
        bytes.withUnsafeBufferPointer {
            if let source = $0.baseAddress { packet.pointer.pointee.data.update(from: source, count: $0.count) }
        }
        let milliseconds = { (seconds: Double) in Int64((seconds * 1000).rounded()) }
        packet.pointer.pointee.pts = milliseconds(start)
        packet.pointer.pointee.dts = milliseconds(start)
        packet.pointer.pointee.duration = max(1, milliseconds(end) - milliseconds(start))
        packet.pointer.pointee.flags |= AV_PKT_FLAG_KEY
        packet.pointer.pointee.stream_index = stream.index
        av_packet_rescale_ts(packet.pointer, AVRational(num: 1, den: 1000), timeBases[Int(stream.index)])
        try check(av_interleaved_write_frame(context, packet.pointer), "writing a text sample")
    }

    private func newStream(
        copying parameters: UnsafePointer<AVCodecParameters>, timeBase: TimeBase
    ) throws(LibavError) -> Stream {
        let created = try checkAllocation(avformat_new_stream(context, nil), "avformat_new_stream")
        try check(avcodec_parameters_copy(created.pointee.codecpar, parameters), "avcodec_parameters_copy")
        // The tag is the container's own choice (an MP4's `avc1` is no FLV's).
        created.pointee.codecpar.pointee.codec_tag = 0
        created.pointee.time_base = AVRational(num: timeBase.numerator, den: timeBase.denominator)
        return Stream(index: created.pointee.index)
    }

    /// Opens the output (a connection, a file) and writes the container's header with the muxer's
    /// `options`. Wraps `avio_open2` and `avformat_write_header`.
    public func open(options: [(name: String, value: String)] = []) throws(LibavError) {
        if let address {
            var dictionary = Dictionary(protocolOptions)
            defer { av_dict_free(&dictionary.pointer) }
            var callback = AVIOInterruptCB(
                callback: { opaque in
                    guard let opaque else { return 0 }
                    return Unmanaged<Flag>.fromOpaque(opaque).takeUnretainedValue().isSet ? 1 : 0
                }, opaque: interrupt.map { Unmanaged.passUnretained($0).toOpaque() })
            try check(
                avio_open2(&context.pointee.pb, address, AVIO_FLAG_WRITE, &callback, &dictionary.pointer),
                "opening the output")
        }
        var dictionary = Dictionary(options)
        defer { av_dict_free(&dictionary.pointer) }
        try check(avformat_write_header(context, &dictionary.pointer), "writing the header")
        // The muxer may change a stream's time base in write_header: read them after it.
        timeBases = (0..<Int(context.pointee.nb_streams)).map { context.pointee.streams[$0]!.pointee.time_base }
        opened = true
    }

    /// What the muxer wrote to memory since the last take (the header, a fragment), in an array of
    /// its exact size.
    public func take() -> [UInt8] {
        memory?.take() ?? []
    }

    /// Writes an encoder's packet (of a track added with ``addStream(for:)``; others are passed
    /// over), as it comes (`interleaved: false`, the caller orders them) or through libavformat's
    /// interleaving queue; `duration` (in the packet's time base) replaces its own. The packet
    /// stays as it is: the muxer writes a reference of its own. Wraps `av_write_frame` and
    /// `av_interleaved_write_frame`.
    public func write(_ packet: EncodedPacket, duration: Int64? = nil, interleaved: Bool) throws(LibavError) {
        guard let index = tracks[packet.track] else { return }
        let copy = try LibavAllocation(av_packet_clone(packet.packet), "av_packet_clone") { av_packet_free(&$0) }
        copy.pointer.pointee.stream_index = index
        if let duration { copy.pointer.pointee.duration = duration }
        let from = AVRational(num: packet.timeBase.numerator, den: packet.timeBase.denominator)
        let to = timeBases[Int(index)]
        let start = copy.pointer.pointee.pts, length = copy.pointer.pointee.duration
        av_packet_rescale_ts(copy.pointer, from, to)
        // A length rounded on its own drifts from the times rounded: a 30 fps frame is 33,333.3 µs,
        // and an fMP4 muxer counts each fragment's start from the lengths before it. The length to
        // where the next frame starts, each end rounded, adds up to the next frame's time.
        if start != Demuxer.noTimestamp, length > 0 {
            copy.pointer.pointee.duration = av_rescale_q(start + length, from, to) - copy.pointer.pointee.pts
        }
        if interleaved {
            try check(av_interleaved_write_frame(context, copy.pointer), "writing a packet")
        } else {
            try check(av_write_frame(context, copy.pointer), "writing a packet")
        }
    }

    /// Copies a demuxed packet into `stream`, its time moved on by `shift` seconds. Wraps
    /// `av_interleaved_write_frame`.
    public func write(_ packet: Demuxer.Packet, to stream: Stream, shiftedBy shift: Double) throws(LibavError) {
        let raw = packet.packet
        let base = packet.stream.timeBase
        // The times come from files (a hosted channel's are its publisher's): one out of range is
        // refused, never let to overflow.
        let ticks = (shift * Double(base.denominator) / Double(base.numerator)).rounded()
        let outOfRange = LibavError(code: -ERANGE, operation: "shifting a packet's time")
        guard let offset = Int64(exactly: ticks) else { throw outOfRange }
        for time in [\AVPacket.pts, \AVPacket.dts] where raw.pointee[keyPath: time] != Demuxer.noTimestamp {
            let (shifted, overflow) = raw.pointee[keyPath: time].addingReportingOverflow(offset)
            guard !overflow, shifted != Demuxer.noTimestamp else { throw outOfRange }
            raw.pointee[keyPath: time] = shifted
        }
        raw.pointee.stream_index = stream.index
        raw.pointee.pos = -1
        av_packet_rescale_ts(raw, AVRational(num: base.numerator, den: base.denominator), timeBases[Int(stream.index)])
        try check(av_interleaved_write_frame(context, raw), "writing a packet")
    }

    /// Ends the fragment being written (fragmented MP4 cut by the caller, MPEG-TS). Wraps
    /// `av_write_frame(nil)`.
    public func flushFragment() throws(LibavError) {
        try check(av_write_frame(context, nil), "ending a fragment")
    }

    /// Adds a chapter titled `title` from `start` to `end` (seconds from the file's start), before
    /// the output is opened; an MP4 lists them in a chapter track and Nero's `chpl` box, which
    /// players and `ffprobe -show_chapters` read. libavformat has no public call to add one: the
    /// chapter is allocated with av_malloc, as `avformat_free_context` frees it.
    public func addChapter(start: Double, end: Double, title: String) throws(LibavError) {
        precondition(!opened, "chapters go in before the header")
        let count = Int(context.pointee.nb_chapters)
        let grown = try checkAllocation(
            av_realloc_array(
                context.pointee.chapters, count + 1, MemoryLayout<UnsafeMutablePointer<AVChapter>?>.stride),
            "av_realloc_array")
        context.pointee.chapters = grown.assumingMemoryBound(to: UnsafeMutablePointer<AVChapter>?.self)
        let memory = try checkAllocation(av_mallocz(MemoryLayout<AVChapter>.size), "av_mallocz")
        let chapter = memory.assumingMemoryBound(to: AVChapter.self)
        chapter.pointee.id = Int64(count + 1)
        chapter.pointee.time_base = AVRational(num: 1, den: 1000)
        chapter.pointee.start = Int64((start * 1000).rounded())
        chapter.pointee.end = max(chapter.pointee.start, Int64((end * 1000).rounded()))
        av_dict_set(&chapter.pointee.metadata, "title", title, 0)
        context.pointee.chapters[count] = chapter
        context.pointee.nb_chapters += 1
    }

    /// Sets an option of the container's muxer while it runs (e.g. MPEG-TS's `mpegts_flags`).
    public func setMuxerOption(_ name: String, _ value: String) throws(LibavError) {
        try check(av_opt_set(context.pointee.priv_data, name, value, 0), name)
    }

    /// Writes the trailer and closes the output (a file is complete on return; its last write's
    /// error is thrown). Wraps `av_write_trailer` and `avio_closep`.
    public func finish() throws(LibavError) {
        guard opened else { return }
        opened = false
        try check(av_write_trailer(context), "writing the trailer")
        if address != nil { try check(avio_closep(&context.pointee.pb), "closing the output") }
    }

    deinit {
        if address != nil, context.pointee.pb != nil { avio_closep(&context.pointee.pb) }
        avformat_free_context(context)
    }
}

/// An AVDictionary made from name-value pairs, freed by its user.
private struct Dictionary {
    var pointer: OpaquePointer?

    init(_ pairs: [(name: String, value: String)]) {
        for pair in pairs { av_dict_set(&pointer, pair.name, pair.value, 0) }
    }
}
