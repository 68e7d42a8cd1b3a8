import Foundation

/// Runs a blocking pipeline stage on a thread of its own, off the cooperative pool, and
/// resumes the caller when it returns.
enum StageThread {
    static func run(name: String, _ body: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let thread = Thread {
                do {
                    try body()
                    continuation.resume()
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
