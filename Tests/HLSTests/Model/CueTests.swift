import HLSModel
import Testing

/// A caption's rules, and the WebVTT file of a subtitle segment, exactly.
@Suite struct CueTests {
    @Test func aCaptionsTextKeepsWebVTTsRules() {
        #expect(Cue.problem(withText: "Hello <b>world</b>, <i>it</i> <u>is</u> 3 > 2 & more") == nil)
        #expect(Cue.problem(withText: "<v Ana Lima>Hello\n<v.loud Ben>hi") == nil)
        #expect(Cue.problem(withText: "  ") == "a caption needs text")
        #expect(
            Cue.problem(withText: String(repeating: "x", count: 501))
                == "a caption is at most 500 characters (this one has 501)")
        #expect(Cue.problem(withText: String(repeating: "é", count: 500)) == nil)
        #expect(
            Cue.problem(withText: "a\tb")
                == "a caption cannot hold control characters (tabs, carriage returns) but line breaks")
        #expect(Cue.problem(withText: "one\n\ntwo") == "a caption cannot hold an empty line")
        #expect(Cue.problem(withText: "one\n ") == "a caption cannot hold an empty line")
        #expect(Cue.problem(withText: "a --> b") == "a caption cannot hold \"-->\"")
        #expect(Cue.problem(withText: "1 < 2") == "a caption's \"<\" must start a tag (write &lt; for the sign)")
        #expect(
            Cue.problem(withText: "<script>x</script>")
                == "a caption may hold only <b>, <i>, <u> and <v name> (not <script>)")
        #expect(Cue.problem(withText: "<b>bold") == "a caption's <b> is not closed")
        #expect(Cue.problem(withText: "<b><i>x</b></i>") == "a caption's </b> closes no open <b>")
        #expect(Cue.problem(withText: "<v>who?") == "a caption's <v> needs a name")
        #expect(Cue.problem(withText: "<b class>x</b>") == "a caption's <b> takes nothing more")
    }

    @Test func aCaptionsTimesEndAfterTheyStartWithinThirtySeconds() {
        #expect(Cue(start: 1, end: 31, text: "x").timeProblem == nil)
        #expect(Cue(start: 1, end: 1, text: "x").timeProblem == "a caption must end after it starts")
        #expect(Cue(start: 1, end: 31.5, text: "x").timeProblem == "a caption lasts at most 30 s (this one 30.5 s)")
        #expect(Cue(start: -1, end: 1, text: "x").timeProblem == "a caption's times must be real moments")
        #expect(Cue(start: .nan, end: 1, text: "x").timeProblem == "a caption's times must be real moments")
    }

    @Test func captionsComeInOrderWithAtMostTwoOnScreen() throws {
        let taken = [Cue(start: 10, end: 14, text: "one"), Cue(start: 11, end: 13, text: "two")]
        #expect(throws: CueRefusal("captions come in order: this one starts at 10.5 s, before the one at 11 s")) {
            try taken.check(Cue(start: 10.5, end: 12, text: "three"))
        }
        #expect(throws: CueRefusal("at most 2 captions are on screen at once")) {
            try taken.check(Cue(start: 12, end: 15, text: "three"))
        }
        try taken.check(Cue(start: 13, end: 15, text: "three"))
        try [Cue]().check(Cue(start: 0, end: 1, text: "first"))
    }

    @Test func aSubtitleFileHasOneTimestampMapAndItsCuesEscaped() {
        #expect(WebVTTFile.render(cues: []) == "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:90000,LOCAL:00:00:01.000\n")
        #expect(
            WebVTTFile.render(cues: [
                Cue(start: 3.4321, end: 5.9, text: "<v Ana>Tom & Jerry &amp; 3 > 2"),
                Cue(start: 3_600 * 101 + 61.0005, end: 3_600 * 101 + 62, text: "late\nsecond line"),
            ])
                == """
                WEBVTT
                X-TIMESTAMP-MAP=MPEGTS:90000,LOCAL:00:00:01.000

                00:00:03.432 --> 00:00:05.900
                <v Ana>Tom &amp; Jerry &amp; 3 &gt; 2

                101:01:01.001 --> 101:01:02.000
                late
                second line

                """)
    }

    @Test func aCaptionGivenInWallTimeIsACueOfTheBroadcastsMediaTime() {
        let caption = Caption(text: "Hi", start: 1_795_000_010_250, end: 1_795_000_012_000)
        let cue = caption.cue(anchor: 1_795_000_000_000)
        #expect(cue == Cue(start: 10.25, end: 12, text: "Hi"))
        #expect(Caption(cue, anchor: 1_795_000_000_000) == caption)
    }
}
