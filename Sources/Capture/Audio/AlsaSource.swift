public import Runtime
public import Media

/// Sound from an ALSA capture device (`default`, `pulse`, `hw:1,0`, `plughw:…`).
///
/// Each run of samples is positioned by the sample count since the first read, which is anchored
/// to the broadcast clock and corrected by a `DeviceClockTracker`: the device's clock drifting
/// from ours is absorbed slowly (the encoder's resampler stretches or squeezes inaudibly), a step
/// (a latency report settling, samples lost upstream) at once; no buffer is stamped from a bare,
/// jittery clock read. Overruns are recovered and counted. The device is read on a thread of its
/// own (`AlsaReader`); one that fails, or delivers nothing for `stallSeconds` (a sound server
/// that hangs), is replaced by silence, with a warning, and opened again once a second.
// Unchecked Sendable: it holds ALSA handles through its reader; read by the audio thread only.
public final class AlsaSource: AudioSource, @unchecked Sendable {
    /// How long a running device may deliver nothing before it counts as gone: a capture device
    /// delivers at its rate for as long as it runs.
    static let stallSeconds = 2.0
    public let name: String
    public let overruns = Counter()
    private let clock: MediaClock
    private let stop: StopSignal
    private let warn: @Sendable (String) -> Void
    private let report: EventReporter
    /// The device opened by `init`, read from the first `read` on.
    private var opened: AlsaDevice?
    private var reader: AlsaReader?
    /// An attempt to open the device again while it is away.
    private var reopening: AlsaReader?
    private let layout: AlsaLayout
    private var silentSince: Double?
    private var nextRetry = 0.0
    /// Samples read since the anchor, and the anchor's position.
    private var count: Int64 = 0
    private var anchor: Int64?
    /// How far the device's count is from our clock, in samples.
    private var tracker: DeviceClockTracker
    /// Samples were lost (an overrun): the count jumps to where the clock says, and the encoder's
    /// resampler fills the gap with silence, rather than sound running late from then on.
    private var lostSamples = false
    private var ended = false

    /// Opens the device now, so a wrong name is refused before the broadcast starts.
    public init(
        name: String, clock: MediaClock, stop: StopSignal, warn: @escaping @Sendable (String) -> Void,
        report: @escaping EventReporter
    ) throws {
        self.name = name
        self.report = report
        self.clock = clock
        self.stop = stop
        self.warn = warn
        let device = try AlsaDevice(name: name)
        opened = device
        layout = device.layout
        tracker = DeviceClockTracker(rate: device.rate, readsPerSecond: device.rate / device.periodFrames)
    }

    /// Opens and closes the device: whether it can be captured from, checked before anything starts.
    public static func probe(_ name: String) throws {
        _ = try AlsaDevice(name: name)
    }

    /// The capture devices ALSA knows, for `onair devices` and error messages.
    public static func captureDevices() -> [CaptureDevice] {
        AlsaDevice.captureDevices()
    }

    /// The next run of samples; nil once they reach the stop point. Samples arrive a device
    /// latency after they were captured, so reading goes on that much past the stop, and sound
    /// ends with the picture rather than a latency before it.
    public func read() throws -> AudioFrame? {
        if ended { return nil }
        if let opened {
            reader = AlsaReader(device: opened, clock: clock, overruns: overruns)
            self.opened = nil
        }
        while true {
            let now = clock.elapsed()
            // A device that stopped delivering still ends with the broadcast, two seconds late at most.
            if stop.shouldStop(at: now - 2) { return end() }
            guard let reader else {
                let silent = try silence(at: now)
                return stop.shouldStop(at: Double(silent.position) / Double(layout.rate)) ? end() : silent
            }
            let reading: AlsaReader.Reading
            switch reader.next(within: AlsaSource.stallSeconds) {
            case .reading(let next):
                reading = next
            case .failed(let error):
                lose("failed (\(error))", at: now)
                continue
            case .opened, nil:
                reader.abandon()
                lose("delivered nothing for \(Int(AlsaSource.stallSeconds)) s", at: now)
                continue
            }
            if reading.afterOverrun { lostSamples = true }
            let frame = reading.frame
            let count = frame.sampleCount
            let captured =
                reading.returned - Double(backlog(reading) + count) / Double(layout.rate)
            // Samples from before the broadcast began (the device was opened a moment earlier).
            guard captured >= 0 else { continue }
            let measured = captured * Double(layout.rate)
            if anchor == nil { anchor = Int64(measured.rounded()) }
            if lostSamples {
                self.count = max(self.count, Int64(measured.rounded()) - anchor! - Int64(tracker.correction.rounded()))
                lostSamples = false
            }
            let counted = anchor! + self.count
            let correction = tracker.follow(gap: measured - Double(counted), samples: count)
            frame.position = counted + Int64(correction.rounded())
            self.count += Int64(count)
            if stop.shouldStop(at: Double(frame.position) / Double(layout.rate)) { return end() }
            return frame
        }
    }

    /// The device is gone: silence from now on, and an attempt to open it again once a second.
    private func lose(_ what: String, at now: Double) {
        report(.audioDeviceLost, "audio device \(name) \(what): sending silence and trying again every second")
        reader = nil
        silentSince = now
        nextRetry = now + 1
    }

    /// Frames captured but not yet read, as the device reported them just after the read
    /// (`snd_pcm_delay`), but never more than arrived while the read waited: a read that had to
    /// wait found less than a period, so what is there now came in since. A sound server reports
    /// its whole buffer for the first seconds before its first timing update; believed, it would
    /// stamp sound 250 ms early.
    private func backlog(_ reading: AlsaReader.Reading) -> Int {
        let waited = reading.returned - reading.started
        guard waited > 0.25 * Double(layout.period) / Double(layout.rate) else { return reading.delay }
        return min(reading.delay, Int(waited * Double(layout.rate)))
    }

    /// The end of the stream, saying how many overruns there were. The readers stop reading.
    private func end() -> AudioFrame? {
        ended = true
        reader?.abandon()
        reopening?.abandon()
        if overruns.current > 0 {
            warn("audio device \(name): \(overruns.current) overruns (samples lost while onair was held up), recovered")
        }
        return nil
    }

    /// One period of silence, paced by the clock, while the device is away. Once a second (and
    /// never two at once: an open can hang as well) the device is opened again on a reader of its
    /// own, which takes over once it opened with the same layout.
    private func silence(at now: Double) throws -> AudioFrame {
        if let attempt = reopening, let outcome = attempt.poll() {
            reopening = nil
            // The same samples as before (the period may differ: reads come in any length).
            if case .opened(let reopened) = outcome, reopened.format == layout.format, reopened.rate == layout.rate,
                reopened.channels == layout.channels
            {
                reader = attempt
                report(.audioDeviceRecovered, "audio device \(name) is back")
                silentSince = nil
            } else {
                attempt.abandon()
            }
        }
        if reopening == nil, reader == nil, now >= nextRetry {
            nextRetry = now + 1
            reopening = AlsaReader(opening: name, clock: clock, overruns: overruns)
        }
        let start = silentSince ?? now
        let frame = try AudioFrame(
            format: layout.format, sampleRate: layout.rate, channelCount: layout.channels,
            sampleCount: layout.period, position: (anchor ?? 0) + count + Int64(tracker.correction.rounded()))
        frame.silence()
        count += Int64(layout.period)
        silentSince = start + Double(layout.period) / Double(layout.rate)
        clock.sleep(until: silentSince!)
        return frame
    }
}
