import Testing

@testable import HLSModel

@Suite struct PlaylistQueryTests {
    @Test func everyURIOfAMediaPlaylistGetsTheQuery() {
        let playlist = """
            #EXTM3U\r
            #EXT-X-MAP:URI="init.mp4"
            #EXT-X-DATERANGE:ID="a",CLASS="x",X-NOTE=",URI=no"
            #EXTINF:2.000,
            seg0.m4s
            #EXT-X-PART:DURATION=0.200,URI="part1.0.m4s",INDEPENDENT=YES
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="part1.1.m4s"
            #EXT-X-RENDITION-REPORT:URI="../low/media.m3u8",LAST-MSN=1,LAST-PART=0

            """
        let expected = """
            #EXTM3U\r
            #EXT-X-MAP:URI="init.mp4?token=1.a"
            #EXT-X-DATERANGE:ID="a",CLASS="x",X-NOTE=",URI=no"
            #EXTINF:2.000,
            seg0.m4s?token=1.a
            #EXT-X-PART:DURATION=0.200,URI="part1.0.m4s?token=1.a",INDEPENDENT=YES
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="part1.1.m4s?token=1.a"
            #EXT-X-RENDITION-REPORT:URI="../low/media.m3u8?token=1.a",LAST-MSN=1,LAST-PART=0

            """
        let result = PlaylistQuery.appending("token=1.a", to: Array(playlist.utf8))
        #expect(String(decoding: result, as: UTF8.self) == expected)
    }

    @Test func aURIWithAQueryGetsItAfterAnAmpersand() {
        let playlist =
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nmedia.m3u8?session=ab\n#EXT-X-MEDIA:TYPE=AUDIO,URI=\"a.m3u8?x=1\""
        let expected =
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\nmedia.m3u8?session=ab&token=1.a\n#EXT-X-MEDIA:TYPE=AUDIO,URI=\"a.m3u8?x=1&token=1.a\""
        #expect(
            String(decoding: PlaylistQuery.appending("token=1.a", to: Array(playlist.utf8)), as: UTF8.self) == expected)
    }
}
