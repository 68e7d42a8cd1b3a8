import Encoding
import FoundationEssentials
import HLS
import HLSModel
import Logging
import Media
import Push
import Runtime
import ServiceLifecycle

/// Shows progress: on a terminal one status line redrawn in place every second; otherwise a
/// plain log line every ten seconds.
struct StatusReporter: Service {
    let store: LiveStore
    let stats: BroadcastStats
    let url: String
    /// The push destinations' health.
    let destinations: [PushStatus]
    let paused: PauseSwitch
    let interactive: Bool
    let report: EventReporter
    let logger: Logger

    func run() async throws {
        var previous = (time: Double(MediaClock.monotonicNanoseconds()) / 1e9, frames: 0, bytes: 0)
        var tick = 0
        var droppedBefore = 0
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            tick += 1
            let now = Double(MediaClock.monotonicNanoseconds()) / 1e9
            let frames = stats.framesEncoded.current
            let bytes = stats.videoBytes.current + stats.audioBytes.current
            let seconds = max(0.001, now - previous.time)
            let line = Self.line(
                summary: store.summary(), paused: paused.isPaused, fps: Double(frames - previous.frames) / seconds,
                bitsPerSecond: Double(bytes - previous.bytes) * 8 / seconds, url: url,
                destinations: destinations.map(\.snapshot))
            previous = (now, frames, bytes)
            if tick % 10 == 0, let warning = Self.dropWarning(dropped: stats.framesDropped.current - droppedBefore) {
                droppedBefore = stats.framesDropped.current
                if interactive { writeToStandardError("\r\u{1B}[2K") }
                report(.encoderOverloaded, warning)
            }
            if interactive {
                writeToStandardError("\r\u{1B}[2K" + line)
            } else if tick % 10 == 0 {
                logger.info("\(line)")
            }
        }
        if interactive {
            writeToStandardError("\n")
        }
    }

    /// Said at most every ten seconds while the encoder is falling behind.
    static func dropWarning(dropped: Int) -> String? {
        guard dropped > 0 else { return nil }
        return "the encoder cannot keep up: \(dropped) frame\(dropped == 1 ? "" : "s") dropped in the last 10 s "
            + "(try a lower --quality or --fps)"
    }

    /// `● LIVE demo  00:01:05  30.0 fps  2.41 Mb/s  33 segments  http://…  ✓ s3://b/live/  ✗ rtmp://h/app/…`
    static func line(
        summary: ChannelSummary, paused: Bool, fps: Double, bitsPerSecond: Double, url: String,
        destinations: [PushStatus.Snapshot] = []
    ) -> String {
        let uptime = max(0, Int(Date().timeIntervalSince1970) - Int(summary.startedAt / 1000))
        let clock = [uptime / 3600, uptime / 60 % 60, uptime % 60].map { String(zeroPadded: $0, width: 2) }
        let segments = summary.segments == 1 ? "1 segment" : "\(summary.segments) segments"
        return
            "\(paused ? "❚❚ PAUSED" : "● LIVE") \(summary.name)  \(clock.joined(separator: ":"))  \(String(fixed: fps, decimals: 1)) fps  "
            + "\(String(fixed: bitsPerSecond / 1e6, decimals: 2)) Mb/s  \(segments)\(url.isEmpty ? "" : "  \(url)")"
            + destinations.map { "  " + health($0) }.joined()
    }

    /// `✓ https://ingest/live/x/`, `… s3://b/p/` before the first upload, `✗ … (connection refused)`.
    static func health(_ destination: PushStatus.Snapshot) -> String {
        switch destination.state {
        case .starting: "… \(destination.destination)"
        case .upToDate: "✓ \(destination.destination)"
        case .failing(let reason): "✗ \(destination.destination) (\(reason))"
        }
    }

}
