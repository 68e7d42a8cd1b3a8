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
