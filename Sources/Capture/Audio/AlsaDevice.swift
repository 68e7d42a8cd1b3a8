import Runtime
internal import CALSA
import Media

/// ALSA's own message for a code. Wraps `snd_strerror`.
func alsaMessage(_ code: Int32) -> String { String(cString: snd_strerror(code)) }

/// Throws ``CaptureError/alsa(code:operation:)`` for a negative ALSA result.
@discardableResult
func checkALSA(_ code: Int32, _ operation: @autoclosure () -> String) throws(CaptureError) -> Int32 {
    guard code >= 0 else { throw .alsa(code: code, operation: operation()) }
    return code
}

/// An ALSA capture device as `onair devices` lists it.
public struct CaptureDevice: Sendable, Equatable {
    /// What `--audio` takes: `pulse`, `hw:CARD=PCH,DEV=0`, …
    public var name: String
    /// The first line of ALSA's description ("PulseAudio Sound Server"), when it has one.
    public var description: String?
}

/// One opened ALSA capture device, in whatever format, rate and channel count it offers
/// nearest to 16-bit 48 kHz stereo. Owns the snd_pcm_t.
/// Used by one thread at a time: opened on one, handed once to the `AlsaReader` that reads it.
// Unchecked Sendable: a C handle (snd_pcm_t), used by one thread at a time.
final class AlsaDevice: @unchecked Sendable {
    let name: String
    let format: SampleFormat
    let rate: Int
    let channels: Int
    let periodFrames: Int
    private let pcm: OpaquePointer

    /// Opens and configures the device. Wraps `snd_pcm_open` and `snd_pcm_hw_params`.
    init(name: String) throws {
        CALSA_silence()
        var opened: OpaquePointer?
        try checkALSA(snd_pcm_open(&opened, name, SND_PCM_STREAM_CAPTURE, 0), "snd_pcm_open(\(name))")
        let pcm = opened!
        self.pcm = pcm
        self.name = name
        var params: OpaquePointer?
        do {
            try checkALSA(snd_pcm_hw_params_malloc(&params), "snd_pcm_hw_params_malloc")
            defer { snd_pcm_hw_params_free(params) }
            try checkALSA(snd_pcm_hw_params_any(pcm, params), "snd_pcm_hw_params_any")
            try checkALSA(
                snd_pcm_hw_params_set_access(pcm, params, SND_PCM_ACCESS_RW_INTERLEAVED), "interleaved access")
            let formats: [(snd_pcm_format_t, SampleFormat)] = [
                (SND_PCM_FORMAT_S16_LE, .s16Interleaved), (SND_PCM_FORMAT_S32_LE, .s32Interleaved),
                (SND_PCM_FORMAT_FLOAT_LE, .floatInterleaved),
            ]
            guard let chosen = formats.first(where: { snd_pcm_hw_params_set_format(pcm, params, $0.0) == 0 }) else {
                throw CaptureError.alsa(code: -22, operation: "\(name) offers none of S16_LE, S32_LE, FLOAT_LE")
            }
            var channels: UInt32 = 2
            try checkALSA(snd_pcm_hw_params_set_channels_near(pcm, params, &channels), "channels")
            var rate: UInt32 = 48_000
            try checkALSA(snd_pcm_hw_params_set_rate_near(pcm, params, &rate, nil), "rate")
            var period: UInt32 = 20_000
            try checkALSA(snd_pcm_hw_params_set_period_time_near(pcm, params, &period, nil), "period time")
            var buffer: UInt32 = 500_000
            try checkALSA(snd_pcm_hw_params_set_buffer_time_near(pcm, params, &buffer, nil), "buffer time")
            try checkALSA(snd_pcm_hw_params(pcm, params), "snd_pcm_hw_params")
            var frames: snd_pcm_uframes_t = 0
            var direction: Int32 = 0
            snd_pcm_hw_params_get_period_size(params, &frames, &direction)
            self.format = chosen.1
            self.rate = Int(rate)
            self.channels = Int(channels)
            self.periodFrames = max(64, Int(frames))
            try checkALSA(snd_pcm_start(pcm), "snd_pcm_start")
        } catch {
            snd_pcm_close(pcm)
            throw error
        }
    }

    /// Reads up to one period into `frame`; returns how many frames arrived (0 after an overrun,
    /// which is recovered). Wraps `snd_pcm_readi` and `snd_pcm_recover`.
    func read(into frame: AudioFrame, overruns: Counter) throws(CaptureError) -> Int {
        let count = frame.withInterleavedBytes { bytes in
            snd_pcm_readi(pcm, bytes.baseAddress, snd_pcm_uframes_t(frame.sampleCount))
        }
        if count >= 0 { return count }
        if Int32(count) == CALSA_overrun { overruns.add() }
        try checkALSA(snd_pcm_recover(pcm, Int32(count), 1), "snd_pcm_readi(\(name))")
        return 0
    }

    var layout: AlsaLayout { AlsaLayout(format: format, rate: rate, channels: channels, period: periodFrames) }

    /// Frames captured but not yet read. Wraps `snd_pcm_delay`.
    var delay: Int {
        var frames: snd_pcm_sframes_t = 0
        return snd_pcm_delay(pcm, &frames) == 0 ? max(0, frames) : 0
    }

    /// The PCM capture devices ALSA knows by name, with the first line of their description.
    /// Wraps `snd_device_name_hint`.
    static func captureDevices() -> [CaptureDevice] {
        CALSA_silence()
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard snd_device_name_hint(-1, "pcm", &hints) == 0, let hints else { return [] }
        defer { snd_device_name_free_hint(hints) }
        var devices: [CaptureDevice] = []
        var index = 0
        while let hint = hints[index] {
            index += 1
            guard let name = snd_device_name_get_hint(hint, "NAME") else { continue }
            defer { free(name) }
            let direction = snd_device_name_get_hint(hint, "IOID")
            defer { free(direction) }
            guard direction == nil || String(cString: direction!) == "Input" else { continue }
            let description = snd_device_name_get_hint(hint, "DESC")
            defer { free(description) }
            let summary = description.flatMap { String(cString: $0).split(separator: "\n").first }.map(String.init)
            devices.append(CaptureDevice(name: String(cString: name), description: summary))
        }
        return devices
    }

    deinit {
        snd_pcm_close(pcm)
    }
}
