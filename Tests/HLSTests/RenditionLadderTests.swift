import Testing
import Runtime

@testable import HLS
@testable import HLSModel

@Suite struct RenditionLadderTests {
    func plan(_ text: String, _ width: Int = 1920, _ height: Int = 1080, cores: Int = 2) throws -> RenditionLadder {
        try RenditionLadder.plan(LadderRequest.parse(text), sourceWidth: width, sourceHeight: height, cores: cores)
    }

    func rungs(_ ladder: RenditionLadder) -> [String] {
        ladder.rungs.map { "\($0.id) \($0.width)x\($0.height) \($0.videoBitrate / 1000)k" }
    }

    @Test func qualityNamesTakeTheSourcesShapeAndRatesForScreenContent() throws {
        #expect(
            rungs(try plan("1080p,720p,360p")) == [
                "1080p 1920x1080 4600k", "720p 1280x720 2500k", "360p 640x360 900k",
            ])
        // A 16:10 laptop screen: the long side follows.
        #expect(rungs(try plan("720p,360p", 2560, 1600)) == ["720p 1152x720 2300k", "360p 576x360 800k"])
    }

    @Test func sizesAndRatesAreTakenAsGivenAndOrderedLargestFirst() throws {
        #expect(
            rungs(try plan("640x360@600k,1280x720@2.5M")) == [
                "1280x720 1280x720 2500k", "640x360 640x360 600k",
            ])
        #expect(rungs(try plan("360p@400k,720p")) == ["720p 1280x720 2500k", "360p 640x360 400k"])
    }

    @Test func rungsAboveTheSourceAreSkippedWithTheReason() throws {
        let ladder = try plan("1080p,720p,360p", 1280, 720)
        #expect(rungs(ladder) == ["720p 1280x720 2500k", "360p 640x360 900k"])
        #expect(ladder.skipped == ["1080p is above the source's 1280x720"])
        #expect(try plan("1920x1080,1280x720", 1280, 720).skipped == ["1920x1080 is above the source's 1280x720"])
    }

    @Test func autoTakesOneRungPerCoreKeepingTheTopAndTheBottom() throws {
        #expect(
            rungs(try plan("auto", cores: 4)) == ["1080p 1920x1080 4600k", "720p 1280x720 2500k", "360p 640x360 900k"])
        #expect(rungs(try plan("auto", cores: 2)) == ["1080p 1920x1080 4600k", "360p 640x360 900k"])
        #expect(rungs(try plan("auto", cores: 1)) == ["1080p 1920x1080 4600k"])
        // A 4K screen tops out at 1080p; a small one at its own size.
        #expect(rungs(try plan("auto", 3840, 2160, cores: 8)).first == "1080p 1920x1080 4600k")
        #expect(rungs(try plan("auto", 1280, 720, cores: 8)) == ["720p 1280x720 2500k", "360p 640x360 900k"])
        #expect(rungs(try plan("auto", 800, 600, cores: 8)) == ["600p 800x600 1500k", "360p 480x360 700k"])
        #expect(rungs(try plan("auto", 640, 360, cores: 8)) == ["360p 640x360 900k"])
    }

    @Test(arguments: [
        ("", "'' is not a rung"),
        ("720p,", "'' is not a rung"),
        ("abc", "'abc' is not a rung"),
        ("720", "'720' is not a rung"),
        ("0720p", "'0720p' is not a rung"),
        ("4000p", "'4000p' is out of range: 144p to 2160p, even"),
        ("721p", "'721p' is out of range"),
        ("1279x720", "'1279x720' is out of range: 16x16 to 3840x2160, both even"),
        ("720p@5", "'720p@5' has a bad rate"),
        ("720p@60M", "'720p@60M' has a bad rate"),
        ("720p@", "'720p@' has a bad rate"),
        ("1p,2p,3p,4p,5p,6p,7p", "1 to 6 rungs"),
        ("720p:vp9", "'720p:vp9' names codec 'vp9': give one of h264, av1"),
        ("720p:", "'720p:' names codec ''"),
        (":av1", "':av1' is not a rung"),
    ])
    func badListsAreRefusedWithWhatIsWrong(text: String, message: String) {
        #expect {
            try LadderRequest.parse(text)
        } throws: { error in
            (error as? SettingError)?.description.contains(message) == true
        }
    }

    @Test func aLadderMustBeOfOneShapeAndNameEachRungOnce() throws {
        #expect(throws: SettingError.self) { try plan("720p,720p") }
        #expect(throws: SettingError.self) { try plan("720p,1280x720") }
        #expect {
            try plan("1280x720,640x480")
        } throws: { error in
            (error as? SettingError)?.description.contains("640x480 does not have the shape of 1280x720") == true
        }
        #expect {
            try plan("1440p,2160p")
        } throws: { error in
            (error as? SettingError)?.description.contains("every rung is above the source's 1920x1080") == true
        }
        // Within 2 %: 854x480 beside 1280x720.
        #expect(rungs(try plan("1280x720,854x480")) == ["1280x720 1280x720 2500k", "854x480 854x480 1400k"])
    }

    /// A rung may name its codec; one size may come in two codecs, each with a folder of its own
    /// (an AV1 rung's name says so), in the order given, at the codec's share of H.264's rate.
    @Test func aRungNamesItsCodecAndOneSizeMayComeInTwo() throws {
        let ladder = try plan("360p,1080p:av1,1080p")
        #expect(rungs(ladder) == ["1080p-av1 1920x1080 2300k", "1080p 1920x1080 4600k", "360p 640x360 900k"])
        #expect(ladder.rungs.map(\.codec) == [.av1, .h264, .h264])
        #expect(rungs(try plan("720p@1M:AV1")) == ["720p-av1 1280x720 1000k"])
        #expect(throws: SettingError.self) { try plan("720p:av1,1280x720:av1") }
        // The broadcast's codec for the rungs that name none, auto's included.
        let av1 = try RenditionLadder.plan(
            LadderRequest.parse("720p,360p:h264"), sourceWidth: 1920, sourceHeight: 1080, cores: 2, codec: .av1)
        #expect(rungs(av1) == ["720p-av1 1280x720 1300k", "360p 640x360 900k"])
        let auto = RenditionLadder.auto(sourceWidth: 1920, sourceHeight: 1080, cores: 2, codec: .av1)
        #expect(rungs(auto) == ["1080p-av1 1920x1080 2300k", "360p-av1 640x360 400k"])
        #expect(try plan("1080p:av1,720p", 1280, 720).skipped == ["1080p-av1 is above the source's 1280x720"])
    }
}

@Suite struct LadderViewTests {
    func timeline(_ id: String, width: Int, height: Int) -> Timeline {
        Timeline(
            configuration: .init(
                channel: "demo",
                rendition: Rendition(
                    id: id, width: width, height: height, fps: 30, videoBitrate: 1_000_000, audioBitrate: 128_000,
                    codecs: ["avc1.64001f", "mp4a.40.2"]),
                format: .fmp4, segmentDuration: 2, playlistSize: 6, partDuration: 0.5))
    }

    @Test func theBoardGivesEachRenditionTheOthersEdgesInLadderOrder() {
        let board = LadderBoard(renditions: ["720p", "360p"])
        var low = timeline("360p", width: 640, height: 360)
        var top = timeline("720p", width: 1280, height: 720)
        _ = low.appendPart([1, 2, 3], duration: 0.5, independent: true)
        _ = low.appendPart([4, 5], duration: 0.5, independent: false)
        var view = board.post(low)
        #expect(view.entries.map(\.id) == ["360p"] && !view.isComplete, "not heard from 720p yet")
        _ = top.appendPart([1], duration: 0.5, independent: true)
        view = board.post(top)
        #expect(view.entries.map(\.id) == ["720p", "360p"])
        #expect(view.entries.map(\.lastMSN) == [0, 0] && view.entries.map(\.lastPart) == [0, 1])
        #expect(view.isComplete)
        #expect(
            view.renditionReports(excluding: "720p") == [
                MediaPlaylist.RenditionReport(uri: "../360p/media.m3u8", lastMSN: 0, lastPart: 1)
            ])
        let text = view.multivariantPlaylist.render()
        #expect(
            text == """
                #EXTM3U
                #EXT-X-VERSION:6
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-STREAM-INF:BANDWIDTH=1240801,AVERAGE-BANDWIDTH=1240800,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=30.000
                720p/media.m3u8
                #EXT-X-STREAM-INF:BANDWIDTH=1240800,AVERAGE-BANDWIDTH=1240800,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=30.000
                360p/media.m3u8

                """)
    }

    /// Measured rates can invert (the test pattern's 720p rung measured 412k, its 360p rung 615k):
    /// each BANDWIDTH is raised just above the one below it, never lowered.
    @Test func declaredBandwidthsKeepTheRungsInOrderOfQuality() {
        func variant(_ uri: String, _ bandwidth: Int) -> MultivariantPlaylist.Variant {
            .init(
                uri: uri, bandwidth: bandwidth, averageBandwidth: bandwidth / 2, codecs: [], width: 0, height: 0,
                frameRate: 0)
        }
        let ordered = LadderView.ordered([
            variant("1080p", 500_000), variant("720p", 412_000), variant("360p", 615_000), variant("180p", 100_000),
        ])
        #expect(ordered.map(\.bandwidth) == [615_002, 615_001, 615_000, 100_000])
        #expect(ordered.map(\.averageBandwidth) == [250_000, 206_000, 307_500, 50_000])
        let inOrder = LadderView.ordered([variant("720p", 3_000_000), variant("360p", 900_000)])
        #expect(inOrder.map(\.bandwidth) == [3_000_000, 900_000])
    }

    @Test func theSoundInARenditionOfItsOwnIsOneAudioGroupEveryVariantNames() {
        let board = LadderBoard(renditions: ["720p", "360p", "audio"])
        var top = Timeline(
            configuration: .init(
                channel: "demo",
                rendition: Rendition(
                    id: "720p", width: 1280, height: 720, fps: 30, videoBitrate: 1_000_000, audioBitrate: 0,
                    codecs: ["avc1.64001f"]),
                format: .fmp4, segmentDuration: 2, playlistSize: 6, partDuration: 0.5))
        var low = Timeline(
            configuration: .init(
                channel: "demo",
                rendition: Rendition(
                    id: "360p", width: 640, height: 360, fps: 30, videoBitrate: 500_000, audioBitrate: 0,
                    codecs: ["avc1.64001e"]),
                format: .fmp4, segmentDuration: 2, playlistSize: 6, partDuration: 0.5))
        var sound = Timeline(
            configuration: .init(
                channel: "demo", rendition: .audio(bitrate: 100_000, codecs: ["mp4a.40.2"], channels: 2),
                format: .fmp4, segmentDuration: 2, playlistSize: 6, partDuration: 0.5))
        _ = top.appendPart([1], duration: 0.5, independent: true)
        _ = low.appendPart([1], duration: 0.5, independent: true)
        _ = board.post(top)
        #expect(!board.post(low).isComplete, "not heard from the sound yet")
        _ = sound.appendPart([1], duration: 0.48, independent: true)
        _ = sound.appendPart([2], duration: 0.48, independent: true)
        let view = board.post(sound)
        #expect(view.isComplete)
        #expect(
            view.renditionReports(excluding: "360p") == [
                MediaPlaylist.RenditionReport(uri: "../720p/media.m3u8", lastMSN: 0, lastPart: 0),
                MediaPlaylist.RenditionReport(uri: "../audio/media.m3u8", lastMSN: 0, lastPart: 1),
            ])
        // Each variant counts the sound's estimated rate (110 000) and codec as its own.
        #expect(
            view.multivariantPlaylist.render() == """
                #EXTM3U
                #EXT-X-VERSION:6
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio",NAME="Sound",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="audio/media.m3u8"
                #EXT-X-STREAM-INF:BANDWIDTH=1210000,AVERAGE-BANDWIDTH=1210000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=30.000,AUDIO="audio"
                720p/media.m3u8
                #EXT-X-STREAM-INF:BANDWIDTH=660000,AVERAGE-BANDWIDTH=660000,CODECS="avc1.64001e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=30.000,AUDIO="audio"
                360p/media.m3u8

                """)
        // And an origin reads it back as it was written.
        #expect(MultivariantPlaylist.parse(view.multivariantPlaylist.render()) == view.multivariantPlaylist)
    }

    @Test func renditionReportsFollowThePreloadHintUntilTheEnd() {
        var playlist = MediaPlaylist(
            version: 6, targetDuration: 2, initSegmentURI: "init.mp4",
            lowLatency: .init(
                partTarget: 0.5, preloadHint: "part0.0.m4s",
                renditionReports: [
                    .init(uri: "../360p/media.m3u8", lastMSN: 4, lastPart: 2),
                    .init(uri: "../180p/media.m3u8", lastMSN: 4, lastPart: nil),
                ]))
        let lines = playlist.render().split(separator: "\n")
        #expect(
            Array(lines.suffix(3)) == [
                "#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"part0.0.m4s\"",
                "#EXT-X-RENDITION-REPORT:URI=\"../360p/media.m3u8\",LAST-MSN=4,LAST-PART=2",
                "#EXT-X-RENDITION-REPORT:URI=\"../180p/media.m3u8\",LAST-MSN=4",
            ])
        playlist.ended = true
        #expect(!playlist.render().contains("RENDITION-REPORT"))
    }

    @Test func theLadderServesItsIndexAndEachRenditionsFolderOnly() async throws {
        let top = LiveStore(timeline: timeline("720p", width: 1280, height: 720), startedAt: 0)
        let low = LiveStore(timeline: timeline("360p", width: 640, height: 360), startedAt: 0)
        let ladder = LiveLadder(stores: [top, low])
        func get(_ rendition: String?, _ file: String, _ query: String? = nil) async throws -> String? {
            let request = try LiveRequest.parse(channel: "demo", rendition: rendition, file: file, query: query)
            return try await ladder.file(for: request).map { String(decoding: $0.bytes, as: UTF8.self) }
        }
        // A session's index is the server's to render (its PlaylistView) from the ladder's own,
        // with the session in each variant's URI.
        let asked = try LiveRequest.parse(channel: "demo", rendition: nil, file: "index.m3u8", query: "session=abc")
        let file = try #require(try await ladder.file(for: asked))
        let index = String(decoding: file.bytes, as: UTF8.self)
        #expect(file.perSession && index.contains("720p/media.m3u8\n") && index.contains("360p/media.m3u8\n"))
        let carried = ladder.multivariantPlaylist(session: "abc").render()
        #expect(carried.contains("720p/media.m3u8?session=abc\n") && carried.contains("360p/media.m3u8?session=abc\n"))
        #expect(try await get(nil, "media.m3u8") == nil)
        #expect(try await get("720p", "index.m3u8") == nil)
        #expect(try await get("1080p", "media.m3u8") == nil)
        #expect(try await get("360p", "media.m3u8")?.hasPrefix("#EXTM3U") == true)
        #expect(try await get("360p", "init.mp4") == nil, "nothing published yet")
        // A store on its own serves no folders.
        let request = try LiveRequest.parse(channel: "demo", rendition: "360p", file: "media.m3u8", query: nil)
        #expect(try await low.file(for: request) == nil)
        #expect(ladder.summary().renditions.map(\.id) == ["720p", "360p"])
    }
}
