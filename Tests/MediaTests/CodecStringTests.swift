import Testing

@testable import Media

@Suite struct CodecStringTests {
    @Test func avcFromAnnexBExtradataReadsProfileConstraintsAndLevel() {
        // x264's global header: start code, SPS (type 7) with profile 100, constraints 0, level 31.
        let extradata: [UInt8] = [0, 0, 0, 1, 0x67, 0x64, 0x00, 0x1f, 0xac, 0, 0, 0, 1, 0x68, 0xeb]
        #expect(CodecString.avc(extradata: extradata) == "avc1.64001f")
    }

    @Test func avcFromAvcCExtradata() {
        #expect(CodecString.avc(extradata: [1, 0x42, 0xc0, 0x1e, 0xff]) == "avc1.42c01e")
    }

    @Test func avcWithoutSPSIsNil() {
        #expect(CodecString.avc(extradata: [0, 0, 1, 0x68, 1, 2, 3]) == nil)
    }

    @Test func aacObjectTypeComesFromTheAudioSpecificConfig() {
        #expect(CodecString.aac(extradata: [0x11, 0x90]) == "mp4a.40.2")
        #expect(CodecString.aac(extradata: [0x2b, 0x92]) == "mp4a.40.5")
    }
}

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

@Suite struct StopSignalTests {
    @Test func theEarliestStopWins() {
        let stop = StopSignal(after: 10)
        #expect(!stop.shouldStop(at: 9.999))
        #expect(stop.shouldStop(at: 10))
        stop.requestStop(at: 4)
        stop.requestStop(at: 6)
        #expect(stop.shouldStop(at: 4))
        #expect(!stop.shouldStop(at: 3.9))
    }
}
