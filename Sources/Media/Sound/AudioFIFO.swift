internal import CFFmpeg

/// Sound on its way to the encoder or the mix: any source's samples converted to 48 kHz stereo
/// float planar (drift and gaps absorbed by the ``Resampler``) and queued, with the position of the
/// first queued sample. Owns the AVAudioFifo; every call on it is checked here.
package final class AudioFIFO {
    private let fifo: OpaquePointer
    private var resampler: Resampler?
    /// Position of the first queued sample at 48 kHz; nil before the first frame.
    package private(set) var position: Int64?

    /// Wraps `av_audio_fifo_alloc`.
    package init() throws(LibavError) {
        fifo = try checkAllocation(
            av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, 2, Int32(AudioEncoder.sampleRate)), "av_audio_fifo_alloc")
    }

    /// Samples queued.
    package var count: Int { Int(av_audio_fifo_size(fifo)) }

    /// Converts a frame and queues the result; the first frame sets the position.
    package func append(_ frame: AudioFrame) throws {
        if resampler == nil {
            resampler = try Resampler(from: frame, toRate: AudioEncoder.sampleRate)
            position = av_rescale(frame.position, Int64(AudioEncoder.sampleRate), Int64(frame.sampleRate))
        }
        try resampler!.convert(frame, into: self)
    }

    /// Queues the samples the resampler still holds back for filtering.
    package func drain() throws {
        try resampler?.drain(into: self)
    }

    /// Queues converted planes. Wraps `av_audio_fifo_write`.
    func write(_ planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, count: Int32) throws(LibavError) {
        let written = planes.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 2) {
            av_audio_fifo_write(fifo, $0, count)
        }
        try check(written, "av_audio_fifo_write")
        if written < count { throw LibavError(code: -ENOMEM, operation: "av_audio_fifo_write") }
    }

    /// Takes up to `count` samples off the queue as a frame stamped with their position.
    /// Wraps `av_audio_fifo_read`.
    package func read(_ count: Int) throws(LibavError) -> AudioFrame {
        let count = min(count, self.count)
        let frame = try AudioFrame(
            format: .floatPlanar, sampleRate: AudioEncoder.sampleRate, channelCount: 2, sampleCount: count,
            position: position ?? 0)
        let read = frame.frame.pointee.extended_data.withMemoryRebound(to: UnsafeMutableRawPointer?.self, capacity: 2) {
            av_audio_fifo_read(fifo, $0, Int32(count))
        }
        try check(read, "av_audio_fifo_read")
        frame.keepFirst(Int(read))
        position = position.map { $0 + Int64(read) }
        return frame
    }

    /// Drops up to `count` of the oldest samples. Wraps `av_audio_fifo_drain`.
    package func discard(_ count: Int) throws(LibavError) {
        let dropped = min(count, self.count)
        try check(av_audio_fifo_drain(fifo, Int32(dropped)), "av_audio_fifo_drain")
        position = position.map { $0 + Int64(dropped) }
    }

    deinit {
        av_audio_fifo_free(fifo)
    }
}
