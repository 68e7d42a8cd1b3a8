import FoundationEssentials
public import Media
import Runtime
#if canImport(Glibc)
    import Glibc
#endif

/// Mixes a second sound source into the first (desktop sound and a microphone), each with its
/// own gain, into 48 kHz stereo; the sum is limited to full scale, so loud moments clip instead
/// of wrapping around. The first source gives the timestamps. The second is read on a thread of
/// its own and mixed in the order its samples arrive, as a live mixer does: devices report
/// latencies of their own (PulseAudio monitors up to half a second), and aligning on them would
/// throw a late microphone away. The mix runs 100 ms behind the first source; the second one's
/// queue rides out the bursts some devices deliver in (PulseAudio's monitors: up to half a second
/// at a time) and is kept under a second (oldest dropped), so it never falls further behind.
// Unchecked Sendable: its sources hold C handles; each is read by one thread.
public final class AudioMixer: AudioSource, @unchecked Sendable {
    private let primary: any AudioSource
    private let primaryInput: MixerInput
    private let secondaryInput: MixerInput
    private let secondaryFrames = BoundedQueue<AudioFrame>(capacity: 64, policy: .block)
    private static let latency = AudioEncoder.sampleRate / 10

    /// One source with a gain (in dB), nothing mixed in.
    public init(primary: any AudioSource, primaryGain: Double) throws {
        self.primary = primary
        primaryInput = try MixerInput(gain: Float(pow(10, primaryGain / 20)))
        secondaryInput = try MixerInput(gain: 0)
        secondaryFrames.close()
    }

    /// Two sources, gains in dB. The second is sent to a thread of its own that reads it: its only
    /// user from then on.
    public init(
        primary: any AudioSource, primaryGain: Double, secondary: sending any AudioSource, secondaryGain: Double
    ) throws {
        self.primary = primary
        primaryInput = try MixerInput(gain: Float(pow(10, primaryGain / 20)))
        secondaryInput = try MixerInput(gain: Float(pow(10, secondaryGain / 20)))
        let frames = secondaryFrames
        _ = WorkerThread(name: "onair-audio-mix") {
            while let frame = try? secondary.read() { frames.push(frame) }
            frames.close()
        }
    }

    public func read() throws -> AudioFrame? {
        while true {
            guard let frame = try primary.read() else {
                secondaryFrames.close()
                return primaryInput.available > 0 ? try mix(primaryInput.available) : nil
            }
            try primaryInput.add(frame)
            while let other = secondaryFrames.tryPop() { try secondaryInput.add(other) }
            let ready = primaryInput.available - Self.latency
            if ready > 0 { return try mix(ready) }
        }
    }

    /// Mixes the oldest `count` samples of the first source with what the second has for them.
    private func mix(_ count: Int) throws -> AudioFrame {
        let position = primaryInput.position!
        let mixed = try AudioFrame(
            format: .floatPlanar, sampleRate: AudioEncoder.sampleRate, channelCount: 2, sampleCount: count,
            position: position)
        mixed.silence()
        try primaryInput.add(count, into: mixed, at: 0)
        let backlog = secondaryInput.available - AudioEncoder.sampleRate
        if backlog > 0 { try secondaryInput.discard(backlog) }
        let available = min(secondaryInput.available, count)
        if available > 0 { try secondaryInput.add(available, into: mixed, at: 0) }
        Self.limit(mixed)
        return mixed
    }

    private static func limit(_ frame: AudioFrame) {
        for channel in 0..<2 {
            frame.withPlanarSamples(channel: channel) { samples in
                for index in samples.indices { samples[index] = min(1, max(-1, samples[index])) }
            }
        }
    }
}

/// One source of the mix: its samples converted to 48 kHz stereo and queued with the position
/// of the first one.
final class MixerInput {
    let gain: Float
    private let queue: AudioFIFO

    init(gain: Float) throws {
        self.gain = gain
        queue = try AudioFIFO()
    }

    var available: Int { queue.count }
    /// Position of the first queued sample, at 48 kHz.
    var position: Int64? { queue.position }

    func add(_ frame: AudioFrame) throws {
        try queue.append(frame)
    }

    /// Takes `count` samples off the queue and adds them, times the gain, into `frame` from `offset`.
    func add(_ count: Int, into frame: AudioFrame, at offset: Int) throws {
        let taken = try queue.read(count)
        defer { withExtendedLifetime(taken) {} }
        for channel in 0..<2 {
            taken.withPlanarSamples(channel: channel) { source in
                frame.withPlanarSamples(channel: channel) { target in
                    for index in source.indices { target[offset + index] += source[index] * gain }
                }
            }
        }
    }

    /// Drops the oldest samples.
    func discard(_ count: Int) throws {
        try queue.discard(count)
    }
}
