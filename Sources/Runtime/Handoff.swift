import Synchronization

/// A value made on one thread and handed, once, to the thread that uses it from then on: a
/// pipeline stage that holds C handles goes to its own thread this way. The value is sent in
/// (nothing else keeps it) and taken out once, so the compiler sees that no two threads share it.
public final class Handoff<Value>: Sendable {
    private let slot: Mutex<Value?>

    public init(_ value: sending Value) {
        slot = Mutex(value)
    }

    /// The value, to the first caller; nil after.
    public func take() -> sending Value? {
        slot.withLock { value in
            let taken = value
            value = nil
            return taken
        }
    }
}
