package import CFFmpeg

/// The sample layouts sources deliver.
public enum SampleFormat: Sendable, Hashable {
    /// Signed 16-bit, channels interleaved: what most capture devices give.
    case s16Interleaved
    /// Signed 32-bit, channels interleaved.
    case s32Interleaved
    /// 32-bit float, channels interleaved.
    case floatInterleaved
    /// 32-bit float, one plane per channel: what the AAC encoder takes.
    case floatPlanar

    package var libav: AVSampleFormat {
        switch self {
        case .s16Interleaved: AV_SAMPLE_FMT_S16
        case .s32Interleaved: AV_SAMPLE_FMT_S32
        case .floatInterleaved: AV_SAMPLE_FMT_FLT
        case .floatPlanar: AV_SAMPLE_FMT_FLTP
        }
    }
}

/// A run of audio samples. Owns its AVFrame; immutable once handed to the next stage.
// Unchecked Sendable: a C handle (AVFrame), immutable once handed on.
public final class AudioFrame: @unchecked Sendable {
    package let frame: UnsafeMutablePointer<AVFrame>

    /// The first sample's position, in samples at `sampleRate` since the broadcast began.
    public var position: Int64 {
        get { frame.pointee.pts }
        set { frame.pointee.pts = newValue }
    }
    public var sampleCount: Int { Int(frame.pointee.nb_samples) }
    public var sampleRate: Int { Int(frame.pointee.sample_rate) }
    public var channelCount: Int { Int(frame.pointee.ch_layout.nb_channels) }

    /// Allocates `sampleCount` samples. Wraps `av_frame_get_buffer`.
    public init(
        format: SampleFormat, sampleRate: Int, channelCount: Int, sampleCount: Int, position: Int64
    ) throws(LibavError) {
        let frame = try LibavAllocation(av_frame_alloc(), "av_frame_alloc") { av_frame_free(&$0) }
        frame.pointer.pointee.format = format.libav.rawValue
        frame.pointer.pointee.sample_rate = Int32(sampleRate)
        frame.pointer.pointee.nb_samples = Int32(sampleCount)
        frame.pointer.pointee.pts = position
        av_channel_layout_default(&frame.pointer.pointee.ch_layout, Int32(channelCount))
        try check(av_frame_get_buffer(frame.pointer, 0), "av_frame_get_buffer")
        self.frame = frame.handOver()
    }

    /// Borrows the interleaved 16-bit samples for writing (`s16Interleaved` frames only).
    public func withInterleavedSamples<R>(_ body: (UnsafeMutableBufferPointer<Int16>) throws -> R) rethrows -> R {
        precondition(frame.pointee.format == AV_SAMPLE_FMT_S16.rawValue)
        let count = sampleCount * channelCount
        return try frame.pointee.data.0!.withMemoryRebound(to: Int16.self, capacity: count) {
            try body(UnsafeMutableBufferPointer(start: $0, count: count))
        }
    }

    /// Borrows the bytes of an interleaved frame for writing: `sampleCount × channels × bytes per sample`.
    public func withInterleavedBytes<R>(_ body: (UnsafeMutableRawBufferPointer) throws -> R) rethrows -> R {
        let size = Int(av_get_bytes_per_sample(AVSampleFormat(frame.pointee.format))) * sampleCount * channelCount
        return try body(UnsafeMutableRawBufferPointer(start: frame.pointee.data.0!, count: size))
    }

    /// Borrows one channel's samples for writing (`floatPlanar` frames only).
    public func withPlanarSamples<R>(
        channel: Int, _ body: (UnsafeMutableBufferPointer<Float>) throws -> R
    ) rethrows -> R {
        precondition(frame.pointee.format == AV_SAMPLE_FMT_FLTP.rawValue && channel < channelCount)
        return try frame.pointee.extended_data[channel]!.withMemoryRebound(to: Float.self, capacity: sampleCount) {
            try body(UnsafeMutableBufferPointer(start: $0, count: sampleCount))
        }
    }

    /// Shortens the frame to its first `count` samples (a short read).
    public func keepFirst(_ count: Int) {
        frame.pointee.nb_samples = Int32(min(count, sampleCount))
    }

    /// Makes every sample silent. Wraps `av_samples_set_silence`.
    public func silence() {
        av_samples_set_silence(
            frame.pointee.extended_data, 0, frame.pointee.nb_samples, frame.pointee.ch_layout.nb_channels,
            AVSampleFormat(frame.pointee.format))
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&frame)
    }
}
