import FoundationEssentials
import HLSModel
import Logging
import Media
import Runtime
import Server
import ServiceLifecycle
import UnixSignals

/// After the broadcast ends, keeps the server answering while players still fetch the end of
/// the stream, so a viewer a few segments behind plays to the last frame and sees "ended"
/// instead of a network error. It lets go when no request came for `idle` seconds, after
/// `limit` seconds at most, or at a second Ctrl-C.
struct EndOfStreamGrace: Service {
    let channel: ChannelName
    let viewers: ViewerRegistry
    let idle: Double
    let limit: Double
    let logger: Logger

    func run() async throws {
        try await gracefulShutdown()
        let started = Self.now()
        guard let idleTime = viewers.idleTime(channel: channel, at: started), idleTime < idle else { return }
        // Trapped before the line that invites it: a Ctrl-C right after it is not lost.
        let signals = await UnixSignalsSequence(trapping: .sigint, .sigterm)
        logger.info(
            "serving the end of the stream to its viewers for up to \(Int(limit.rounded(.up))) s (Ctrl-C again to quit now)"
        )
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in signals { return }
            }
            group.addTask {
                while !Task.isCancelled, Self.now() - started < limit,
                    let idleTime = viewers.idleTime(channel: channel, at: Self.now()), idleTime < idle
                {
                    try? await Task.sleep(for: .milliseconds(200))
                }
            }
            await group.next()
            group.cancelAll()
        }
    }

    private static func now() -> Double {
        Double(MediaClock.monotonicNanoseconds()) / 1e9
    }
}
