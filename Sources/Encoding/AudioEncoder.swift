internal import CFFmpeg
public import Media

/// AAC-LC at 48 kHz stereo through libav's native encoder. Accepts frames in any rate, format
/// and channel count (converted with libswresample) and in any length (regrouped into the
/// encoder's 1024-sample frames).
public final class AudioEncoder {
    public static let sampleRate = 48_000
    public let stream: StreamDescription
    private let codec: CodecContext
    private let fifo: OpaquePointer
    private var resampler: Resampler?
    private var nextPosition: Int64?

    public init(bitrate: Int) throws {
        codec = try CodecContext(encoder: "aac", kind: .audio) { context in
            context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            context.pointee.sample_rate = Int32(AudioEncoder.sampleRate)
            context.pointee.ch_layout = CFFmpeg_stereoLayout()
            context.pointee.bit_rate = Int64(bitrate)
            context.pointee.time_base = AVRational(num: 1, den: Int32(AudioEncoder.sampleRate))
            context.pointee.profile = FF_PROFILE_AAC_LOW
            context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        }
        stream = try codec.streamDescription()
        fifo = try checkAllocation(
            av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, 2, Int32(AudioEncoder.sampleRate)), "av_audio_fifo_alloc")
    }

    private var frameSize: Int32 { codec.context.pointee.frame_size }

    /// Converts and queues the samples, and encodes every whole encoder frame now available.
    public func encode(_ frame: AudioFrame) throws -> [EncodedPacket] {
        if resampler == nil {
            resampler = try Resampler(from: frame, toRate: AudioEncoder.sampleRate)
            nextPosition = av_rescale(frame.position, Int64(AudioEncoder.sampleRate), Int64(frame.sampleRate))
        }
        try resampler!.convert(frame, into: fifo)
        return try encodeQueued(flushing: false)
    }

    /// Encodes the remaining samples (the last frame padded by the encoder) and drains it.
    public func flush() throws -> [EncodedPacket] {
        try resampler?.drain(into: fifo)
        return try encodeQueued(flushing: true)
    }

    private func encodeQueued(flushing: Bool) throws -> [EncodedPacket] {
        var packets: [EncodedPacket] = []
        while av_audio_fifo_size(fifo) >= frameSize || (flushing && av_audio_fifo_size(fifo) > 0) {
            let count = min(frameSize, av_audio_fifo_size(fifo))
            let frame = try AudioFrame(
                format: .floatPlanar, sampleRate: AudioEncoder.sampleRate, channelCount: 2,
                sampleCount: Int(count), position: nextPosition ?? 0)
            let read = frame.frame.pointee.extended_data.withMemoryRebound(
                to: UnsafeMutableRawPointer?.self, capacity: 2
            ) { av_audio_fifo_read(fifo, $0, count) }
            try check(read, "av_audio_fifo_read")
            nextPosition = (nextPosition ?? 0) + Int64(count)
            packets += try codec.encode(frame.frame)
        }
        if flushing {
            packets += try codec.encode(nil)
        }
        return packets.map(restampPriming)
    }

    /// AAC starts with `initial_padding` samples of encoder delay, stamped before zero. We
    /// stamp each packet at its input position instead, so both tracks start at exactly 0 with
    /// no muxer shifting or edit list; a decoder that keeps the priming plays sound 21 ms late,
    /// well inside the 45 ms early / 125 ms late lip-sync window.
    private func restampPriming(_ packet: EncodedPacket) -> EncodedPacket {
        let padding = Int64(codec.context.pointee.initial_padding)
        packet.packet.pointee.pts += padding
        packet.packet.pointee.dts += padding
        return packet
    }

    deinit {
        av_audio_fifo_free(fifo)
    }
}
