/// Follows how far a capture device's sample count is from the broadcast clock, to place its
/// samples: the count plus `correction` is where they belong.
///
/// Each read gives a gap (the clock's position for the samples, minus the count). Two things move
/// it, and they are told apart by how they move:
/// - Drift: the device's crystal runs a little fast or slow (~0.01 %). The gap creeps, and the
///   correction follows its long-term average (a time constant of ~1000 reads, ~20 s), never faster
///   than 0.05 % of the samples read, which the encoder's resampler absorbs by stretching inaudibly.
///   Jitter in single reads averages out.
/// - Steps: the gap moves at once and stays (a sound server's latency report settling after it
///   starts, samples lost upstream). Followed at drift speed, a step of 250 ms would take eight
///   minutes to absorb with sound off the picture all along; so when the median gap of the last
///   second is more than `stepThreshold` from the correction, the correction jumps to it, and the
///   resampler fills the gap with silence or trims the overlap once. A single late read moves no
///   median.
public struct DeviceClockTracker: Sendable {
    /// Samples a second, the unit of every gap.
    public let rate: Int
    /// Samples of disagreement that count as a step rather than drift: 40 ms.
    public var stepThreshold: Double { Double(rate) * 0.04 }
    /// The correction to add to the sample count.
    public private(set) var correction = 0.0
    /// Steps taken, for the log.
    public private(set) var steps = 0
    private var recent: [Double] = []
    private var next = 0
    private let window: Int

    /// `readsPerSecond` sets how many gaps the median looks at: one second of reads.
    public init(rate: Int, readsPerSecond: Int) {
        self.rate = rate
        window = max(5, readsPerSecond)
        recent.reserveCapacity(window)
    }

    /// Takes the gap measured for a read of `samples` samples; returns the correction for them.
    public mutating func follow(gap: Double, samples: Int) -> Double {
        if recent.count < window {
            recent.append(gap)
        } else {
            recent[next] = gap
        }
        next = (next + 1) % window
        if recent.count == window {
            let median = recent.sorted()[window / 2]
            if abs(median - correction) > stepThreshold {
                correction = median
                steps += 1
                return correction
            }
        }
        let step = (gap - correction) / 1000
        let limit = Double(samples) * 0.0005
        correction += min(limit, max(-limit, step))
        return correction
    }
}
