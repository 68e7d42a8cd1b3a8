import Foundation
import HLS
import Logging
import ServiceLifecycle

/// Shows progress: on a terminal one status line redrawn in place every second; otherwise a
/// plain log line every ten seconds.
struct StatusReporter: Service {
    let store: SegmentStore
    let stats: BroadcastStats
    let url: String
    let interactive: Bool
    let logger: Logger

    func run() async throws {
        var previous = (time: MediaClockReading.now(), frames: 0, bytes: 0)
        var tick = 0
        while !Task.isShuttingDownGracefully, !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            tick += 1
            let now = MediaClockReading.now()
            let frames = stats.framesEncoded.current
            let bytes = stats.videoBytes.current + stats.audioBytes.current
            let seconds = max(0.001, now - previous.time)
            let line = Self.line(
                summary: store.summary(), fps: Double(frames - previous.frames) / seconds,
                bitsPerSecond: Double(bytes - previous.bytes) * 8 / seconds, url: url)
            previous = (now, frames, bytes)
            if interactive {
                FileHandle.standardError.write(Data(("\r\u{1B}[2K" + line).utf8))
            } else if tick % 10 == 0 {
                logger.info("\(line)")
            }
        }
        if interactive {
            FileHandle.standardError.write(Data("\n".utf8))
        }
    }

    /// `● LIVE demo  00:01:05  30.0 fps  2.41 Mb/s  33 segments  http://…`
    static func line(summary: ChannelSummary, fps: Double, bitsPerSecond: Double, url: String) -> String {
        let uptime = max(0, Int(Date().timeIntervalSince1970) - Int(summary.startedAt / 1000))
        let clock = [uptime / 3600, uptime / 60 % 60, uptime % 60].map { $0 < 10 ? "0\($0)" : "\($0)" }
        let segments = summary.segments == 1 ? "1 segment" : "\(summary.segments) segments"
        return "● LIVE \(summary.name)  \(clock.joined(separator: ":"))  \(fixed(fps, decimals: 1)) fps  "
            + "\(fixed(bitsPerSecond / 1e6, decimals: 2)) Mb/s  \(segments)  \(url)"
    }

    /// A number with a fixed count of decimals (plain Swift: `String(format:)` would load ICU).
    static func fixed(_ value: Double, decimals: Int) -> String {
        var scale = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = Int((max(0, value) * Double(scale)).rounded())
        let fraction = String(scaled % scale)
        return "\(scaled / scale)." + String(repeating: "0", count: decimals - fraction.count) + fraction
    }
}

/// Seconds on the monotonic clock, for rates.
enum MediaClockReading {
    static func now() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}
