import HLSModel
import Testing

/// What a publisher's multivariant playlist says its channel is, read before the origin changes anything.
@Suite struct ChannelShapeTests {
    static let ladder = """
        #EXTM3U
        #EXT-X-VERSION:7
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="Sound",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio/media.m3u8"
        #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs",NAME="English",LANGUAGE="en",DEFAULT=NO,AUTOSELECT=YES,URI="captions/media.m3u8"
        #EXT-X-STREAM-INF:BANDWIDTH=2800000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=30.000,AUDIO="aac",SUBTITLES="subs"
        720p/media.m3u8
        #EXT-X-STREAM-INF:BANDWIDTH=900000,CODECS="avc1.64001e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=30.000,AUDIO="aac",SUBTITLES="subs"
        360p/media.m3u8

        """

    static func read(_ text: String) throws(IngestAssembler.Refusal) -> ChannelShape {
        try ChannelShape.read(Array(text.utf8))
    }

    @Test func oneRenditionAtTheTopIsTheChannelsOwn() throws {
        let shape = try Self.read(
            "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2800000,CODECS=\"avc1.64001f,mp4a.40.2\",RESOLUTION=1280x720\n"
                + "media.m3u8\n")
        guard case .single(let variant) = shape else {
            Issue.record("read as \(shape)")
            return
        }
        #expect(variant.uri == "media.m3u8" && variant.codecs == ["avc1.64001f", "mp4a.40.2"])
        #expect(variant.width == 1280 && variant.height == 720 && variant.bandwidth == 2_800_000)
        #expect(shape.folders == [nil])
    }

    @Test func aLadderIsItsVideoRenditionsLargestFirstThenTheSoundThenTheCaptions() throws {
        let shape = try Self.read(Self.ladder)
        #expect(shape.folders == ["720p", "360p", "audio", "captions"])
        guard case .ladder(let members) = shape else {
            Issue.record("read as \(shape)")
            return
        }
        // The video renditions without the sound's codec: the origin's own playlist adds it back.
        #expect(members[0].variant.codecs == ["avc1.64001f"] && members[1].variant.codecs == ["avc1.64001e"])
        #expect(members[0].variant.width == 1280 && members[0].audioChannels == nil && members[0].captions == nil)
        #expect(members[2].variant.codecs == ["mp4a.40.2"] && members[2].audioChannels == 2)
        #expect(members[2].variant.width == 0 && members[2].variant.bandwidth == 1)
        #expect(
            members[3].variant.codecs == []
                && members[3].captions == Rendition.Captions(language: "en", name: "English"))
    }

    @Test func whatAnOriginCannotHostIsRefusedWithTheReason() {
        #expect(
            throws: IngestAssembler.Refusal.badRequest(
                "index.m3u8 is not a multivariant playlist with an EXT-X-STREAM-INF")
        ) {
            try Self.read("#EXTM3U\n#EXTINF:2.0,\nseg0.m4s\n")
        }
        #expect(
            throws: IngestAssembler.Refusal.badRequest(
                "index.m3u8 lists a/b/media.m3u8: a rendition is media.m3u8 or <rendition>/media.m3u8, one folder deep")
        ) {
            try Self.read("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"avc1.64001f\"\na/b/media.m3u8\n")
        }
        #expect(throws: IngestAssembler.Refusal.badRequest("index.m3u8 lists a rendition twice")) {
            try Self.read(
                "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2,CODECS=\"avc1.64001f\"\na/media.m3u8\n"
                    + "#EXT-X-STREAM-INF:BANDWIDTH=1,CODECS=\"avc1.64001f\"\na/media.m3u8\n")
        }
        let nine = (0..<9).map { "#EXT-X-STREAM-INF:BANDWIDTH=\(9 - $0),CODECS=\"avc1.64001f\"\nr\($0)/media.m3u8\n" }
        #expect(throws: IngestAssembler.Refusal.full("index.m3u8 lists 9 renditions; an origin takes 8")) {
            try Self.read("#EXTM3U\n" + nine.joined())
        }
    }
}

/// A hosted channel's life, and what the origin's sweep does in each phase.
@Suite struct ChannelPhaseTests {
    @Test func thePhaseComesFromTheRenditionsTimelines() {
        #expect(ChannelPhase(timelines: []) == .waiting)
        #expect(ChannelPhase(timelines: [nil, nil]) == .waiting)
        #expect(ChannelPhase(timelines: [nil, false]) == .live)
        #expect(ChannelPhase(timelines: [true, false]) == .live)
        #expect(ChannelPhase(timelines: [true, nil]) == .ended)
        #expect([ChannelPhase.waiting, .live, .ended, .removed].map(\.mayMakeRoom) == [true, false, true, false])
    }

    @Test func theSweepEndsASilentPublishersRunAndRemovesWhatEndedLongAgo() {
        func sweep(_ phase: ChannelPhase, _ silence: Double, holdsFiles: Bool = false) -> ChannelPhase.Sweep {
            phase.sweep(silence: silence, holdsFiles: holdsFiles, publisherTimeout: 10, retention: 600)
        }
        #expect(sweep(.waiting, 9.9) == .keep)
        #expect(sweep(.waiting, 10) == .letGo)
        #expect(sweep(.live, 9.9) == .keep)
        #expect(sweep(.live, 10) == .end)
        // Ended: files pushed since that no playlist lists go after the timeout; the channel after its retention.
        #expect(sweep(.ended, 10) == .keep)
        #expect(sweep(.ended, 10, holdsFiles: true) == .end)
        #expect(sweep(.ended, 600) == .remove)
        #expect(sweep(.ended, 600, holdsFiles: true) == .end)
        #expect(sweep(.removed, 1e9) == .keep)
    }
}
