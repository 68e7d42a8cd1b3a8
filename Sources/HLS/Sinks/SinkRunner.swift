import FoundationEssentials
public import HLSModel
import Runtime

/// Runs one sink on a thread of its own behind a bounded queue that keeps the newest publications:
/// `send` never blocks, and a sink that falls behind is handed the newest publication, passing over
/// the ones queued before it (each carries the whole timeline, so only intermediate states are
/// passed over), instead of making anything upstream wait or working through stale states. Memory
/// stays bounded by the queue's capacity whatever the sink does.
///
/// The sink is sent to the runner: from then on only the runner's thread uses it, so a sink keeps
/// its progress in plain properties and needs no lock.
public final class SinkRunner: Sendable {
    /// Where the sink publishes, for logs and events.
    public let destination: String
    private let queue: BoundedQueue<Publication>
    private let thread: WorkerThread

    /// Starts the sink's thread. `capacity`: publications held while the sink is busy.
    public init(_ sink: sending any PublicationSink, capacity: Int = 32) {
        destination = sink.destination
        let queue = BoundedQueue<Publication>(capacity: capacity, policy: .dropOldest)
        self.queue = queue
        // Named by the kind of sink (`RecordingSink`, `DVRSink`, `LiveStore`…), so each one's CPU shows.
        thread = WorkerThread(name: String(describing: type(of: sink))) {
            var dropped = 0
            while var publication = queue.pop() {
                var passed = 0
                while let newer = queue.tryPop() {
                    publication = newer
                    passed += 1
                }
                let total = queue.droppedCount
                sink.receive(
                    publication,
                    backlog: SinkBacklog(
                        skipped: passed + total - dropped, waiting: queue.count,
                        newer: { queue.waitForElement(seconds: $0) }, closed: { queue.isClosed }))
                dropped = total
            }
        }
    }

    /// Hands a publication over without waiting.
    public func send(_ publication: Publication) {
        queue.push(publication)
    }

    /// Ends the sink's stream: it applies what is queued, then its thread ends. Returns false when
    /// that took longer than `timeout` (the thread goes on, and ends with the process).
    @discardableResult
    public func finish(within timeout: Duration) -> Bool {
        queue.close()
        return thread.join(within: timeout)
    }
}
