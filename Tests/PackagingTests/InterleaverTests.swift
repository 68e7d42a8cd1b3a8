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

    @Test func theTracksNamedFirstGoFirstAtEqualTimes() {
        // A sound frame at a segment's cut (8 s: 375 AAC frames, 240 pictures) goes before the
        // picture that cuts, into the segment it continues.
        var interleaver = Interleaver<String>(tracks: [Self.video, Self.audio], firstAtEqualTimes: [Self.audio])
        interleaver.push("v239", track: Self.video, time: 239.0 / 30)
        interleaver.push("v240", track: Self.video, time: 240.0 / 30)
        interleaver.push("a374", track: Self.audio, time: 374 * 1024.0 / 48000)
        interleaver.push("a375", track: Self.audio, time: 375 * 1024.0 / 48000)
        interleaver.push("a376", track: Self.audio, time: 376 * 1024.0 / 48000)
        #expect(interleaver.pop() == "v239")
        #expect(interleaver.pop() == "a374")
        #expect(interleaver.pop() == "a375")
        #expect(interleaver.pop() == "v240")
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
