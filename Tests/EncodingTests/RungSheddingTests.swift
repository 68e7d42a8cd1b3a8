import Testing

@testable import Encoding

@Suite struct RungSheddingTests {
    @Test func threeDropsWithinTwoSecondsStartIt() {
        var shedding = RungShedding()
        #expect(shedding.observe(dropped: 1, at: 1.0) == nil)
        #expect(shedding.observe(dropped: 1, at: 2.5) == nil)
        // The first drop has left the window.
        #expect(shedding.observe(dropped: 1, at: 3.1) == nil)
        #expect(!shedding.isShedding)
        #expect(shedding.observe(dropped: 1, at: 3.2) == .started)
        #expect(shedding.isShedding && shedding.step == 2)
        var again = RungShedding()
        #expect(again.observe(dropped: 5, at: 0.5) == .started, "several at once")
    }

    @Test func whileSheddingOnlyOnePictureInStepIsNew() {
        var shedding = RungShedding()
        #expect((0..<4).allSatisfy { shedding.takesNewPicture(index: $0) })
        _ = shedding.observe(dropped: 3, at: 1)
        #expect((0..<6).map { shedding.takesNewPicture(index: $0) } == [true, false, true, false, true, false])
        _ = shedding.observe(dropped: 3, at: 3)
        #expect(shedding.step == 3)
        #expect((0..<6).map { shedding.takesNewPicture(index: $0) } == [true, false, false, true, false, false])
    }

    @Test func stillDroppingShedsMoreAtMostOnceAWindowUpToEverySixth() {
        var shedding = RungShedding()
        _ = shedding.observe(dropped: 3, at: 1)
        #expect(shedding.observe(dropped: 3, at: 2) == nil && shedding.step == 2, "not within the window")
        #expect(shedding.observe(dropped: 3, at: 3) == nil && shedding.step == 3)
        for second in 4...20 { _ = shedding.observe(dropped: 3, at: Double(second)) }
        #expect(shedding.step == RungShedding.largestStep)
    }

    @Test func tenSecondsWithoutADropShedOneStepLess() {
        var shedding = RungShedding()
        _ = shedding.observe(dropped: 3, at: 1)
        _ = shedding.observe(dropped: 3, at: 3)
        #expect(shedding.step == 3)
        #expect(shedding.observe(dropped: 0, at: 12.9) == nil && shedding.step == 3)
        #expect(shedding.observe(dropped: 0, at: 13) == nil && shedding.step == 2)
        // A drop while shedding starts the ten seconds again.
        #expect(shedding.observe(dropped: 1, at: 14) == nil)
        #expect(shedding.observe(dropped: 0, at: 23.9) == nil && shedding.step == 2)
        #expect(shedding.observe(dropped: 0, at: 24) == .ended)
        #expect(!shedding.isShedding && shedding.takesNewPicture(index: 1))
    }
}
