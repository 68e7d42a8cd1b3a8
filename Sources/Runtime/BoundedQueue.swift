/// What a full queue does with one more element.
public enum OverflowPolicy: Sendable {
    /// Drop the oldest element: for video, where a late frame is worth nothing.
    case dropOldest
    /// Block the producer until there is room: for audio and packets, which are never dropped silently.
    case block
}

/// A bounded queue between two pipeline stages running on their own threads.
///
/// The producer `close()`s it when done; the consumer drains what is left and then receives nil,
/// so end of stream travels downstream behind the last element.
// Unchecked Sendable: its state is guarded by its own condition lock (a Mutex cannot wait).
public final class BoundedQueue<Element: Sendable>: @unchecked Sendable {
    public let capacity: Int
    public let policy: OverflowPolicy
    private let condition = Condition()
    // Guarded by `condition`. Slots before `head` are empty (nil): a popped or dropped element is
    // let go at once, not when the array is next compacted (a sink's queue of 32 publications
    // would otherwise hold 31 old timelines, and a frame queue pictures already encoded).
    private var elements: [Element?] = []
    private var head = 0
    private var closed = false
    private var dropped = 0
    /// With `.dropOldest`: elements passed over when one must go. When every queued element is
    /// one, a newcomer that is not goes instead, and one that is joins them, beyond the capacity,
    /// up to ``keptGrowth`` times it (then the oldest goes).
    private let keep: (@Sendable (Element) -> Bool)?
    /// How far kept elements may fill a queue beyond its capacity.
    public static var keptGrowth: Int { 4 }

    public init(capacity: Int, policy: OverflowPolicy, keep: (@Sendable (Element) -> Bool)? = nil) {
        precondition(capacity > 0)
        self.capacity = capacity
        self.policy = policy
        self.keep = keep
        elements.reserveCapacity(capacity)
    }

    /// Adds an element; returns false when the queue is closed (the element is discarded).
    @discardableResult
    public func push(_ element: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !closed, elements.count - head >= capacity, policy == .block {
            condition.wait()
        }
        if closed { return false }
        if elements.count - head >= capacity {
            if let keep, let index = elements[head...].firstIndex(where: { !keep($0!) }) {
                if index > head { elements.remove(at: index) } else { letGoOfHead() }
                dropped += 1
            } else if let keep, !keep(element) {
                // Every queued element is kept: the newcomer goes instead.
                dropped += 1
                return true
            } else if keep == nil || elements.count - head >= capacity * Self.keptGrowth {
                letGoOfHead()
                dropped += 1
            }
            // Otherwise a kept element joins kept ones beyond the capacity (a consumer stalled for
            // longer than the capacity's worth of them), up to `keptGrowth` times it.
        }
        elements.append(element)
        condition.broadcast()
        return true
    }

    /// The next element, blocking until one arrives; nil once the queue is closed and empty.
    public func pop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while elements.count == head, !closed {
            condition.wait()
        }
        return takeFirst()
    }

    /// The next element if one is waiting, without blocking.
    public func tryPop() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        return takeFirst()
    }

    /// Removes and returns the oldest element, nil when there is none; the lock is held.
    private func takeFirst() -> Element? {
        guard elements.count > head, let element = elements[head] else { return nil }
        letGoOfHead()
        condition.broadcast()
        return element
    }

    /// Empties the oldest slot and moves past it; the empty slots go once there are as many as the
    /// capacity (so the array never grows beyond `keptGrowth + 1` times it, however long the
    /// consumer is away).
    private func letGoOfHead() {
        elements[head] = nil
        head += 1
        if head >= capacity {
            elements.removeFirst(head)
            head = 0
        }
    }

    /// Ends the stream: no more pushes; pops drain what is left, then return nil.
    public func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    /// Waits up to `seconds` for an element to be waiting (without taking it); true when one is.
    public func waitForElement(seconds: Double) -> Bool {
        let deadline = Condition.Deadline(after: seconds)
        condition.lock()
        defer { condition.unlock() }
        while elements.count == head, !closed {
            if !condition.wait(until: deadline) { break }
        }
        return elements.count > head
    }

    /// Whether `close()` was called.
    public var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    /// How many elements are waiting.
    public var count: Int {
        condition.lock()
        defer { condition.unlock() }
        return elements.count - head
    }

    /// How many elements the drop-oldest policy has discarded.
    public var droppedCount: Int {
        condition.lock()
        defer { condition.unlock() }
        return dropped
    }
}
