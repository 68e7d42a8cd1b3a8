import Synchronization

/// A flag one thread or task raises once and others read: "stop waiting", "give up this call".
public final class Flag: Sendable {
    private let value = Atomic<Bool>(false)

    public init() {}

    public func set() { value.store(true, ordering: .relaxed) }
    public var isSet: Bool { value.load(ordering: .relaxed) }
}
