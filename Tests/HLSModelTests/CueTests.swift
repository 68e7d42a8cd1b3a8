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
        // Numbers a captioner may write, far out of range, are refused without a trap.
        #expect(Cue(start: 0, end: 1e300, text: "x").timeProblem == "a caption lasts at most 30 s (this one 1e+300 s)")
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

    @Test func aSubtitleFilesCuesAreReadBackAsWritten() {
        let cues = [
            Cue(start: 3.432, end: 5.9, text: "<v Ana>Tom &amp; Jerry &amp; 3 &gt; 2"),
            Cue(start: 3_600 * 101 + 61.001, end: 3_600 * 101 + 62, text: "late\nsecond line"),
        ]
        #expect(WebVTTFile.cues(in: WebVTTFile.render(cues: cues)) == cues)
        // Another writer's: CRLF, a NOTE, short timestamps, cue settings, an identifier; what does
        // not read is passed over.
        let other =
            "\u{FEFF}WEBVTT\r\n\r\nNOTE a comment\r\n\r\nintro\r\n01:02.500 --> 01:04.000 line:90% align:start\r\nHi\r\n\r\n"
            + "00:01.000 --> 00:02.000\r\n\r\n00:61.000 --> 01:02.000\r\nbad\n\n1:00.000 --> 1:01.000\nbad\n\n"
            + "00:00:05.000-->00:00:06.250\nlast"
        #expect(
            WebVTTFile.cues(in: other) == [
                Cue(start: 62.5, end: 64, text: "Hi"), Cue(start: 5, end: 6.25, text: "last"),
            ])
    }

    @Test func aCaptionGivenInWallTimeIsACueOfTheBroadcastsMediaTime() {
        let caption = Caption(text: "Hi", start: 1_795_000_010_250, end: 1_795_000_012_000)
        let cue = caption.cue(anchor: 1_795_000_000_000)
        #expect(cue == Cue(start: 10.25, end: 12, text: "Hi"))
        #expect(Caption(cue, anchor: 1_795_000_000_000) == caption)
    }

    @Test func aCaptionsRenditionIsSaidInTheMultivariantPlaylistAndReadBack() {
        let ladder = LadderView(
            entries: [
                LadderView.Entry(
                    id: "main",
                    variant: .init(
                        uri: "main/media.m3u8", bandwidth: 900_000, averageBandwidth: 800_000,
                        codecs: ["avc1.64001e", "mp4a.40.2"], width: 640, height: 360, frameRate: 30),
                    lastMSN: 4, lastPart: nil),
                LadderView.Entry(
                    id: "captions",
                    variant: .init(
                        uri: "captions/media.m3u8", bandwidth: 1, averageBandwidth: 1, codecs: [], width: 0, height: 0,
                        frameRate: 0),
                    lastMSN: 4, lastPart: nil, captions: .init(language: "pt-BR", name: "Brazilian Portuguese")),
            ], version: 6)
        let playlist = ladder.multivariantPlaylist
        #expect(
            playlist.render() == """
                #EXTM3U
                #EXT-X-VERSION:6
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="Brazilian Portuguese",LANGUAGE="pt-BR",DEFAULT=YES,AUTOSELECT=YES,FORCED=NO,URI="captions/media.m3u8"
                #EXT-X-STREAM-INF:BANDWIDTH=900000,AVERAGE-BANDWIDTH=800000,CODECS="avc1.64001e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=30.000,SUBTITLES="subs"
                main/media.m3u8

                """)
        #expect(MultivariantPlaylist.parse(playlist.render()) == playlist)
        #expect(playlist.pointing(to: .dvrMediaPlaylist).subtitles.map(\.uri) == ["captions/dvr-media.m3u8"])
    }

    @Test func aCaptionsLanguageIsATagAndItsNameAQuotableString() {
        #expect(Rendition.Captions(language: "en", name: "English").problem == nil)
        #expect(Rendition.Captions(language: "zh-Hant-TW", name: "Chinese (Taiwan)").problem == nil)
        for language in ["e", "english", "en_US", "en-", "ç", ""] {
            #expect(
                Rendition.Captions(language: language, name: "x").problem
                    == "the captions' language \(language) is not a language tag: two or three letters, then "
                    + "optional parts after '-' (en, de, pt-BR)")
        }
        for name in ["", "say \"hi\"", "a\nb", String(repeating: "x", count: 65)] {
            #expect(
                Rendition.Captions(language: "en", name: name).problem
                    == "the captions' name is 1 to 64 characters, without double quotes or control characters")
        }
    }

    @Test func onlyUTF8TextThatStartsWithItsSignatureIsTakenAsWebVTT() {
        #expect(WebVTTFile.looksLikeOne(Array("WEBVTT\n\n".utf8)))
        #expect(WebVTTFile.looksLikeOne(Array("\u{FEFF}WEBVTT - a title\n".utf8)))
        #expect(WebVTTFile.looksLikeOne(Array("WEBVTT".utf8)))
        #expect(!WebVTTFile.looksLikeOne(Array("WEBVTTX\n".utf8)))
        #expect(!WebVTTFile.looksLikeOne(Array("<html>".utf8)))
        #expect(!WebVTTFile.looksLikeOne([0x57, 0x45, 0x42, 0x56, 0x54, 0x54, 0x0A, 0xFF, 0xFE]))
    }
}
