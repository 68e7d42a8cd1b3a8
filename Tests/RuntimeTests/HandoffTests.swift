import Testing

@testable import Runtime

/// A stage handed to the thread that runs it.
@Suite struct HandoffTests {
    final class Stage {
        var runs = 0
    }

    @Test func theValueIsTakenOnceAndOnlyOnce() {
        let handoff = Handoff(Stage())
        let stage = handoff.take()
        stage?.runs += 1
        #expect(stage?.runs == 1)
        #expect(handoff.take() == nil)
    }
}
