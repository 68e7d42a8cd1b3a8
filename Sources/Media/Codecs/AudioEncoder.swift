internal import CFFmpeg

/// AAC-LC at 48 kHz stereo through libav's native encoder. Accepts frames in any rate, format
/// and channel count (converted with libswresample) and in any length (regrouped into the
/// encoder's 1024-sample frames).
public final class AudioEncoder {
    public static let sampleRate = 48_000
    public static let channels = 2
    /// Samples in each AAC-LC frame (and so in each packet).
    public static let samplesPerFrame = 1024
    public let stream: StreamDescription
    private let codec: CodecContext
    private let queue: AudioFIFO

    public init(bitrate: Int, track: TrackID) throws {
        codec = try CodecContext(encoder: "aac", track: track, kind: .audio) { context in
            context.pointee.sample_fmt = AV_SAMPLE_FMT_FLTP
            context.pointee.sample_rate = Int32(AudioEncoder.sampleRate)
            context.pointee.ch_layout = CFFmpeg_stereoLayout()
            context.pointee.bit_rate = Int64(bitrate)
            context.pointee.time_base = AVRational(num: 1, den: Int32(AudioEncoder.sampleRate))
            context.pointee.profile = FF_PROFILE_AAC_LOW
            context.pointee.flags |= AV_CODEC_FLAG_GLOBAL_HEADER
        } finish: { context, packet in
            Self.restampPriming(packet, padding: Int64(context.pointee.initial_padding))
        }
        stream = try codec.streamDescription()
        queue = try AudioFIFO()
    }

    private var frameSize: Int { Int(codec.context.pointee.frame_size) }

    /// Converts and queues the samples, and encodes every whole encoder frame now available.
    public func encode(_ frame: AudioFrame) throws -> [EncodedPacket] {
        try queue.append(frame)
        return try encodeQueued(flushing: false)
    }

    /// Encodes the remaining samples (the last frame padded by the encoder) and drains it.
    public func flush() throws -> [EncodedPacket] {
        try queue.drain()
        return try encodeQueued(flushing: true)
    }

    private func encodeQueued(flushing: Bool) throws -> [EncodedPacket] {
        var packets: [EncodedPacket] = []
        while queue.count >= frameSize || (flushing && queue.count > 0) {
            let frame = try queue.read(frameSize)
            packets += try withExtendedLifetime(frame) { try codec.encode(frame.frame) }
        }
        if flushing {
            packets += try codec.encode(nil)
        }
        return packets
    }

    /// AAC starts with `initial_padding` samples of encoder delay, stamped before zero. We
    /// stamp each packet at its input position instead, so both tracks start at exactly 0 with
    /// no muxer shifting or edit list; a decoder that keeps the priming plays sound 21 ms late,
    /// well inside the 45 ms early / 125 ms late lip-sync window.
    private static func restampPriming(_ packet: UnsafeMutablePointer<AVPacket>, padding: Int64) {
        packet.pointee.pts += padding
        packet.pointee.dts += padding
    }
}
