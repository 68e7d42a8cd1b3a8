import Testing

@testable import HLSModel

@Suite struct MediaPlaylistTests {
    static let start: Int64 = 1_795_000_000_000  // 2026-11-18T11:06:40.000Z

    static func segments(_ range: Range<Int>, duration: Double = 2) -> [MediaPlaylist.Segment] {
        range.map {
            MediaPlaylist.Segment(uri: "seg\($0).m4s", duration: duration, programDateTime: start + Int64($0) * 2000)
        }
    }

    @Test func rendersLiveFMP4PlaylistExactly() {
        let playlist = MediaPlaylist(
            version: 6, targetDuration: 2, mediaSequence: 3, initSegmentURI: "init.mp4", segments: Self.segments(3..<5))
        #expect(
            playlist.render() == """
                #EXTM3U
                #EXT-X-VERSION:6
                #EXT-X-TARGETDURATION:2
                #EXT-X-MEDIA-SEQUENCE:3
                #EXT-X-DISCONTINUITY-SEQUENCE:0
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-MAP:URI="init.mp4"
                #EXT-X-PROGRAM-DATE-TIME:2026-11-18T11:06:46.000Z
                #EXTINF:2.000,
                seg3.m4s
                #EXT-X-PROGRAM-DATE-TIME:2026-11-18T11:06:48.000Z
                #EXTINF:2.000,
                seg4.m4s

                """)
    }

    @Test func endedTSPlaylistHasNoMapAndEndsWithEndlist() {
        var playlist = MediaPlaylist(
            version: 3, targetDuration: 4,
            segments: [
                .init(uri: "seg0.ts", duration: 4, programDateTime: Self.start),
                .init(uri: "seg1.ts", duration: 1.5, programDateTime: Self.start + 4000),
            ])
        playlist.ended = true
        #expect(
            playlist.render() == """
                #EXTM3U
                #EXT-X-VERSION:3
                #EXT-X-TARGETDURATION:4
                #EXT-X-MEDIA-SEQUENCE:0
                #EXT-X-DISCONTINUITY-SEQUENCE:0
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-PROGRAM-DATE-TIME:2026-11-18T11:06:40.000Z
                #EXTINF:4.000,
                seg0.ts
                #EXT-X-PROGRAM-DATE-TIME:2026-11-18T11:06:44.000Z
                #EXTINF:1.500,
                seg1.ts
                #EXT-X-ENDLIST

                """)
    }

    @Test func discontinuityTagPrecedesItsSegment() {
        var segments = Self.segments(0..<2)
        segments[1].discontinuity = true
        let text = MediaPlaylist(version: 6, targetDuration: 2, discontinuitySequence: 1, segments: segments).render()
        #expect(text.contains("#EXT-X-DISCONTINUITY-SEQUENCE:1\n"))
        #expect(text.contains("seg0.m4s\n#EXT-X-DISCONTINUITY\n#EXT-X-PROGRAM-DATE-TIME:2026-11-18T11:06:42.000Z\n"))
    }

    @Test func extinfHasThreeDecimals() {
        #expect(MediaPlaylist.decimal(2) == "2.000")
        #expect(MediaPlaylist.decimal(1.0333333) == "1.033")
        #expect(MediaPlaylist.decimal(0.0666) == "0.067")
        #expect(MediaPlaylist.decimal(29.97) == "29.970")
    }

    @Test func multivariantListsTheRenditionWithCodecsAndBandwidth() {
        let playlist = MultivariantPlaylist(
            version: 6,
            variants: [
                .init(
                    uri: "media.m3u8", bandwidth: 2_900_000, averageBandwidth: 2_600_000,
                    codecs: ["avc1.64001f", "mp4a.40.2"], width: 1280, height: 720, frameRate: 30)
            ])
        #expect(
            playlist.render() == """
                #EXTM3U
                #EXT-X-VERSION:6
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-STREAM-INF:BANDWIDTH=2900000,AVERAGE-BANDWIDTH=2600000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=30.000
                media.m3u8

                """)
    }

    @Test func aMultivariantPlaylistIsReadBackVariantByVariant() {
        let ladder = MultivariantPlaylist(
            version: 6,
            variants: [
                .init(
                    uri: "720p/media.m3u8", bandwidth: 2_900_000, averageBandwidth: 2_600_000,
                    codecs: ["avc1.64001f", "mp4a.40.2"], width: 1280, height: 720, frameRate: 30),
                .init(
                    uri: "360p/media.m3u8", bandwidth: 1_000_000, averageBandwidth: 900_000,
                    codecs: ["avc1.64001e", "mp4a.40.2"], width: 640, height: 360, frameRate: 29.97),
            ])
        #expect(MultivariantPlaylist.parse(ladder.render()) == ladder)
        // CRLF, comments between the tag and its URI, and what it does not know are all let be.
        #expect(
            MultivariantPlaylist.parse(
                "#EXTM3U\r\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"x\"\r\n#EXT-X-STREAM-INF:BANDWIDTH=500\r\n# note\r\nlow.m3u8\r\n"
            )
                == MultivariantPlaylist(
                    version: 1,
                    variants: [
                        .init(
                            uri: "low.m3u8", bandwidth: 500, averageBandwidth: 500, codecs: [], width: 0, height: 0,
                            frameRate: 0)
                    ]))
        #expect(MultivariantPlaylist.parse("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=0\nx.m3u8\n") == nil)
        #expect(MultivariantPlaylist.parse("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=5\n") == nil)
        #expect(MultivariantPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:2\n") == nil)
        #expect(MultivariantPlaylist.parse("#EXT-X-STREAM-INF:BANDWIDTH=5\nx.m3u8\n") == nil)
    }

    @Test(arguments: [
        (Int64(0), "1970-01-01T00:00:00.000Z"),
        (Int64(951_782_400_123), "2000-02-29T00:00:00.123Z"),
        (Int64(1_795_000_000_000), "2026-11-18T11:06:40.000Z"),
        (Int64(4_102_444_799_999), "2099-12-31T23:59:59.999Z"),
        (Int64(-1), "1969-12-31T23:59:59.999Z"),
    ])
    func programDateTimeIsISO8601WithMillisecondsAndZ(milliseconds: Int64, expected: String) {
        #expect(ProgramDateTime.format(milliseconds: milliseconds) == expected)
    }
}
