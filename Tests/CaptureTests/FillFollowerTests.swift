import Testing

@testable import Capture

struct FillFollowerTests {
    /// A follower that settled at `level` over its first 5 s.
    private func settled(at level: Int) -> FillFollower {
        var follower = FillFollower(rate: 48_000)
        for _ in 0..<FillFollower.span { #expect(follower.take(level: level, chunk: 960) == 960) }
        return follower
    }

    @Test func theTargetIsTheLevelOfTheFirstFiveSeconds() {
        var follower = FillFollower(rate: 48_000)
        #expect(follower.target == nil)
        for i in 0..<FillFollower.span { _ = follower.take(level: i % 2 == 0 ? 1000 : 2000, chunk: 960) }
        #expect(follower.target == 1500)
    }

    @Test func aStreamAtItsLevelIsTakenWhole() {
        var follower = settled(at: 1600)
        #expect((0..<1000).map { _ in follower.take(level: 1600, chunk: 960) } == Array(repeating: 960, count: 1000))
    }

    @Test func aBufferFillingUpIsTakenFasterAtMostByTheMaximumRate() {
        var follower = settled(at: 1600)
        // Far above the target: 0.05 % of 960 is 0.48 of a frame a chunk.
        let takes = (0..<7).map { _ in follower.take(level: 101_600, chunk: 960) }
        #expect(takes == [960, 960, 961, 960, 961, 960, 961])
    }

    @Test func aBufferRunningDownIsTakenSlower() {
        var follower = settled(at: 100_000)
        let takes = (0..<7).map { _ in follower.take(level: 0, chunk: 960) }
        #expect(takes == [960, 960, 959, 960, 959, 960, 959])
    }

    @Test func aSmallDifferenceIsMadeUpSlowly() {
        var follower = settled(at: 1600)
        // 48 frames (1 ms) above: the average reaches it over seconds, and the stretch is
        // 48 / (48000 × 10) = 0.01 % at most: a frame every ten chunks or more.
        let takes = (0..<500).map { _ in follower.take(level: 1648, chunk: 960) }
        #expect(takes.allSatisfy { $0 == 960 || $0 == 961 })
        #expect(takes.filter { $0 == 961 }.count <= 50)
        #expect(takes.filter { $0 == 961 }.count >= 20)
    }
}
