import Foundation
#if canImport(Glibc)
    import Glibc
#endif

/// A thread of its own for work that blocks (a pipeline stage, a sink, a network sender), and a way
/// to wait for its end: the one way onair starts a thread.
public final class WorkerThread: Sendable {
    private let done = DispatchSemaphore(value: 0)

    /// Starts `body` on a new thread named `name`, with a stack of `stackSize` bytes (a thread that
    /// only waits on a device needs less than a stage). `body` is sent: what it holds belongs to the
    /// new thread from now on.
    public init(name: String, stackSize: Int = 1 << 20, _ body: sending @escaping () -> Void) {
        let done = done
        // Foundation's Thread takes only a @Sendable block; a sent body is shared with no one.
        nonisolated(unsafe) let body = body
        let thread = Thread {
            WorkerThread.nameCurrentThread(name)
            body()
            done.signal()
        }
        thread.name = name
        thread.stackSize = stackSize
        thread.start()
    }

    /// Names the calling thread as the system sees it (`top -H`, `/proc/<pid>/task/*/comm`: at
    /// most 15 bytes), so each stage's CPU can be told apart. Foundation's `Thread.name` is not that
    /// name on Linux.
    public static func nameCurrentThread(_ name: String) {
        // `/proc/thread-self/comm` is the calling thread's name (pthread_setname_np is a GNU extension).
        let descriptor = open("/proc/thread-self/comm", O_WRONLY)
        guard descriptor >= 0 else { return }
        let bytes = Array(name.utf8.prefix(15))
        _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
    }

    /// Runs a blocking pipeline stage on a thread of its own, off the cooperative pool, and resumes
    /// the caller with what it returns or throws.
    public static func run<Result: Sendable>(name: String, _ body: @escaping @Sendable () throws -> Result)
        async throws -> Result
    {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            _ = WorkerThread(name: name) {
                do {
                    continuation.resume(returning: try body())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Waits for the body to return; false when it took longer than `timeout` (it goes on).
    public func join(within timeout: Duration) -> Bool {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        return done.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success
    }
}
