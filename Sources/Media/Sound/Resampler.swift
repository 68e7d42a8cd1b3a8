internal import CFFmpeg

/// Converts one source's samples to 48 kHz stereo float planar, stretching or squeezing them
/// (at most 0.1 %, inaudibly) so that the sample count follows the positions the source gives:
/// a capture device's clock drifting from the broadcast clock is compensated here, and a gap
/// is filled or an overlap trimmed. Owns a SwrContext.
final class Resampler {
    private var context: OpaquePointer?

    /// Wraps `swr_alloc_set_opts2` and `swr_init`.
    init(from sample: AudioFrame, toRate outputRate: Int) throws {
        var outputLayout = CFFmpeg_stereoLayout()
        try check(
            swr_alloc_set_opts2(
                &context, &outputLayout, AV_SAMPLE_FMT_FLTP, Int32(outputRate),
                &sample.frame.pointee.ch_layout, AVSampleFormat(sample.frame.pointee.format),
                sample.frame.pointee.sample_rate, 0, nil),
            "swr_alloc_set_opts2")
        // Timestamp matching as libavfilter's aresample=async does: up to 48 samples a second, and
        // gaps over 20 ms (samples lost to an overrun) filled with silence at once.
        av_opt_set_double(UnsafeMutableRawPointer(context), "async", 48, 0)
        av_opt_set_double(UnsafeMutableRawPointer(context), "min_hard_comp", 0.02, 0)
        do {
            try check(swr_init(context), "swr_init")
        } catch {
            swr_free(&context)
            throw error
        }
    }

    /// Converts a frame and appends the result to the FIFO. Wraps `swr_convert`.
    func convert(_ frame: AudioFrame, into fifo: AudioFIFO) throws {
        // In 1 / (input rate × output rate) units, as swr_next_pts wants them.
        _ = swr_next_pts(context, frame.position * Int64(AudioEncoder.sampleRate))
        try run(input: frame.frame.pointee.extended_data, count: Int32(frame.sampleCount), into: fifo)
    }

    /// Flushes the samples held back for filtering.
    func drain(into fifo: AudioFIFO) throws {
        try run(input: nil, count: 0, into: fifo)
    }

    private func run(
        input: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?, count: Int32, into fifo: AudioFIFO
    ) throws {
        let capacity = swr_get_out_samples(context, count)
        guard capacity > 0 else { return }
        let output = try AudioFrame(
            format: .floatPlanar, sampleRate: AudioEncoder.sampleRate, channelCount: 2,
            sampleCount: Int(capacity), position: 0)
        // swr_convert reads the planes through const pointers; a nil input drains it.
        let planes = UnsafeMutableRawPointer(input)?.assumingMemoryBound(to: UnsafePointer<UInt8>?.self)
        let converted = swr_convert(context, output.frame.pointee.extended_data, capacity, planes, count)
        try check(converted, "swr_convert")
        try withExtendedLifetime(output) { try fifo.write(output.frame.pointee.extended_data, count: converted) }
    }

    deinit {
        swr_free(&context)
    }
}
