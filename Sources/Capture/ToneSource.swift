import FoundationEssentials
public import Media
public import Runtime
#if canImport(Glibc)
    import Glibc
#endif

/// The built-in sound: a quiet 440 Hz tone with a 1 kHz beep for the first 100 ms of every
/// whole wall-clock second, in step with the test pattern's clock. Delivered as a capture
/// device would: 16-bit interleaved stereo, 20 ms at a time, paced in real time.
public final class ToneSource: AudioSource {
    public static let sampleRate = 48_000
    public static let chunk = 960
    private let clock: MediaClock
    private let stop: StopSignal
    private var position: Int64 = 0

    public init(clock: MediaClock, stop: StopSignal) {
        self.clock = clock
        self.stop = stop
    }

    public func read() throws -> AudioFrame? {
        let start = Double(position) / Double(Self.sampleRate)
        if stop.shouldStop(at: start) { return nil }
        let frame = try AudioFrame(
            format: .s16Interleaved, sampleRate: Self.sampleRate, channelCount: 2, sampleCount: Self.chunk,
            position: position)
        frame.withInterleavedSamples { samples in
            for index in 0..<Self.chunk {
                let value = Self.sample(
                    at: position + Int64(index), anchorWallMilliseconds: clock.anchorWallMilliseconds)
                samples[2 * index] = value
                samples[2 * index + 1] = value
            }
        }
        position += Int64(Self.chunk)
        // The samples exist once their last one has been "heard".
        clock.sleep(until: Double(position) / Double(Self.sampleRate))
        return frame
    }

    /// The 16-bit sample at a position, given the wall time of position 0.
    static func sample(at position: Int64, anchorWallMilliseconds: Int64) -> Int16 {
        let seconds = Double(position) / Double(sampleRate)
        let wallMilliseconds = anchorWallMilliseconds + Int64((seconds * 1000).rounded(.down))
        let beeping = ((wallMilliseconds % 1000) + 1000) % 1000 < 100
        let (frequency, amplitude) = beeping ? (1000.0, 0.5) : (440.0, 0.1)
        return Int16((amplitude * 32767 * sin(2 * .pi * frequency * seconds)).rounded())
    }
}
