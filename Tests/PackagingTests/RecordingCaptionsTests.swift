import HLS
@testable import Packaging
import HLSModel
import Testing

/// A recording's captions as an MP4's text track holds them, exactly.
@Suite struct RecordingCaptionsTests {
    @Test func copiesAreOneSampleAndOverlappingCuesShareOne() {
        let ana = Cue(start: 1, end: 4, text: "Ana")
        let ben = Cue(start: 3, end: 6, text: "Ben")
        // Ana's cue is listed in two segments; a cue that does not end after it starts is dropped.
        let samples = RecordingCaptions.samples(of: [ana, ana, ben, Cue(start: 8, end: 8, text: "none"), ben])
        #expect(
            samples == [
                Cue(start: 1, end: 3, text: "Ana"), Cue(start: 3, end: 4, text: "Ana\nBen"),
                Cue(start: 4, end: 6, text: "Ben"),
            ])
        // A gap is no sample; two cues of the same start keep their order; the same text on
        // either side of a moment where nothing changes is one sample.
        #expect(
            RecordingCaptions.samples(of: [
                Cue(start: 10, end: 12, text: "first"), Cue(start: 10, end: 11, text: "second"),
                Cue(start: 14, end: 15, text: "after"), Cue(start: 15, end: 16, text: "after"),
            ]) == [
                Cue(start: 10, end: 11, text: "first\nsecond"), Cue(start: 11, end: 12, text: "first"),
                Cue(start: 14, end: 16, text: "after"),
            ])
        #expect(RecordingCaptions.samples(of: []) == [])
        // A file not of this program's may hold more at once than the rules let be: two are shown.
        #expect(
            RecordingCaptions.samples(of: [
                Cue(start: 0, end: 2, text: "a"), Cue(start: 0, end: 2, text: "b"), Cue(start: 0, end: 2, text: "c"),
            ]) == [Cue(start: 0, end: 2, text: "a\nb")])
    }

    @Test func webVTTMarkupBecomesASSDialogue() {
        #expect(
            RecordingCaptions.dialogue(fromWebVTT: "<v Ana Lima>Tom &amp; <b>Jerry</b> &lt;3 &gt; <i>2</i>\n<u>x</u>")
                == "Ana Lima: Tom & {\\b1}Jerry{\\b0} <3 > {\\i1}2{\\i0}\\N{\\u1}x{\\u0}")
        #expect(
            RecordingCaptions.dialogue(fromWebVTT: "<v.loud Ben>hi</v> a\\nb {\\an8} &bogus;")
                == "Ben: hi a＼nb {＼an8} &bogus;")
    }
}
