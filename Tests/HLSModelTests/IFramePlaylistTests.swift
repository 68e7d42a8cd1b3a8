import Testing

@testable import HLSModel

/// I-frame playlists: the keyframe found in a segment's boxes, the playlist of them, and the
/// multivariant playlist's `EXT-X-I-FRAME-STREAM-INF`.
@Suite struct IFramePlaylistTests {
    static let start: Int64 = 1_795_000_000_000  // 2026-11-18T11:06:40.000Z

    // MARK: Boxes, built as ISO/IEC 14496-12 lays them out

    static func box(_ type: String, _ content: [UInt8]) -> [UInt8] {
        be32(UInt32(8 + content.count)) + Array(type.utf8) + content
    }

    static func be32(_ value: UInt32) -> [UInt8] {
        (0..<4).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    static func fullBox(_ type: String, flags: UInt32, version: UInt8 = 0, _ content: [UInt8]) -> [UInt8] {
        box(type, [version] + Array(be32(flags).dropFirst()) + content)
    }

    /// A trak of `track` whose handler is `handler` (`vide`, `soun`), with a tkhd of `version`.
    static func trak(_ track: UInt32, _ handler: String, tkhdVersion: UInt8 = 0) -> [UInt8] {
        let times = [UInt8](repeating: 0, count: tkhdVersion == 1 ? 16 : 8)
        let tkhd = fullBox(
            "tkhd", flags: 3, version: tkhdVersion, times + be32(track) + [UInt8](repeating: 0, count: 60))
        let hdlr = fullBox("hdlr", flags: 0, be32(0) + Array(handler.utf8) + [UInt8](repeating: 0, count: 13))
        return box("trak", tkhd + box("mdia", box("mdhd", [UInt8](repeating: 0, count: 24)) + hdlr))
    }

    /// A movie fragment with one traf per `(track, sizes)`, the samples' data in that order in
    /// one mdat; the first sample of each run flagged sync or not.
    static func fragment(_ runs: [(track: UInt32, sizes: [UInt32])], firstIsSync: Bool = true) -> [UInt8] {
        func traf(_ track: UInt32, _ sizes: [UInt32], dataOffset: UInt32) -> [UInt8] {
            let tfhd = fullBox("tfhd", flags: 0x02_0000, be32(track))
            let firstFlags: UInt32 = firstIsSync ? 0x0200_0000 : 0x0101_0000
            let trun = fullBox(
                "trun", flags: 0x001 | 0x004 | 0x200,
                be32(UInt32(sizes.count)) + be32(dataOffset) + be32(firstFlags) + sizes.flatMap(be32))
            return box("traf", tfhd + fullBox("tfdt", flags: 0, be32(0)) + trun)
        }
        // Two passes: the trafs' sizes do not depend on the offsets they carry.
        let mfhd = fullBox("mfhd", flags: 0, be32(1))
        let moofSize = 8 + mfhd.count + runs.reduce(0) { $0 + traf($1.track, $1.sizes, dataOffset: 0).count }
        var offset = UInt32(moofSize + 8)
        var trafs: [UInt8] = []
        for run in runs {
            trafs += traf(run.track, run.sizes, dataOffset: offset)
            offset += run.sizes.reduce(0, +)
        }
        let data = runs.flatMap { run in run.sizes.flatMap { [UInt8](repeating: UInt8(run.track), count: Int($0)) } }
        return box("moof", mfhd + trafs) + box("mdat", data)
    }

    static let initSegment =
        box("ftyp", Array("iso6".utf8) + be32(0))
        + box("moov", box("mvhd", [UInt8](repeating: 0, count: 100)) + trak(1, "vide") + trak(2, "soun"))

    @Test func theVideoTrackIsTheOneWhoseHandlerSaysVide() {
        #expect(IFrameRange.videoTrack(inInitSegment: Self.initSegment) == 1)
        let soundFirst = Self.box("moov", Self.trak(1, "soun") + Self.trak(7, "vide", tkhdVersion: 1))
        #expect(IFrameRange.videoTrack(inInitSegment: soundFirst) == 7)
        #expect(IFrameRange.videoTrack(inInitSegment: Self.box("moov", Self.trak(2, "soun"))) == nil)
        #expect(IFrameRange.videoTrack(inInitSegment: []) == nil)
    }

    @Test func aKeyframeAloneInItsFragmentIsTheWholeMoofAndMdat() {
        // As onair writes a segment: the keyframe's own fragment, then the rest.
        let first = Self.fragment([(1, [5000])])
        let segment = first + Self.fragment([(1, [300, 200]), (2, [100, 100])])
        #expect(first.count == 8 + 16 + 8 + 16 + 16 + 28 + 8 + 5000)
        #expect(IFrameRange.locate(in: segment, track: 1) == IFrameRange(offset: 0, length: first.count))
        #expect(IFrameRange.locate(in: segment, track: 1)?.byteRange == "\(first.count)@0")
    }

    @Test func aKeyframeAmongOtherSamplesEndsWithItsOwnData() {
        // Another packager's segment: sound before the picture in the mdat, more frames after it.
        let styp = Self.box("styp", Array("msdh".utf8) + Self.be32(0))
        let fragment = Self.fragment([(2, [100, 120]), (1, [4000, 300])])
        let segment = styp + fragment
        let moofSize = fragment.count - 8 - (100 + 120 + 4000 + 300)
        // From the moof to the end of the picture's 4,000 bytes, which follow the sound's 220.
        #expect(
            IFrameRange.locate(in: segment, track: 1)
                == IFrameRange(offset: styp.count, length: moofSize + 8 + 220 + 4000))
    }

    @Test func noRangeForANonSyncSampleAMissingTrackOrBoxesThatDoNotAddUp() {
        let notSync = Self.fragment([(1, [5000])], firstIsSync: false)
        #expect(IFrameRange.locate(in: notSync, track: 1) == nil)
        let fragment = Self.fragment([(1, [5000])])
        #expect(IFrameRange.locate(in: fragment, track: 3) == nil)
        // Cut short: the sample's data is not all there.
        #expect(IFrameRange.locate(in: Array(fragment.dropLast(1)), track: 1) == nil)
        // A moof claiming more bytes than the segment has.
        var overrun = fragment
        overrun[3] = 0xFF
        #expect(IFrameRange.locate(in: overrun, track: 1) == nil)
        #expect(IFrameRange.locate(in: [], track: 1) == nil)
        // A base offset near the largest integer, or a sample size of 4 GiB: nothing, and no trap.
        let mfhd = Self.fullBox("mfhd", flags: 0, Self.be32(1))
        let nearMax: [UInt8] = [0x7F, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFE]
        let farBase = Self.fullBox("tfhd", flags: 0x01, Self.be32(1) + nearMax)
        let trun = Self.fullBox(
            "trun", flags: 0x001 | 0x200, Self.be32(1) + Self.be32(0x7FFF_FFFF) + Self.be32(0xFFFF_FFFF))
        let hostile = Self.box("moof", mfhd + Self.box("traf", farBase + trun)) + Self.box("mdat", [1, 2, 3])
        #expect(IFrameRange.locate(in: hostile, track: 1) == nil)
        // An empty tkhd: no video track, and no read past it.
        #expect(IFrameRange.videoTrack(inInitSegment: Self.box("moov", Self.box("trak", Self.box("tkhd", [])))) == nil)
        #expect(IFrameRange.locate(in: [0, 0, 0, 1, 0x6D, 0x6F, 0x6F, 0x66], track: 1) == nil)
    }

    // MARK: Playlists

    static func segment(_ number: Int, iFrame: IFrameRange?, gap: Bool = false) -> MediaPlaylist.Segment {
        MediaPlaylist.Segment(
            uri: "seg\(number).m4s", duration: 2, programDateTime: start + Int64(number) * 2000,
            parts: [.init(uri: "part\(number).0.m4s", duration: 1, independent: true)], gap: gap, iFrame: iFrame)
    }

    @Test func theIFramePlaylistListsEachSegmentsKeyframeByItsByteRange() {
        var playlist = MediaPlaylist(
            version: 6, targetDuration: 2, mediaSequence: 3, initSegmentURI: "init.mp4",
            segments: [
                Self.segment(3, iFrame: IFrameRange(offset: 0, length: 5816)),
                Self.segment(4, iFrame: nil, gap: true),
                Self.segment(5, iFrame: IFrameRange(offset: 40, length: 6001)),
            ],
            lowLatency: MediaPlaylist.LowLatency(partTarget: 1, preloadHint: "part6.0.m4s"))
        playlist.segments[2].discontinuity = true
        #expect(
            playlist.iFramePlaylist().render() == """
                #EXTM3U
                #EXT-X-VERSION:8
                #EXT-X-TARGETDURATION:2
                #EXT-X-I-FRAMES-ONLY
                #EXT-X-MEDIA-SEQUENCE:3
                #EXT-X-DISCONTINUITY-SEQUENCE:0
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-MAP:URI="init.mp4"
                #EXT-X-PROGRAM-DATE-TIME:2026-11-18T11:06:46.000Z
                #EXTINF:2.000,
                #EXT-X-BYTERANGE:5816@0
                seg3.m4s
                #EXT-X-PROGRAM-DATE-TIME:2026-11-18T11:06:48.000Z
                #EXT-X-GAP
                #EXTINF:2.000,
                seg4.m4s
                #EXT-X-DISCONTINUITY
                #EXT-X-PROGRAM-DATE-TIME:2026-11-18T11:06:50.000Z
                #EXTINF:2.000,
                #EXT-X-BYTERANGE:6001@40
                seg5.m4s

                """)
        // The media playlist itself lists no byte range.
        #expect(!playlist.render().contains("BYTERANGE"))
    }

    @Test func anIFramePlaylistIsReadBack() {
        let playlist = MediaPlaylist(
            version: 6, targetDuration: 2, mediaSequence: 3, initSegmentURI: "init.mp4",
            segments: [Self.segment(3, iFrame: IFrameRange(offset: 12, length: 5816))]
        ).iFramePlaylist()
        let read = MediaPlaylist.parse(playlist.render())
        #expect(read?.iFramesOnly == true)
        #expect(read?.segments.map(\.iFrame) == [IFrameRange(offset: 12, length: 5816)])
        #expect(read?.render() == playlist.render())
        #expect(MediaPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-BYTERANGE:0@0\n") == nil)
        #expect(MediaPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-BYTERANGE:12\n") == nil)
    }

    static let ladder = MultivariantPlaylist(
        version: 7,
        variants: [
            .init(
                uri: "720p/media.m3u8", bandwidth: 2_000_000, averageBandwidth: 1_500_000,
                codecs: ["avc1.64001f", "mp4a.40.2"], width: 1280, height: 720, frameRate: 30)
        ],
        iFrameStreams: [
            .init(uri: "720p/iframes.m3u8", bandwidth: 90_000, codecs: ["avc1.64001f"], width: 1280, height: 720)
        ])

    @Test func theMultivariantPlaylistListsEachIFrameStreamAfterTheVariants() {
        #expect(
            Self.ladder.render() == """
                #EXTM3U
                #EXT-X-VERSION:7
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-STREAM-INF:BANDWIDTH=2000000,AVERAGE-BANDWIDTH=1500000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=30.000
                720p/media.m3u8
                #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=90000,CODECS="avc1.64001f",RESOLUTION=1280x720,URI="720p/iframes.m3u8"

                """)
        #expect(MultivariantPlaylist.parse(Self.ladder.render()) == Self.ladder)
    }

    @Test func theRewindWindowPointsAtItsOwnIFramePlaylistAndQueriesReachIt() {
        let rewind = Self.ladder.pointing(to: .dvrMediaPlaylist, iFrames: .dvrIFramePlaylist).adding(query: "from=12")
        #expect(rewind.variants.map(\.uri) == ["720p/dvr-media.m3u8?from=12"])
        #expect(rewind.iFrameStreams.map(\.uri) == ["720p/dvr-iframes.m3u8?from=12"])
        #expect(Self.ladder.pointing(to: .dvrMediaPlaylist).iFrameStreams.isEmpty)
    }

    @Test func everyPathwayOffersItsOwnIFrameStreams() {
        let pathways = [Pathway(id: "a", base: "http://a.example:8080"), Pathway(id: "b", base: "http://b.example")]
        let steered = Self.ladder.steered(over: pathways, channelPath: "/live/demo/", steeringURI: "/steering/demo")
        #expect(
            steered.iFrameStreams.map { "\($0.pathwayID ?? "")=\($0.uri)" } == [
                "a=http://a.example:8080/live/demo/720p/iframes.m3u8", "b=http://b.example/live/demo/720p/iframes.m3u8",
            ])
        #expect(steered.render().contains(",PATHWAY-ID=\"b\",URI=\"http://b.example/live/demo/720p/iframes.m3u8\""))
    }

    @Test func aTimelineFindsEachSegmentsKeyframeAndOffersItsPlaylist() {
        var timeline = Timeline(configuration: TimelineTests.configuration())
        // Before its init segment says there is video, nothing is promised.
        #expect(!timeline.hasIFrames)
        #expect(MultivariantPlaylist(renditions: [timeline]).iFrameStreams.isEmpty)
        _ = timeline.setInitSegment(Self.initSegment)
        let keyframe = Self.fragment([(1, [4000])])
        _ = timeline.appendPart(keyframe + Self.fragment([(1, [300]), (2, [100])]), duration: 2, independent: true)
        _ = timeline.closeSegment(programDateTime: Self.start)
        #expect(timeline.segments.map(\.iFrame) == [IFrameRange(offset: 0, length: keyframe.count)])
        #expect(timeline.iFramePlaylist()?.segments.map(\.iFrame) == [IFrameRange(offset: 0, length: keyframe.count)])
        #expect(
            MultivariantPlaylist(renditions: [timeline]).iFrameStreams == [
                .init(
                    uri: "iframes.m3u8", bandwidth: keyframe.count * 8 / 2, codecs: ["avc1.64001f"], width: 1280,
                    height: 720)
            ])
        // TS has no I-frame playlist.
        var configuration = TimelineTests.configuration()
        configuration.format = .ts
        #expect(Timeline(configuration: configuration).iFramePlaylist() == nil)
    }
}
