import Testing

@testable import Media

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
        #expect(left == [3, 6, 7], "1, 2, 4 and 5 went first; then 0, the oldest, as all were kept")
        #expect(queue.droppedCount == 5)
        // Only kept ones queued: the oldest goes all the same.
        let full = BoundedQueue<Int>(capacity: 2, policy: .dropOldest) { _ in true }
        for value in 1...3 { full.push(value) }
        full.close()
        #expect(full.pop() == 2 && full.pop() == 3)
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
