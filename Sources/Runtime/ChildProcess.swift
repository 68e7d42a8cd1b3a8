internal import CGlibc
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A program onair runs beside itself (`/bin/sh -c COMMAND`), its standard input and output piped
/// to onair and its standard error onair's own; every other descriptor of onair's is closed in it.
/// Foundation's `Process` would do the same, but it alone would link full Foundation, and with it
/// ICU's data, into the binary.
public final class ChildProcess: Sendable {
    /// The child's process id.
    public let id: Int32
    /// onair's ends of the pipes: what it writes to the child's input, what it reads of its output.
    /// Each belongs to whoever uses it, who closes it.
    public let input: Int32
    public let output: Int32
    /// The exit status once the child is reaped (shared with the thread that waits for it).
    private let status = Box()

    private final class Box: Sendable {
        let value = Mutex<Int32?>(nil)
    }

    public struct StartFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Starts `/bin/sh -c command`. `exited` is called once, on a thread of its own, with the exit
    /// status (or the number of the signal that ended it).
    public init(shellCommand command: String, exited: @escaping @Sendable (Int32) -> Void) throws(StartFailure) {
        var toChild: [Int32] = [-1, -1]
        var fromChild: [Int32] = [-1, -1]
        guard pipe2(&toChild, O_CLOEXEC) == 0 else { throw Self.failure("pipe") }
        guard pipe2(&fromChild, O_CLOEXEC) == 0 else {
            close(toChild[0])
            close(toChild[1])
            throw Self.failure("pipe")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, toChild[0], 0)
        posix_spawn_file_actions_adddup2(&actions, fromChild[1], 1)
        posix_spawn_file_actions_addclosefrom_np(&actions, 3)
        // Its signals as a new program's: none blocked, each with its default action (onair ignores
        // SIGPIPE and hands SIGINT and SIGTERM to its own handlers; the child must not inherit that).
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var signals = sigset_t()
        sigemptyset(&signals)
        posix_spawnattr_setsigmask(&attributes, &signals)
        sigfillset(&signals)
        posix_spawnattr_setsigdefault(&attributes, &signals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let arguments = ["/bin/sh", "-c", command]
        var pointers = arguments.map { strdup($0) } + [nil]
        defer { for pointer in pointers { free(pointer) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, "/bin/sh", &actions, &attributes, &pointers, environ)
        close(toChild[0])
        close(fromChild[1])
        guard spawned == 0 else {
            close(toChild[1])
            close(fromChild[0])
            throw StartFailure(description: "/bin/sh: " + String(cString: strerror(spawned)))
        }
        id = child
        input = toChild[1]
        output = fromChild[0]
        let status = status
        _ = WorkerThread(name: "child-wait", stackSize: 256 << 10) {
            var raw: Int32 = 0
            while waitpid(child, &raw, 0) == -1, errno == EINTR {}
            // Exited: its status (bits 8-15); ended by a signal: the signal's number (bits 0-6).
            let result = raw & 0x7f == 0 ? (raw >> 8) & 0xff : raw & 0x7f
            status.value.withLock { $0 = result }
            exited(result)
        }
    }

    /// Whether the child has not been reaped yet.
    public var isRunning: Bool { status.value.withLock { $0 == nil } }

    /// Asks the child to end (SIGTERM), when it still runs.
    public func terminate() {
        if isRunning { kill(id, SIGTERM) }
    }

    private static func failure(_ call: String) -> StartFailure {
        StartFailure(description: "\(call): " + String(cString: strerror(errno)))
    }
}
