import Logging
import ServiceLifecycle
import UnixSignals

/// Pause and resume from a terminal: `kill -USR1 <pid>` pauses, `kill -USR2 <pid>` resumes.
struct ControlSignals: Service {
    let control: BroadcastControl

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sigusr1, .sigusr2)
        for await signal in signals.cancelOnGracefulShutdown() {
            _ = signal == .sigusr1 ? control.pause() : control.resume()
        }
    }
}
