import Synchronization

/// A count one stage raises and others read (status line, stats API).
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    public init() {}

    public func add(_ amount: Int = 1) {
        value.add(amount, ordering: .relaxed)
    }

    public var current: Int { value.load(ordering: .relaxed) }
}
