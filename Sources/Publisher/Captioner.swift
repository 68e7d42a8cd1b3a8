import FoundationEssentials
import HLS
import HLSModel
import Logging
import Media
import Runtime
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// `--captions-from COMMAND`: a program that turns the broadcast's sound into captions. onair
/// starts it (`/bin/sh -c COMMAND`), writes the sound to its standard input as 16 kHz mono
/// signed 16-bit little-endian PCM, and reads its standard output: one cue a line, as JSON
/// (`{"text": "…", "start": 1.2, "end": 3.4}`, seconds from the start of its input). A speech-to-text
/// program plugs in there without onair linking one.
///
/// Nothing here makes the sound wait: the audio thread converts and queues (20 ms takes
/// microseconds), a thread of its own writes, another reads. A captioner that exits, stops reading
/// or writes what is not a cue is a `captions_failed` event; the broadcast goes on, its captions
/// playlist with empty segments.
// Unchecked Sendable: the speech resampler (a C handle) and where its input started are the audio
// thread's own, and `threads` is written once, by `start`, before the sound flows; the rest is
// locked or immutable.
final class Captioner: @unchecked Sendable {
    /// The sound queued for a captioner that does not read it, in 20 ms runs: 3 s.
    static let backlog = 150

    private let command: String
    private let book: CaptionBook
    private let clock: MediaClock
    private let report: EventReporter
    private let logger: Logger
    private let sound = BoundedQueue<[UInt8]>(capacity: backlog, policy: .dropOldest)
    private let child = Mutex<ChildProcess?>(nil)
    // The audio thread's own: the converter, and where its input started (media seconds).
    private var resampler: SpeechResampler?
    private var inputStart: Double?
    private let failed = Mutex(false)
    private var threads: [WorkerThread] = []

    init(command: String, book: CaptionBook, clock: MediaClock, report: @escaping EventReporter, logger: Logger) {
        self.command = command
        self.book = book
        self.clock = clock
        self.report = report
        self.logger = logger
    }

    /// Starts the command; a command that cannot start is a `captions_failed` event.
    func start() {
        // A captioner that exits while its input is written is an EPIPE, not a signal that ends onair.
        signal(SIGPIPE, SIG_IGN)
        let process: ChildProcess
        do {
            process = try ChildProcess(shellCommand: command) { [weak self] status in self?.exited(status: status) }
        } catch {
            fail("the captioner \(command) did not start: \(error)")
            return
        }
        child.withLock { $0 = process }
        logger.notice("captions from \(command) (16 kHz mono PCM on its input, cues as JSON lines from its output)")
        let writing = process.input
        let reading = process.output
        threads.append(WorkerThread(name: "captioner-in") { [sound] in Self.write(sound, to: writing) })
        threads.append(WorkerThread(name: "captioner-out") { [weak self] in self?.read(from: reading) })
    }

    /// From the audio thread: the next run of the broadcast's sound (silence while paused).
    func feed(_ frame: AudioFrame) {
        guard !failed.withLock({ $0 }) else { return }
        do {
            if resampler == nil {
                resampler = try SpeechResampler(from: frame)
                inputStart = Double(frame.position) / Double(frame.sampleRate)
            }
            let bytes = try resampler!.convert(frame)
            if sound.count >= Self.backlog - 1 {
                fail("the captioner stopped reading the sound (\(Self.backlog / 50) s behind): it was stopped")
                child.withLock { $0 }?.terminate()
                return
            }
            sound.push(bytes)
        } catch {
            fail("the sound could not be converted for the captioner: \(error)")
        }
    }

    /// The broadcast has ended: the captioner's input ends, and it is stopped if it lingers.
    func finish() {
        sound.close()
        guard let process = child.withLock({ $0 }), process.isRunning else { return }
        for _ in 0..<100 where process.isRunning { sleepThread(seconds: 0.02) }  // polling its exit, at most 2 s
        process.terminate()
    }

    private func exited(status: Int32) {
        guard !sound.isClosed else { return }  // the broadcast ended first
        fail("the captioner exited (status \(status)): no more captions")
    }

    /// Reports a failure once; from then on the sound is no longer converted for it.
    private func fail(_ message: String) {
        let first = failed.withLock { failed in
            defer { failed = true }
            return !failed
        }
        if first { report(CaptionEvents.failed, message) }
    }

    private static func write(_ sound: BoundedQueue<[UInt8]>, to descriptor: Int32) {
        defer { close(descriptor) }
        while let bytes = sound.pop() {
            var offset = 0
            while offset < bytes.count {
                let written = bytes[offset...].withUnsafeBytes {
                    Glibc.write(descriptor, $0.baseAddress, $0.count)
                }
                if written < 0, errno == EINTR { continue }
                guard written > 0 else { return }  // it closed its input: its exit says the rest
                offset += written
            }
        }
    }

    /// Reads cue lines until the captioner closes its output.
    private func read(from descriptor: Int32) {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { return }
            pending += chunk[..<count]
            while let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                take(line: Array(pending[..<newline]))
                pending.removeSubrange(...newline)
            }
            if pending.count > 64 * 1024 {
                garbage("a line of more than 64 KiB")
                pending.removeAll()
            }
        }
    }

    private struct Line: Decodable {
        var text: String
        var start: Double
        var end: Double
    }

    private var lastGarbage = -Double.infinity

    /// One line of its output: a cue, added once checked; one that breaks the rules is skipped
    /// with a warning, and a line that is no cue at all is a `captions_failed` event (at most one
    /// every 10 s).
    private func take(line: [UInt8]) {
        guard !line.allSatisfy({ $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\r") }) else { return }
        guard let cue = try? JSONDecoder().decode(Line.self, from: Data(line)) else {
            garbage("a line that is not a cue: \(String(decoding: line.prefix(80), as: UTF8.self))")
            return
        }
        let origin = inputStartSeen
        let now = clock.elapsed()
        do throws(CueRefusal) {
            try book.add(
                [Cue(start: origin + cue.start, end: origin + cue.end, text: cue.text)],
                earliest: now - 60, latest: now)
        } catch {
            logger.warning("captions: skipped the captioner's cue \"\(cue.text.prefix(40))\": \(error)")
        }
    }

    /// Where its input started, as the audio thread set it before the first byte was written.
    private var inputStartSeen: Double { inputStart ?? 0 }

    private func garbage(_ what: String) {
        let now = clock.elapsed()
        guard now - lastGarbage >= 10 else { return }
        lastGarbage = now
        report(
            CaptionEvents.failed, "the captioner wrote \(what) (cues are JSON lines: {\"text\", \"start\", \"end\"})")
    }
}

/// The captions' events.
enum CaptionEvents {
    /// The captioner command exited, stopped reading, or wrote what is not a cue.
    static let failed = BroadcastEvent.Code("captions_failed", problem: true)
}
