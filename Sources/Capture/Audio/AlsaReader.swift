import FoundationEssentials
import Media
import Runtime

/// Reads one ALSA device on a thread of its own and hands over each run of samples with the
/// moments around its read. Its owner waits for them with a time limit, so a device that hangs
/// holds only this thread: ALSA's pulse plugin can deadlock inside a call when its sound server
/// dies, and a stopped server leaves a read waiting for good. Such a reader is abandoned, never
/// joined; the device is only ever touched (and closed) on the reader's own thread.
// Unchecked Sendable: it holds the snd_pcm_t (a C handle), touched on the reader's own thread only.
final class AlsaReader: @unchecked Sendable {
    /// One run of samples and what dates it on the broadcast clock.
    // Unchecked Sendable: it carries the samples read into C memory, handed over once.
    struct Reading: @unchecked Sendable {
        let frame: AudioFrame
        /// The clock just before the read started and just after it returned.
        let started: Double
        let returned: Double
        /// Frames the device held but not yet read, just after the read (`snd_pcm_delay`).
        let delay: Int
        /// Samples were lost (an overrun) just before these.
        let afterOverrun: Bool
    }

    // Unchecked Sendable: it carries a Reading, handed over once.
    enum Outcome: @unchecked Sendable {
        /// The device opened (only for a reader that opens its own device): its sample layout.
        case opened(AlsaLayout)
        case reading(Reading)
        case failed(any Error)
    }

    let name: String
    private let outcomes = BoundedQueue<Outcome>(capacity: 32, policy: .block)

    /// Reads a device already opened (and checked) by the caller, from `start` on.
    init(device: AlsaDevice, clock: MediaClock, overruns: Counter) {
        name = device.name
        spawn { [outcomes] in AlsaReader.readLoop(device, clock: clock, overruns: overruns, into: outcomes) }
    }

    /// Opens the device on the reader's thread (an open can hang too), then reads it. The first
    /// outcome says whether it opened.
    init(opening name: String, clock: MediaClock, overruns: Counter) {
        self.name = name
        spawn { [outcomes] in
            let device: AlsaDevice
            do {
                device = try AlsaDevice(name: name)
            } catch {
                outcomes.push(.failed(error))
                outcomes.close()
                return
            }
            outcomes.push(.opened(device.layout))
            AlsaReader.readLoop(device, clock: clock, overruns: overruns, into: outcomes)
        }
    }

    /// Its thread may be left waiting on a device that never answers: a small stack, never joined.
    private func spawn(_ body: @escaping @Sendable () -> Void) {
        _ = WorkerThread(name: "alsa \(name)", stackSize: 1 << 18, body)
    }

    /// The next outcome, waiting up to `seconds`; nil when none came in that time (or the
    /// reader ended).
    func next(within seconds: Double) -> Outcome? {
        guard outcomes.waitForElement(seconds: seconds) else { return nil }
        return outcomes.tryPop()
    }

    /// The next outcome if one is waiting.
    func poll() -> Outcome? { outcomes.tryPop() }

    /// Lets the reader go: its thread stops at its next read (if it ever returns) and closes the
    /// device there.
    func abandon() { outcomes.close() }

    deinit { outcomes.close() }

    private static func readLoop(
        _ device: AlsaDevice, clock: MediaClock, overruns: Counter, into outcomes: BoundedQueue<Outcome>
    ) {
        let layout = device.layout
        var overran = false
        while !outcomes.isClosed {
            do {
                let frame = try AudioFrame(
                    format: layout.format, sampleRate: layout.rate, channelCount: layout.channels,
                    sampleCount: layout.period, position: 0)
                let started = clock.elapsed()
                let overrunsBefore = overruns.current
                let count = try device.read(into: frame, overruns: overruns)
                overran = overran || overruns.current > overrunsBefore
                guard count > 0 else { continue }
                frame.keepFirst(count)
                let returned = clock.elapsed()
                let reading = Reading(
                    frame: frame, started: started, returned: returned, delay: device.delay, afterOverrun: overran)
                overran = false
                if !outcomes.push(.reading(reading)) { return }
            } catch {
                outcomes.push(.failed(error))
                outcomes.close()
                return
            }
        }
    }
}

/// The sample layout an ALSA device delivers: sample format, rate, channels, and the period
/// (the frames one read asks for).
struct AlsaLayout: Equatable, Sendable {
    var format: SampleFormat
    var rate: Int
    var channels: Int
    var period: Int
}
