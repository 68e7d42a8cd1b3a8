import Foundation
import Media

/// Runs a blocking pipeline stage on a thread of its own, off the cooperative pool, and
/// resumes the caller when it returns.
enum StageThread {
    static func run<Result: Sendable>(name: String, _ body: @escaping @Sendable () throws -> Result) async throws
        -> Result
    {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
            let thread = Thread {
                WorkerThread.nameCurrentThread(name)
                do {
                    continuation.resume(returning: try body())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            thread.name = name
            thread.stackSize = 1 << 20
            thread.start()
        }
    }
}
