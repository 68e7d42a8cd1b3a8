import Logging
import Runtime
import ServiceLifecycle

/// Gives the heap's free pages back to the system every half minute, so memory that a burst took
/// (an overloaded machine, a slow destination, a crowd of viewers) is returned once the burst has
/// passed. It runs on its own task, never on a stage's thread.
struct HeapTrimming: Service {
    let logger: Logger
    var period: Duration = .seconds(30)

    func run() async throws {
        while !Task.isCancelled, !Task.isShuttingDownGracefully {
            // A stop does not wait for the rest of the half minute.
            guard (try? await cancelWhenGracefulShutdown({ try await Task.sleep(for: period) })) != nil else { return }
            let took = Heap.giveBackFreePages()
            logger.trace("free heap pages given back in \(took)")
        }
    }
}
