internal import CPipeWire
import FoundationEssentials
import Runtime

extension CaptureError {
    static func noPipeWire(_ detail: String) -> Self {
        .pipeWireSound(
            "no PipeWire to capture from (\(detail)): start the desktop's PipeWire (systemctl --user start pipewire wireplumber), or capture through ALSA with --audio default"
        )
    }
}

/// One connection to the user's PipeWire, on PipeWire's own thread loop: the audio nodes there
/// now, and captures of them. Methods may be called from any thread (the loop's lock guards
/// PipeWire's state).
// Unchecked Sendable: a C handle (the thread loop); its calls take the loop's lock.
final class PipeWireSession: @unchecked Sendable {
    private let session: UnsafeMutablePointer<CPA_session>

    /// Connects and reads the node list, waiting up to `timeout` seconds.
    init(timeout: Double = 2) throws(CaptureError) {
        var error = [CChar](repeating: 0, count: 256)
        guard let session = CPA_connect(Int32(timeout * 1000), &error, error.count) else {
            throw .noPipeWire(Self.message(error))
        }
        self.session = session
    }

    /// Why the connection broke (PipeWire stopped or restarted); nil while it holds.
    var broken: String? {
        var error = [CChar](repeating: 0, count: 256)
        return CPA_broken(session, &error, error.count) != 0 ? Self.message(error) : nil
    }

    /// The audio nodes there now.
    func nodes() -> [AudioNode] {
        var raw = [CPA_node](repeating: CPA_node(), count: Int(CPA_MAX_NODES))
        let count = Int(CPA_nodes(session, &raw, Int32(raw.count)))
        return raw.prefix(count).compactMap { node in
            let kind: AudioNode.Kind
            switch Int32(node.kind) {
            case Int32(CPA_APP_STREAM): kind = .applicationStream
            case Int32(CPA_SINK): kind = .sink
            case Int32(CPA_SOURCE): kind = .source
            default: return nil
            }
            let pid = Int(node.pid)
            var binary = Self.text(node.binary)
            if binary.isEmpty, pid > 0 { binary = Self.processName(pid) }
            return AudioNode(
                id: node.id, serial: node.serial, kind: kind, name: Self.text(node.name),
                description: Self.text(node.description), application: Self.text(node.app), binary: binary,
                processID: pid, parentProcessIDs: kind == .applicationStream ? Self.parents(of: pid) : [])
        }
    }

    /// Starts capturing one node (`serial`), or the default source or sink monitor (serial 0).
    func capture(serial: UInt32, monitor: Bool) throws(CaptureError) -> PipeWireCapture {
        var error = [CChar](repeating: 0, count: 256)
        guard let capture = CPA_capture_open(session, serial, monitor ? 1 : 0, &error, error.count) else {
            throw .pipeWireSound(Self.message(error))
        }
        return PipeWireCapture(capture: capture, serial: serial, session: self)
    }

    deinit { CPA_disconnect(session) }

    /// A process's own name (`/proc/PID/comm`), for a stream whose properties name no binary.
    private static func processName(_ pid: Int) -> String {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8)) ?? ""
        return text.trimmingWhitespace()
    }

    /// The text C wrote into `buffer`, up to its terminating zero.
    fileprivate static func message(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The processes that started `pid`, parent first, up to (not including) init.
    private static func parents(of pid: Int) -> [Int] {
        var chain: [Int] = []
        var current = pid
        while current > 1, chain.count < 64 {
            // /proc/PID/stat: "pid (comm) state ppid …"; comm may hold spaces and parentheses.
            guard let stat = try? String(contentsOfFile: "/proc/\(current)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { break }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 1, let parent = Int(fields[1]), parent > 1 else { break }
            chain.append(parent)
            current = parent
        }
        return chain
    }

    private static func text<T>(_ tuple: T) -> String {
        withUnsafeBytes(of: tuple) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}

/// One stream captured from PipeWire: 48 kHz float stereo collecting in a ring until read.
// Unchecked Sendable: a C handle (the stream); the ring has its own lock.
final class PipeWireCapture: @unchecked Sendable {
    let serial: UInt32
    private let capture: UnsafeMutablePointer<CPA_capture>
    /// Kept until the capture is closed: the stream lives on the session's connection.
    private let session: PipeWireSession

    fileprivate init(capture: UnsafeMutablePointer<CPA_capture>, serial: UInt32, session: PipeWireSession) {
        self.capture = capture
        self.serial = serial
        self.session = session
    }

    /// Samples waiting, in frames.
    var available: Int { Int(CPA_capture_available(capture)) }

    /// Frames lost because the ring was full (nobody read for two seconds).
    var dropped: UInt64 { UInt64(CPA_capture_dropped(capture)) }

    /// Moves up to `frames` frames into `buffer` (interleaved stereo), appending; returns how many.
    func read(into buffer: inout [Float], frames: Int) -> Int {
        let start = buffer.count
        buffer.append(contentsOf: repeatElement(0, count: 2 * frames))
        let got = buffer.withUnsafeMutableBufferPointer { pointer in
            Int(CPA_capture_read(capture, pointer.baseAddress! + start, Int32(frames)))
        }
        buffer.removeLast(2 * (frames - got))
        return got
    }

    deinit { CPA_capture_close(capture) }
}
