import Foundation
import Testing

@testable import HLSModel

/// Markers (chapters) as EXT-X-DATERANGE: the rules of a title and a time, the tag and its reading,
/// where a playlist lists them, delta updates that skip them, and the windows that keep them.
@Suite struct DateRangeTests {
    static let start: Int64 = 1_795_000_000_000  // 2026-11-18T11:06:40.000Z

    static func marker(_ number: Int, at offset: Int64, _ title: String = "Slide") -> DateRange {
        DateRange(id: DateRange.id(number: number, start: start + offset), start: start + offset, title: title)
    }

    /// A Low-Latency timeline of 1 s segments (parts of 0.5 s), 3 listed, the first at `start`.
    static func timeline(segments: Int) -> Timeline {
        var timeline = Timeline(
            configuration: .init(
                channel: "demo",
                rendition: Rendition(
                    width: 640, height: 360, fps: 30, videoBitrate: 900_000, audioBitrate: 128_000,
                    codecs: ["avc1.64001f", "mp4a.40.2"]),
                format: .fmp4, segmentDuration: 1, playlistSize: 3, partDuration: 0.5))
        for number in 0..<segments {
            _ = timeline.appendPart([1], duration: 0.5, independent: true)
            _ = timeline.appendPart([2], duration: 0.5, independent: false)
            _ = timeline.closeSegment(programDateTime: start + Int64(number) * 1000)
        }
        return timeline
    }

    @Test func theTagIsWrittenAndReadBackExactly() {
        let marker = DateRange(id: "m3-1795000001250", start: Self.start + 1250, title: "Slide 12, “intro”")
        #expect(
            marker.tag
                == "#EXT-X-DATERANGE:ID=\"m3-1795000001250\",CLASS=\"org.onair.chapter\","
                + "START-DATE=\"2026-11-18T11:06:41.250Z\",X-TITLE=\"Slide 12, “intro”\"")
        #expect(DateRange.parse(marker.tag.dropFirst("#EXT-X-DATERANGE:".count)) == marker)
        // Another class, no start, a bad id or title: not a marker onair keeps.
        for attributes in [
            "ID=\"a\",CLASS=\"com.example.ad\",START-DATE=\"2026-11-18T11:06:41.250Z\",X-TITLE=\"x\"",
            "ID=\"a\",CLASS=\"org.onair.chapter\",X-TITLE=\"x\"",
            "ID=\"a b\",CLASS=\"org.onair.chapter\",START-DATE=\"2026-11-18T11:06:41.250Z\",X-TITLE=\"x\"",
            "ID=\"a\",CLASS=\"org.onair.chapter\",START-DATE=\"2026-11-18T11:06:41.250Z\",X-TITLE=\"\"",
            "ID=\"a\",CLASS=\"org.onair.chapter\",START-DATE=\"yesterday\",X-TITLE=\"x\"",
        ] {
            #expect(DateRange.parse(Substring(attributes)) == nil, "\(attributes)")
        }
    }

    @Test func aTitleKeepsTheRules() {
        #expect(DateRange.problem(withTitle: "Slide 12") == nil)
        #expect(DateRange.problem(withTitle: String(repeating: "é", count: 200)) == nil)
        #expect(DateRange.problem(withTitle: "") == "a marker needs a title")
        #expect(DateRange.problem(withTitle: "   ") == "a marker needs a title")
        #expect(
            DateRange.problem(withTitle: String(repeating: "a", count: 201))
                == "a title is at most 200 characters (this one has 201)")
        #expect(DateRange.problem(withTitle: "a\tb") == "a title cannot hold control characters (tabs, line breaks)")
        #expect(DateRange.problem(withTitle: "a\nb") == "a title cannot hold control characters (tabs, line breaks)")
        #expect(
            DateRange.problem(withTitle: "say \"hi\"") == "a title cannot hold a double quote (\"); use “ and ” instead"
        )
    }

    @Test func aTimeIsNeitherInTheFutureNorBeforeTheWindow() throws {
        let now = Self.start + 60_000
        try DateRange.check(title: "a", at: now, now: now, earliest: Self.start)
        try DateRange.check(title: "a", at: now + 1000, now: now, earliest: Self.start)
        try DateRange.check(title: "a", at: Self.start, now: now, earliest: Self.start)
        #expect(throws: MarkerRefusal.badTime("2026-11-18T11:07:41.001Z is in the future")) {
            try DateRange.check(title: "a", at: now + 1001, now: now, earliest: Self.start)
        }
        #expect(
            throws: MarkerRefusal.badTime(
                "2026-11-18T11:06:39.999Z is before what viewers can go back to (2026-11-18T11:06:40.000Z)")
        ) {
            try DateRange.check(title: "a", at: Self.start - 1, now: now, earliest: Self.start)
        }
        #expect(throws: MarkerRefusal.badTitle("a marker needs a title")) {
            try DateRange.check(title: "", at: now, now: now, earliest: Self.start)
        }
        #expect(MarkerRefusal.full.status == 429)
        #expect(MarkerRefusal.badTime("x").status == 400)
    }

    @Test func aMarkerIsListedBeforeTheSegmentItStartsInAndAtOnceWhileItsSegmentIsBuilt() {
        var timeline = Self.timeline(segments: 3)
        timeline.keep(dateRanges: [Self.marker(2, at: 3200, "Open"), Self.marker(1, at: 1500, "Intro")])
        let lines = timeline.mediaPlaylist().render().split(separator: "\n").map(String.init)
        let intro = lines.firstIndex { $0.contains("X-TITLE=\"Intro\"") }!
        #expect(lines[intro + 1] == "#EXT-X-PROGRAM-DATE-TIME:2026-11-18T11:06:41.000Z")
        // In the segment being built: after the last listed one, before the open parts' tags.
        let open = lines.firstIndex { $0.contains("X-TITLE=\"Open\"") }!
        #expect(lines[open - 1] == "seg2.m4s")
        #expect(lines[open + 1].hasPrefix("#EXT-X-PRELOAD-HINT"))
        #expect(lines.contains { $0.hasPrefix("#EXT-X-SERVER-CONTROL:") && $0.contains("CAN-SKIP-DATERANGES=YES") })
    }

    @Test func aMarkerLeavesWithItsSegmentAndIsThenSaidRecentlyRemoved() {
        var timeline = Self.timeline(segments: 3)
        timeline.keep(dateRanges: [Self.marker(1, at: 200, "First"), Self.marker(2, at: 2500, "Third")])
        #expect(timeline.mediaPlaylist().dateRanges.map(\.title) == ["First", "Third"])
        for number in 3..<5 {
            _ = timeline.appendPart([1], duration: 1, independent: true)
            _ = timeline.closeSegment(programDateTime: Self.start + Int64(number) * 1000)
        }
        // Segment 0 left the playlist, still downloadable: its marker was removed lately.
        let playlist = timeline.mediaPlaylist()
        #expect(playlist.mediaSequence == 2)
        #expect(playlist.dateRanges.map(\.title) == ["Third"])
        #expect(playlist.recentlyRemovedDateRanges == [Self.marker(1, at: 200).id])
    }

    @Test func aDeltaUpdateSkipsTheSkippedSegmentsMarkersOnlyWhenAskedV2() {
        var timeline = Self.timeline(segments: 3)
        // 10 segments listed: the skip boundary (6 target durations) leaves out the first 3.
        timeline.configuration.playlistSize = 10
        for number in 3..<10 {
            _ = timeline.appendPart([1], duration: 1, independent: true)
            _ = timeline.closeSegment(programDateTime: Self.start + Int64(number) * 1000)
        }
        timeline.keep(dateRanges: [Self.marker(1, at: 1100, "Skipped"), Self.marker(2, at: 8100, "Kept")])
        let v1 = timeline.deltaPlaylist()!.render()
        #expect(v1.contains("#EXT-X-SKIP:SKIPPED-SEGMENTS=3\n"))
        #expect(v1.contains("X-TITLE=\"Skipped\"") && v1.contains("X-TITLE=\"Kept\""))
        let v2 = timeline.deltaPlaylist(skippingDateRanges: true)!.render()
        #expect(v2.contains("#EXT-X-SKIP:SKIPPED-SEGMENTS=3,RECENTLY-REMOVED-DATERANGES=\"\"\n"))
        #expect(!v2.contains("X-TITLE=\"Skipped\"") && v2.contains("X-TITLE=\"Kept\""))
    }

    @Test func aTimelineKeepsEachIdOnceInOrderAndAtMostAThousand() {
        var timeline = Self.timeline(segments: 1)
        timeline.keep(dateRanges: [Self.marker(2, at: 900), Self.marker(1, at: 100)])
        timeline.keep(dateRanges: [Self.marker(1, at: 100), Self.marker(3, at: 500)])
        #expect(timeline.dateRanges.map(\.start) == [Self.start + 100, Self.start + 500, Self.start + 900])
        timeline.keep(dateRanges: (4...1003).map { Self.marker($0, at: Int64($0) * 1000) })
        #expect(timeline.dateRanges.count == 1000)
        #expect(timeline.dateRanges.first?.start == Self.start + 4000)
    }

    @Test func thePlaylistIsReadBackWithItsMarkersAndOthersAreNotCarried() {
        var timeline = Self.timeline(segments: 3)
        timeline.keep(dateRanges: [Self.marker(1, at: 1500, "Intro")])
        var text = timeline.mediaPlaylist().render()
        #expect(MediaPlaylist.parse(text)?.dateRanges == [Self.marker(1, at: 1500, "Intro")])
        let other = "#EXT-X-DATERANGE:ID=\"ad\",CLASS=\"com.example.ad\",START-DATE=\"2026-11-18T11:06:41.000Z\""
        text = text.replacingOccurrences(of: "#EXT-X-MEDIA-SEQUENCE", with: other + "\n#EXT-X-MEDIA-SEQUENCE")
        #expect(MediaPlaylist.parse(text)?.dateRanges.count == 1)
        // One of onair's that breaks the rules: the playlist is not read.
        let bad = text.replacingOccurrences(of: "X-TITLE=\"Intro\"", with: "X-TITLE=\"\"")
        #expect(MediaPlaylist.parse(bad) == nil)
    }

    @Test func theRewindWindowKeepsTheMarkersOfItsSegmentsAndTheyLeaveWithThem() {
        var window = DVRWindow(seconds: 3, version: 7, targetDuration: 1)
        func add(_ number: Int) {
            _ = window.append(
                sequence: number, file: "seg\(number).m4s", duration: 1,
                programDateTime: Self.start + Int64(number) * 1000, discontinuity: false, map: "init.mp4",
                format: .fmp4, missingDuration: 1)
        }
        add(0)
        add(1)
        let added = window.keep(dateRanges: [Self.marker(1, at: 500, "A"), Self.marker(2, at: 1500, "B")])
        let again = window.keep(dateRanges: [Self.marker(1, at: 500, "A")])
        #expect(added && !again)
        #expect(window.playlist.dateRanges.map(\.title) == ["A", "B"])
        for number in 2...4 { add(number) }
        #expect(window.playlist.mediaSequence == 2)
        #expect(window.playlist.dateRanges.isEmpty)
        // A marker older than what the window lists is not taken up.
        let late = window.keep(dateRanges: [Self.marker(3, at: 1200, "Late")])
        #expect(!late)
    }

    @Test func anOriginRefusesTwiceListedOrChangedMarkers() throws {
        let intro = Self.marker(1, at: 100, "Intro")
        try IngestAssembler.check([intro], against: [intro])
        #expect(throws: IngestAssembler.Refusal.badRequest("media.m3u8 lists the date range \(intro.id) twice")) {
            try IngestAssembler.check([intro, intro], against: [])
        }
        var renamed = intro
        renamed.title = "Outro"
        #expect(
            throws: IngestAssembler.Refusal.badRequest(
                "the date range \(intro.id) changed (RFC 8216bis 4.4.5.1: its attributes stay)")
        ) {
            try IngestAssembler.check([renamed], against: [intro])
        }
        #expect(
            throws: IngestAssembler.Refusal.badRequest("media.m3u8 lists more than 1000 markers (EXT-X-DATERANGE)")
        ) {
            try IngestAssembler.check((1...1001).map { Self.marker($0, at: Int64($0)) }, against: [])
        }
    }
}
