import Testing

@testable import Runtime

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
