import Testing

@testable import Runtime

@Suite struct BoundedQueueTests {
    @Test func dropOldestKeepsTheNewestAndCountsDrops() {
        let queue = BoundedQueue<Int>(capacity: 2, policy: .dropOldest)
        for value in 1...5 { queue.push(value) }
        queue.close()
        #expect(queue.pop() == 4)
        #expect(queue.pop() == 5)
        #expect(queue.pop() == nil)
        #expect(queue.droppedCount == 3)
    }

    @Test func dropOldestPassesOverWhatItMustKeep() {
        // Multiples of 3 are kept while anything else can go instead.
        let queue = BoundedQueue<Int>(capacity: 3, policy: .dropOldest) { $0 % 3 == 0 }
        for value in 0...7 { queue.push(value) }
        queue.close()
        var left: [Int] = []
        while let value = queue.pop() { left.append(value) }
        #expect(left == [0, 3, 6], "1, 2, 4 and 5 went first; then 7, the newcomer, as all queued were kept")
        #expect(queue.droppedCount == 5)
        // Only kept ones: they fill four times the capacity, then the oldest goes.
        let full = BoundedQueue<Int>(capacity: 2, policy: .dropOldest) { _ in true }
        for value in 1...9 { full.push(value) }
        full.close()
        left = []
        while let value = full.pop() { left.append(value) }
        #expect(left == Array(2...9))
        #expect(full.droppedCount == 1)
    }

    /// Stands for a picture or a publication: something whose release can be seen.
    final class Tracked: Sendable {
        let id: Int
        init(_ id: Int) { self.id = id }
    }

    @Test func aPoppedElementIsLetGoOfAtOnce() {
        let queue = BoundedQueue<Tracked>(capacity: 32, policy: .dropOldest)
        weak var first: Tracked?
        weak var second: Tracked?
        do {
            let one = Tracked(1)
            let two = Tracked(2)
            first = one
            second = two
            queue.push(one)
            queue.push(two)
        }
        #expect(queue.pop()?.id == 1)
        #expect(first == nil, "the queue no longer holds what it handed over")
        #expect(second?.id == 2, "and still holds what waits")
        #expect(queue.tryPop()?.id == 2)
        #expect(second == nil)
        #expect(queue.count == 0)
    }

    @Test func aDroppedElementIsLetGoOfAtOnce() {
        // The oldest goes when nothing is kept.
        let plain = BoundedQueue<Tracked>(capacity: 2, policy: .dropOldest)
        weak var oldest: Tracked?
        do {
            let one = Tracked(1)
            oldest = one
            plain.push(one)
            plain.push(Tracked(2))
            plain.push(Tracked(3))
        }
        #expect(oldest == nil, "the dropped element is gone")
        #expect(plain.pop()?.id == 2)
        // An element passed over in favour of one that is kept goes too.
        let keeping = BoundedQueue<Tracked>(capacity: 2, policy: .dropOldest) { $0.id == 0 }
        weak var kept: Tracked?
        weak var passedOver: Tracked?
        do {
            let zero = Tracked(0)
            let one = Tracked(1)
            kept = zero
            passedOver = one
            keeping.push(zero)
            keeping.push(one)
            keeping.push(Tracked(2))  // 1 goes, not 0, which is kept
        }
        #expect(passedOver == nil)
        #expect(kept?.id == 0)
        #expect(keeping.pop()?.id == 0)
        #expect(kept == nil)
        #expect(keeping.pop()?.id == 2)
        #expect(plain.droppedCount == 1 && keeping.droppedCount == 1)
    }

    /// A frame queue whose encoder stalls for longer than its capacity's worth of part starts: none
    /// of them is dropped (a part whose first frame went would last longer than PART-TARGET), a
    /// frame that starts nothing is dropped instead, and the growth is bounded.
    @Test func keptElementsAreNeverDroppedForOthersAndGrowOnlySoFar() {
        let queue = BoundedQueue<Int>(capacity: 2, policy: .dropOldest) { $0 % 3 == 0 }
        for frame in 0..<7 { queue.push(frame) }
        // 0..6 into room for 2: 1, 2, 4 and 5 pass; 0, 3 and 6 (kept) are all there.
        #expect(queue.droppedCount == 4)
        var left: [Int] = []
        while let frame = queue.tryPop() { left.append(frame) }
        #expect(left == [0, 3, 6])
        // Kept ones alone grow to 4 times the capacity, then the oldest goes.
        for frame in 0..<9 { queue.push(frame * 3) }
        #expect(queue.droppedCount == 5)
        left = []
        while let frame = queue.tryPop() { left.append(frame) }
        #expect(left == [3, 6, 9, 12, 15, 18, 21, 24])
    }

    @Test func aQueueNobodyReadsKeepsOnlyItsCapacity() {
        let queue = BoundedQueue<Tracked>(capacity: 4, policy: .dropOldest)
        var seen: [Int: Bool] = [:]
        var alive: [Weak] = []
        for id in 0..<100 {
            let element = Tracked(id)
            alive.append(Weak(element))
            queue.push(element)
        }
        for (id, reference) in alive.enumerated() { seen[id] = reference.element != nil }
        #expect(seen.filter(\.value).keys.sorted() == [96, 97, 98, 99])
        #expect(queue.count == 4)
        #expect(queue.droppedCount == 96)
    }

    struct Weak {
        weak var element: Tracked?
        init(_ element: Tracked) { self.element = element }
    }

    @Test func closedQueueRefusesPushesAndDrainsInOrder() {
        let queue = BoundedQueue<Int>(capacity: 8, policy: .block)
        queue.push(1)
        queue.push(2)
        queue.close()
        #expect(queue.push(3) == false)
        #expect(queue.pop() == 1)
        #expect(queue.pop() == 2)
        #expect(queue.pop() == nil)
    }

    @Test func blockingQueueLosesNothingAcrossThreads() async {
        let queue = BoundedQueue<Int>(capacity: 4, policy: .block)
        let producer = Task.detached {
            for value in 0..<10_000 { queue.push(value) }
            queue.close()
        }
        var received: [Int] = []
        while let value = queue.pop() { received.append(value) }
        await producer.value
        #expect(received == Array(0..<10_000))
    }
}
