public import Foundation

/// A thread of its own for work that blocks (a sink, a network sender), and a way to wait for its end.
public final class WorkerThread: Sendable {
    private let done = DispatchSemaphore(value: 0)

    /// Starts `body` on a new thread named `name`.
    public init(name: String, _ body: @escaping @Sendable () -> Void) {
        let done = done
        let thread = Thread {
            body()
            done.signal()
        }
        thread.name = name
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Waits for the body to return; false when it took longer than `timeout` (it goes on).
    public func join(within timeout: Duration) -> Bool {
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        return done.wait(timeout: .now() + .nanoseconds(nanoseconds)) == .success
    }
}
