import Synchronization

/// Whether a broadcast is paused: set by its control, read once per frame by the pacer and once
/// per buffer by the audio stage, which then send a card and silence instead of what they capture.
public final class PauseSwitch: Sendable {
    private let paused = Atomic<Bool>(false)

    public init() {}

    public var isPaused: Bool { paused.load(ordering: .relaxed) }

    /// Pauses or resumes; true when that changed anything.
    public func set(paused value: Bool) -> Bool {
        paused.exchange(value, ordering: .relaxed) != value
    }
}
