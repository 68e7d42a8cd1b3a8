internal import CGlibc
import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// A thread of its own for work that blocks (a pipeline stage, a sink, a network sender), and a way
/// to wait for its end: the one way onair starts a thread. A POSIX thread: Foundation's `Thread`
/// would link full Foundation, and with it ICU's data, into the binary.
public final class WorkerThread: Sendable {
    private let done = DispatchSemaphore(value: 0)

    /// What the new thread runs, handed over through pthread_create's one pointer.
    private final class Start {
        let name: String
        let body: () -> Void
        init(name: String, body: @escaping () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Starts `body` on a new thread named `name`, with a stack of `stackSize` bytes (a thread that
    /// only waits on a device needs less than a stage). `body` is sent: what it holds belongs to the
    /// new thread from now on. A thread that cannot be started (the process is out of threads or
    /// memory) stops the process: nothing can go on without its stages.
    public init(name: String, stackSize: Int = 1 << 20, _ body: sending @escaping () -> Void) {
        let done = done
        let start = Unmanaged.passRetained(
            Start(name: name) {
                body()
                done.signal()
            })
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, max(stackSize, Int(PTHREAD_STACK_MIN)))
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        var thread = pthread_t()
        let status = pthread_create(
            &thread, &attributes,
            { pointer in
                let start = Unmanaged<Start>.fromOpaque(pointer!).takeRetainedValue()
                WorkerThread.nameCurrentThread(start.name)
                start.body()
                return nil
            }, start.toOpaque())
        guard status == 0 else {
            start.release()
            fatalError("cannot start thread \(name): error \(status)")
        }
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
