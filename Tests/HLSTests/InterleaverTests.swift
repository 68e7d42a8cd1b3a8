import Testing

@testable import HLS

@Suite struct InterleaverTests {
    @Test func releasesInTimeOrderOnlyWhenEveryOpenStreamHasSpoken() {
        var interleaver = Interleaver<String>(streams: [.video, .audio])
        interleaver.push("v0", kind: .video, time: 0)
        interleaver.push("v1", kind: .video, time: 0.033)
        #expect(interleaver.pop() == nil)
        interleaver.push("a0", kind: .audio, time: 0)
        interleaver.push("a1", kind: .audio, time: 0.021)
        #expect(interleaver.pop() == "v0")
        #expect(interleaver.pop() == "a0")
        #expect(interleaver.pop() == "a1")
        #expect(interleaver.pop() == nil)
    }

    @Test func anEndedStreamNoLongerHoldsTheOthersBack() {
        var interleaver = Interleaver<String>(streams: [.video, .audio])
        interleaver.push("v0", kind: .video, time: 0)
        interleaver.end(.audio)
        #expect(interleaver.pop() == "v0")
        #expect(!interleaver.isFinished)
        interleaver.end(.video)
        #expect(interleaver.isFinished)
    }
}
