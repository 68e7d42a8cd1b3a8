import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@testable import Runtime

@Suite struct ChildProcessTests {
    /// Reads the descriptor to its end.
    private func readAll(_ descriptor: Int32) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 256)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        close(descriptor)
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func theChildReadsItsInputWritesItsOutputAndItsStatusIsReported() throws {
        let status = Mutex<Int32?>(nil)
        let done = Condition()
        let child = try ChildProcess(shellCommand: "tr a-z A-Z; exit 3") { code in
            done.lock()
            status.withLock { $0 = code }
            done.broadcast()
            done.unlock()
        }
        let text = Array("hello\n".utf8)
        #expect(text.withUnsafeBytes { write(child.input, $0.baseAddress, $0.count) } == 6)
        close(child.input)
        #expect(readAll(child.output) == "HELLO\n")
        done.lock()
        let deadline = Condition.Deadline(after: 10)
        while status.withLock({ $0 }) == nil, done.wait(until: deadline) {}
        done.unlock()
        #expect(status.withLock { $0 } == 3)
        #expect(!child.isRunning)
    }

    @Test func aTerminatedChildReportsTheSignal() throws {
        let status = Mutex<Int32?>(nil)
        let child = try ChildProcess(shellCommand: "exec sleep 30") { code in status.withLock { $0 = code } }
        #expect(child.isRunning)
        child.terminate()
        #expect(readAll(child.output) == "")  // its output ends with it
        for _ in 0..<500 where child.isRunning { sleepThread(seconds: 0.01) }
        #expect(status.withLock { $0 } == SIGTERM)
        close(child.input)
    }

    @Test func theChildInheritsNoOtherDescriptor() throws {
        // A descriptor of the parent's without close-on-exec: the child must not see it.
        let open = dup(1)
        defer { close(open) }
        let child = try ChildProcess(shellCommand: "ls /proc/self/fd | sort -n | tr '\\n' ' '") { _ in }
        close(child.input)
        // 0, 1, 2 and the folder ls reads; never the parent's duplicate.
        let listed = readAll(child.output).split(separator: " ").compactMap { Int32($0) }
        #expect(!listed.contains(open), "\(listed)")
        #expect(listed.filter { $0 > 3 }.isEmpty, "\(listed)")
    }
}

@Suite struct ConditionTests {
    @Test func aWaitEndsAtItsDeadlineWhenNothingSignals() {
        let condition = Condition()
        let start = MediaClock.monotonicNanoseconds()
        condition.lock()
        let signalled = condition.wait(until: Condition.Deadline(after: 0.05))
        condition.unlock()
        #expect(!signalled)
        #expect(MediaClock.monotonicNanoseconds() - start >= 50_000_000)
    }
}

@Suite struct TextTests {
    @Test func trimmingWhitespaceTakesSpacesTabsAndLineEndsAtBothEnds() {
        #expect(" \t a b \r\n".trimmingWhitespace() == "a b")
        #expect("   ".trimmingWhitespace() == "")
        #expect("x"[...].trimmingWhitespace() == "x")
    }

    @Test func aFileFailureNamesThePathAndTheReason() {
        #expect(FileFailure(path: "/x/y", errorNumber: ENOENT).description == "/x/y: No such file or directory")
        #expect(FileFailure(path: "/x", reason: "is taken").description == "/x: is taken")
    }
}
