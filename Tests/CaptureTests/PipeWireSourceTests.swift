import Testing

@testable import Capture

struct PipeWireSourceTests {
    @Test func aStreamThatRanDryGoesBackToTheLevelItFirstSettledAt() {
        // Primed at 2500 frames first; filled again from a burst to 4900: 2400 of them go.
        #expect(PipeWireSource.overflow(held: 4900, settled: 2500) == 2400)
        #expect(PipeWireSource.overflow(held: 2100, settled: 2500) == 0)
        #expect(PipeWireSource.overflow(held: 2500, settled: 2500) == 0)
        // Priming for the first time: what it holds is where it settles.
        #expect(PipeWireSource.overflow(held: 4900, settled: nil) == 0)
    }
}
