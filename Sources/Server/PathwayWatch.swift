public import HLSModel
public import Logging
import NIOCore
import NIOPosix
public import ServiceLifecycle
import Synchronization

/// Which of the twin origins named by `--pathway` answer, as this origin last found them: what
/// ranks them in the steering manifest (a player is told to move off an origin that is down).
public final class PathwayHealth: Sendable {
    private let down = Mutex<Set<String>>([])

    public init() {}

    /// The pathways found not answering.
    public var pathwaysDown: Set<String> { down.withLock { $0 } }

    func record(_ pathway: String, up: Bool) -> Bool {
        down.withLock { down in up ? down.remove(pathway) != nil : down.insert(pathway).inserted }
    }
}

/// Tries every pathway's server once a second: a TCP connection it accepts within a second is up.
/// Off the request path: a steering manifest reads the last findings, never waits for one. It
/// starts once this origin listens (`listening` ends), so that it does not find itself down.
public struct PathwayWatch: Service {
    let pathways: [Pathway]
    let health: PathwayHealth
    let listening: AsyncStream<Void>
    let logger: Logger

    public init(pathways: [Pathway], health: PathwayHealth, listening: AsyncStream<Void>, logger: Logger) {
        self.pathways = pathways
        self.health = health
        self.listening = listening
        self.logger = logger
    }

    public func run() async throws {
        // Stopped at once on shutdown, even while it waits for the server to listen.
        try? await cancelWhenGracefulShutdown {
            for await _ in listening {}
            while !Task.isCancelled {
                await watchOnce()
                try await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Tries every pathway at once and records what changed.
    private func watchOnce() async {
        await withTaskGroup(of: Void.self) { group in
            for pathway in pathways {
                group.addTask {
                    let up = await Self.answers(pathway)
                    guard health.record(pathway.id, up: up) else { return }
                    if up {
                        logger.notice("pathway \(pathway.id) (\(pathway.base)) answers again")
                    } else {
                        logger.warning(
                            "pathway \(pathway.id) (\(pathway.base)) does not answer: players are steered off it")
                    }
                }
            }
        }
    }

    static func answers(_ pathway: Pathway) async -> Bool {
        let (host, port) = pathway.hostAndPort
        do {
            let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(1))
                .connect(host: host, port: port).get()
            try? await channel.close()
            return true
        } catch {
            return false
        }
    }
}
