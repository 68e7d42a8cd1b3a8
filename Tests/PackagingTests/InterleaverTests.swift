import Testing

@testable import Packaging
import HLS
import Media

@Suite struct InterleaverTests {
    static let video = TrackID(0)
    static let audio = TrackID(1)

    @Test func releasesInTimeOrderOnlyWhenEveryOpenStreamHasSpoken() {
        var interleaver = Interleaver<String>(tracks: [Self.video, Self.audio])
        interleaver.push("v0", track: Self.video, time: 0)
        interleaver.push("v1", track: Self.video, time: 0.033)
        #expect(interleaver.pop() == nil)
        interleaver.push("a0", track: Self.audio, time: 0)
        interleaver.push("a1", track: Self.audio, time: 0.021)
        #expect(interleaver.pop() == "v0")
        #expect(interleaver.pop() == "a0")
        #expect(interleaver.pop() == "a1")
        #expect(interleaver.pop() == nil)
    }

    @Test func anEndedStreamNoLongerHoldsTheOthersBack() {
        var interleaver = Interleaver<String>(tracks: [Self.video, Self.audio])
        interleaver.push("v0", track: Self.video, time: 0)
        interleaver.end(Self.audio)
        #expect(interleaver.pop() == "v0")
        #expect(!interleaver.isFinished)
        interleaver.end(Self.video)
        #expect(interleaver.isFinished)
    }
}
