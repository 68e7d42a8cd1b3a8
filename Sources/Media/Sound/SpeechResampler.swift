internal import CFFmpeg

/// Converts a source's samples to what speech-to-text programs read: 16 kHz, one channel, signed
/// 16-bit little-endian (the channels mixed down). Owns a SwrContext; one thread uses it.
public final class SpeechResampler {
    /// Samples a second of the output.
    public static let sampleRate = 16_000
    private var context: OpaquePointer?
    private let inputRate: Int

    /// Wraps `swr_alloc_set_opts2` and `swr_init`, for frames shaped as `sample`.
    public init(from sample: AudioFrame) throws {
        inputRate = sample.sampleRate
        var mono = AVChannelLayout()
        av_channel_layout_default(&mono, 1)
        try check(
            swr_alloc_set_opts2(
                &context, &mono, AV_SAMPLE_FMT_S16, Int32(Self.sampleRate), &sample.frame.pointee.ch_layout,
                AVSampleFormat(sample.frame.pointee.format), sample.frame.pointee.sample_rate, 0, nil),
            "swr_alloc_set_opts2")
        do {
            try check(swr_init(context), "swr_init")
        } catch {
            swr_free(&context)
            throw error
        }
    }

    /// The bytes `frame` comes to. Wraps `swr_convert`.
    public func convert(_ frame: AudioFrame) throws -> [UInt8] {
        let capacity = swr_get_out_samples(context, Int32(frame.sampleCount))
        guard capacity > 0 else { return [] }
        var output = [UInt8](repeating: 0, count: Int(capacity) * 2)
        let converted = try output.withUnsafeMutableBufferPointer { buffer throws -> Int32 in
            var plane: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            let planes = UnsafeMutableRawPointer(frame.frame.pointee.extended_data)?
                .assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
            let count = withUnsafeMutablePointer(to: &plane) {
                swr_convert(context, $0, capacity, planes, Int32(frame.sampleCount))
            }
            try check(count, "swr_convert")
            return count
        }
        output.removeLast(output.count - Int(converted) * 2)
        return output
    }

    deinit {
        swr_free(&context)
    }
}
