public import Runtime
public import Media

/// What `--audio` and `--audio-mix` capture from: an ALSA device, or PipeWire (an application's
/// sound, a sink's monitor, a source).
public enum SoundDevice: Sendable, Equatable, CustomStringConvertible {
    case alsa(String)
    case pipeWire(PipeWireTarget)

    /// `app:NAME`, `pipewire[:NAME]`, or an ALSA device name. `app:` with no name is refused.
    public init(parsing text: String) throws(CaptureError) {
        if text.hasPrefix("app:") {
            guard let application = SoundApplication(String(text.dropFirst(4))) else {
                throw .pipeWireSound(
                    "app: needs an application: its name, its binary or its process id (app:firefox, app:1234); onair devices lists the applications playing now"
                )
            }
            self = .pipeWire(.application(application))
        } else if text == "pipewire" || text.hasPrefix("pipewire:") {
            self = .pipeWire(PipeWireTarget(device: String(text.dropFirst("pipewire".count).drop { $0 == ":" })))
        } else {
            self = .alsa(text)
        }
    }

    public var description: String {
        switch self {
        case .alsa(let name): "ALSA device \(name)"
        case .pipeWire(let target): target.description
        }
    }

    /// Opens the device and captures from it, placed on the broadcast clock.
    public func open(
        clock: MediaClock, stop: StopSignal, report: @escaping EventReporter,
        warn: @escaping @Sendable (String) -> Void, log: @escaping @Sendable (String) -> Void
    ) throws -> any AudioSource {
        switch self {
        case .alsa(let name):
            try AlsaSource(name: name, clock: clock, stop: stop, warn: warn, report: report)
        case .pipeWire(let target):
            try PipeWireSource(target: target, clock: clock, stop: stop, report: report, log: log)
        }
    }
}
