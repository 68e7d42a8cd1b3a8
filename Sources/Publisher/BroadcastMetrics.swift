import HLSModel
import Metrics
import Server
import Synchronization

/// The broadcast's counts as swift-metrics counters and gauges, labelled with the channel. The
/// stages keep plain atomic counts (cheap on their hot paths); each scrape adds what they gained.
final class BroadcastMetrics: Sendable {
    private let control: BroadcastControl
    private let viewers: @Sendable () -> Int
    private let counters: [Metrics.Counter]
    private let viewerGauge: Gauge
    private let reported = Mutex<[Int]>([0, 0, 0, 0, 0, 0, 0])

    init(control: BroadcastControl, viewers: @escaping @Sendable () -> Int) {
        self.control = control
        self.viewers = viewers
        let channel = [("channel", control.channel.text)]
        counters = [
            "onair_frames_captured_total", "onair_frames_encoded_total", "onair_frames_repeated_total",
            "onair_frames_dropped_total", "onair_media_bytes_total", "onair_segments_total",
            "onair_frames_skipped_total",
        ].map { Counter(label: $0, dimensions: channel) }
        viewerGauge = Gauge(label: "onair_viewers", dimensions: channel)
    }

    /// Adds to each counter what the broadcast counted since the last call, and sets the gauges.
    func refresh() {
        reported.withLock { reported in
            let counts = control.statistics()
            let now = [
                counts.framesCaptured, counts.framesEncoded, counts.framesRepeated, counts.framesDropped,
                counts.bytesOut, counts.segmentsOut, counts.framesSkipped,
            ]
            for (index, counter) in counters.enumerated() where now[index] > reported[index] {
                counter.increment(by: now[index] - reported[index])
            }
            reported = now
        }
        viewerGauge.record(viewers())
    }
}
