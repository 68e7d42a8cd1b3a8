import Testing

@testable import Capture

/// 44.1 kHz read in periods of 882 samples: 50 reads a second, as from ALSA with 20 ms periods.
@Suite struct DeviceClockTrackerTests {
    static let period = 882

    /// Jitter of ±600 samples (±14 ms), as measured from the pulse device under load, from a fixed
    /// sequence so every run sees the same values.
    struct Jitter {
        var state: UInt64 = 7
        mutating func next() -> Double {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(Int(state >> 33) % 1201 - 600)
        }
    }

    func tracker() -> DeviceClockTracker {
        DeviceClockTracker(rate: 44_100, readsPerSecond: 44_100 / Self.period)
    }

    @Test func jitterAloneMovesNothing() {
        var tracker = tracker()
        var jitter = Jitter()
        var largest = 0.0
        for _ in 0..<3000 {
            largest = max(largest, abs(tracker.follow(gap: jitter.next(), samples: Self.period)))
        }
        #expect(tracker.steps == 0)
        // 600 samples of jitter averaged over ~1000 reads: well under a millisecond (44 samples).
        #expect(largest < 44)
    }

    @Test func aStepIsTakenAtOnceWhenHalfASecondShowsIt() {
        var tracker = tracker()
        var jitter = Jitter()
        for _ in 0..<150 { _ = tracker.follow(gap: jitter.next(), samples: Self.period) }
        // The latency report settles: 250 ms (11,025 samples) that were never there.
        var reads = 0
        while tracker.steps == 0 {
            _ = tracker.follow(gap: 11_025 + jitter.next(), samples: Self.period)
            reads += 1
        }
        #expect(reads == 25)
        #expect(abs(tracker.correction - 11_025) < 600)
        for _ in 0..<100 { _ = tracker.follow(gap: 11_025 + jitter.next(), samples: Self.period) }
        #expect(tracker.steps == 1)
    }

    @Test func aStallOfLessThanHalfASecondIsNoStep() {
        var tracker = tracker()
        for _ in 0..<100 { _ = tracker.follow(gap: 0, samples: Self.period) }
        for _ in 0..<24 { _ = tracker.follow(gap: 20_000, samples: Self.period) }
        for _ in 0..<100 { _ = tracker.follow(gap: 0, samples: Self.period) }
        #expect(tracker.steps == 0)
        // 24 reads of 20,000 moved it by at most 0.05 % of their samples each: 24 × 0.441.
        #expect(abs(tracker.correction) <= 24 * 0.441 + 1e-9)
    }

    @Test func driftIsFollowedSlowlyAndCompletely() {
        var tracker = tracker()
        // The device runs 100 ppm slow: the gap grows by 4.41 samples a second.
        var gap = 0.0
        for _ in 0..<(50 * 600) {
            gap += Double(Self.period) * 100e-6
            _ = tracker.follow(gap: gap, samples: Self.period)
        }
        #expect(tracker.steps == 0)
        // After ten minutes (2,646 samples of drift) it lags by the time constant: ~20 s × 4.41.
        #expect(abs(gap - tracker.correction - 88.2) < 2)
    }
}
