import Testing

@testable import HLSModel

/// The pure timeline: what each change publishes, numbering across a restart, and the two windows
/// (listed, then still downloadable), with exact values.
@Suite struct TimelineTests {
    static func configuration(partDuration: Double? = nil, playlistSize: Int = 3) -> Timeline.Configuration {
        .init(
            channel: "demo",
            rendition: Rendition(
                width: 1280, height: 720, fps: 30, videoBitrate: 1_872_000, audioBitrate: 128_000,
                codecs: ["avc1.64001f", "mp4a.40.2"]),
            format: .fmp4, segmentDuration: 2, playlistSize: playlistSize, partDuration: partDuration)
    }

    @Test func namesRoundTripAndOnlyWhatIsWrittenParses() {
        let names: [MediaFileName] = [
            .multivariantPlaylist, .mediaPlaylist, .initSegment(continuing: nil), .initSegment(continuing: 9),
            .segment(0, .fmp4), .segment(12, .ts), .part(12, 3, .fmp4), .part(0, 0, .ts),
        ]
        #expect(
            names.map(\.description) == [
                "index.m3u8", "media.m3u8", "init.mp4", "init9.mp4", "seg0.m4s", "seg12.ts", "part12.3.m4s",
                "part0.0.ts",
            ])
        for name in names { #expect(MediaFileName(name.description) == name) }
        for text in [
            "seg", "seg.m4s", "seg01.m4s", "seg-1.m4s", "seg+1.m4s", "seg1.mp4", "seg1.m4s.tmp", ".seg1.m4s.tmp",
            "segway.txt", "segments-archive", "part1.2.3.m4s", "part-1.3.m4s", "part1.m4s", "init.m3u8",
            "initial-setup.sh", "init01.mp4", "backup.m3u8", "partners.csv", "seg99999999999999999999.m4s",
            "seg１.m4s",
        ] {
            #expect(MediaFileName(text) == nil, "\(text)")
        }
    }

    @Test func eachChangePublishesItsEventsInOrder() {
        var timeline = Timeline(configuration: Self.configuration(partDuration: 1))
        #expect(timeline.setInitSegment([9])?.events == [.initSegment(.initSegment(continuing: nil))])
        #expect(timeline.appendPart([1], duration: 1, independent: true)?.events == [.part(.part(0, 0, .fmp4))])
        #expect(timeline.appendPart([2], duration: 1, independent: false)?.events == [.part(.part(0, 1, .fmp4))])
        let closed = timeline.closeSegment(programDateTime: 1000)
        #expect(closed.events == [.segment(.segment(0, .fmp4))])
        #expect(closed.timeline.bytes(of: .segment(0, .fmp4)) == [1, 2])
        #expect(closed.timeline.bytes(of: .part(0, 1, .fmp4)) == [2])
        #expect(timeline.end().events == [.ended])
        // Without Low-Latency HLS a fragment is published only with its segment.
        var plain = Timeline(configuration: Self.configuration())
        #expect(plain.appendPart([1], duration: 2, independent: true) == nil)
        #expect(plain.closeSegment(programDateTime: 0).timeline.bytes(of: .segment(0, .fmp4)) == [1])
    }

    @Test func aPublicationIsASnapshotThatLaterChangesDoNotTouch() {
        var timeline = Timeline(configuration: Self.configuration())
        _ = timeline.appendPart([1], duration: 2, independent: true)
        let first = timeline.closeSegment(programDateTime: 0)
        for index in 1...8 {
            _ = timeline.appendPart([UInt8(index)], duration: 2, independent: true)
            _ = timeline.closeSegment(programDateTime: Int64(index) * 2000)
        }
        #expect(first.timeline.segments.map(\.sequence) == [0])
        #expect(first.timeline.bytes(of: .segment(0, .fmp4)) == [1])
        #expect(timeline.bytes(of: .segment(0, .fmp4)) == nil)
    }

    @Test func segmentsLeaveTheListThenExpireAfterTheirAvailabilityWindow() {
        var timeline = Timeline(configuration: Self.configuration(partDuration: 1))
        var expired: [[MediaFileName]] = []
        for index in 0..<8 {
            _ = timeline.appendPart([UInt8(index)], duration: 1, independent: true)
            _ = timeline.appendPart([UInt8(index)], duration: 1, independent: false)
            for case .expired(let names) in timeline.closeSegment(programDateTime: Int64(index) * 2000).events {
                expired.append(names)
            }
        }
        // At 16 s: seg0–4 left the list; seg0 (end 2 s) left at 8 s and expired at 8 + 2 + 6 = 16 s.
        #expect(timeline.segments.filter(\.isListed).map(\.sequence) == [5, 6, 7])
        #expect(timeline.segments.map(\.sequence) == [1, 2, 3, 4, 5, 6, 7])
        // Part files go 6 target durations (12 s) after their segment's end: seg0's (end 2 s) now, with
        // seg0 itself; seg1's (end 4 s) not yet.
        #expect(
            expired == [[.part(0, 0, .fmp4), .part(0, 1, .fmp4), .segment(0, .fmp4)]])
        #expect(timeline.bytes(of: .part(1, 0, .fmp4)) == [1])
    }

    @Test func theMultivariantPlaylistListsEachRenditionWithItsMeasuredRates() {
        var timeline = Timeline(configuration: Self.configuration())
        #expect(
            MultivariantPlaylist(renditions: [timeline]).render() == """
                #EXTM3U
                #EXT-X-VERSION:6
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-STREAM-INF:BANDWIDTH=2200000,AVERAGE-BANDWIDTH=2200000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=30.000
                media.m3u8

                """)
        _ = timeline.appendPart([UInt8](repeating: 0, count: 500_000), duration: 2, independent: true)
        _ = timeline.closeSegment(programDateTime: 0)
        #expect(timeline.variant(uri: "media.m3u8").bandwidth == 2_000_000)
    }

    /// Once its parts fill a segment, the segment is listed next: the hint names the next one's first part.
    @Test func theHintNamesTheNextSegmentOnceThePartsFillOne() {
        var timeline = Timeline(configuration: Self.configuration(partDuration: 0.5))
        #expect(timeline.nextPart == .part(0, 0, .fmp4))
        for index in 0..<3 {
            _ = timeline.appendPart([1], duration: 0.5, independent: index == 0)
            #expect(timeline.nextPart == .part(0, index + 1, .fmp4))
        }
        _ = timeline.appendPart([1], duration: 0.5, independent: false)
        #expect(timeline.nextPart == .part(1, 0, .fmp4))
        #expect(timeline.mediaPlaylist().lowLatency?.preloadHint == "part1.0.m4s")
        _ = timeline.closeSegment(programDateTime: 0)
        #expect(timeline.nextPart == .part(1, 0, .fmp4))
    }

    /// A blocking reload for the part after a finished segment's last waits for the next segment's
    /// first part; the parts it has, and a segment asked for whole, are listed at once.
    @Test func aPartPastAFinishedSegmentsLastIsTheNextSegmentsFirst() {
        var timeline = Timeline(configuration: Self.configuration(partDuration: 0.5))
        for index in 0..<4 { _ = timeline.appendPart([1], duration: 0.5, independent: index == 0) }
        _ = timeline.closeSegment(programDateTime: 0)
        #expect(timeline.lists(msn: 0, part: nil))
        #expect(timeline.lists(msn: 0, part: 3))
        #expect(!timeline.lists(msn: 0, part: 4))
        #expect(!timeline.lists(msn: 0, part: 9))
        #expect(!timeline.lists(msn: 1, part: 0))
        _ = timeline.appendPart([1], duration: 0.5, independent: true)
        #expect(timeline.lists(msn: 0, part: 4))
        #expect(timeline.lists(msn: 1, part: 0))
        #expect(!timeline.lists(msn: 1, part: 1))
    }
}
