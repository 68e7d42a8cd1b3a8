public import Media

/// Sound from an ALSA capture device (`default`, `pulse`, `hw:1,0`, `plughw:…`).
///
/// Each run of samples is positioned by the sample count since the first read, which is anchored
/// to the broadcast clock and corrected by a `DeviceClockTracker`: the device's clock drifting
/// from ours is absorbed slowly (the encoder's resampler stretches or squeezes inaudibly), a step
/// (a latency report settling, samples lost upstream) at once; no buffer is stamped from a bare,
/// jittery clock read. Overruns are recovered and counted; a device that disappears is replaced
/// by silence, with a warning, and reopened once a second.
public final class AlsaSource: AudioSource, @unchecked Sendable {
    public let name: String
    public let overruns = Counter()
    private let clock: MediaClock
    private let stop: StopSignal
    private let warn: @Sendable (String) -> Void
    private let report: EventReporter
    private var device: AlsaDevice?
    private var layout: (format: SampleFormat, rate: Int, channels: Int, period: Int)
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
        self.device = device
        layout = (device.format, device.rate, device.channels, device.periodFrames)
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
        while true {
            let now = clock.elapsed()
            // A device that stopped delivering still ends with the broadcast, two seconds late at most.
            if stop.shouldStop(at: now - 2) { return end() }
            guard let device else {
                let silent = try silence(at: now)
                return stop.shouldStop(at: Double(silent.position) / Double(layout.rate)) ? end() : silent
            }
            let frame = try AudioFrame(
                format: layout.format, sampleRate: layout.rate, channelCount: layout.channels,
                sampleCount: layout.period, position: 0)
            let count: Int
            let overrunsBefore = overruns.current
            do {
                count = try device.read(into: frame, overruns: overruns)
                if overruns.current > overrunsBefore { lostSamples = true }
            } catch {
                report(
                    .audioDeviceLost,
                    "audio device \(name) failed (\(error)): sending silence and trying again every second")
                self.device = nil
                silentSince = now
                continue
            }
            guard count > 0 else { continue }
            frame.keepFirst(count)
            let returned = clock.elapsed()
            let captured = returned - Double(backlog(device, waited: returned - now) + count) / Double(layout.rate)
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

    /// Frames captured but not yet read, as the device reports them (`snd_pcm_delay`), but never
    /// more than arrived while a read waited: a read that had to wait found less than a period,
    /// so what is there now came in since. A sound server reports its whole buffer for the first
    /// seconds before its first timing update; believed, it would stamp sound 250 ms early.
    private func backlog(_ device: AlsaDevice, waited: Double) -> Int {
        let reported = device.delay
        guard waited > 0.25 * Double(layout.period) / Double(layout.rate) else { return reported }
        return min(reported, Int(waited * Double(layout.rate)))
    }

    /// The end of the stream, saying how many overruns there were.
    private func end() -> AudioFrame? {
        if overruns.current > 0 {
            warn("audio device \(name): \(overruns.current) overruns (samples lost while onair was held up), recovered")
        }
        return nil
    }

    /// One period of silence, paced by the clock, while the device is away.
    private func silence(at now: Double) throws -> AudioFrame {
        if now >= nextRetry {
            nextRetry = now + 1
            if let reopened = try? AlsaDevice(name: name), reopened.format == layout.format,
                reopened.rate == layout.rate, reopened.channels == layout.channels
            {
                device = reopened
                report(.audioDeviceRecovered, "audio device \(name) is back")
                silentSince = nil
            }
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
