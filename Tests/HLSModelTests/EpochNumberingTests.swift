import Testing

@testable import HLSModel

/// Names that follow the media, not a server: where a broadcast's numbers start, and origins fed by
/// one publisher serving the same playlists, with exact values.
@Suite struct EpochNumberingTests {
    typealias Publisher = IngestAssemblerTests.Publisher

    /// One segment of three parts, pushed to each origin as it is cut: each part and the playlist
    /// after it (Low-Latency HLS), then the segment and the playlist listing it.
    static func segment(_ publisher: inout Publisher, into origins: inout [IngestAssembler]) throws {
        let sequence = publisher.timeline.nextSequence
        for index in 0..<3 {
            let bytes = [UInt8(sequence & 0xff), UInt8(index)]
            _ = publisher.timeline.appendPart(bytes, duration: 1.0 / 3, independent: index == 0)
            for origin in origins.indices where publisher.lowLatency {
                _ = try origins[origin].put(.part(sequence, index, .fmp4), bytes: bytes, now: publisher.now)
                _ = try origins[origin].put(.mediaPlaylist, bytes: publisher.playlist, now: publisher.now)
            }
        }
        let closed = publisher.timeline.closeSegment(
            programDateTime: IngestAssemblerTests.start + Int64(sequence) * 1000)
        guard case .segment(let name) = closed.events.first else { return }
        for origin in origins.indices {
            _ = try origins[origin].put(name, bytes: publisher.timeline.bytes(of: name)!, now: publisher.now)
            _ = try origins[origin].put(.mediaPlaylist, bytes: publisher.playlist, now: publisher.now)
        }
    }

    @Test func theFirstNumberIsOnePastTheSlotOfTheStart() {
        // 2026-11-26 10:39:25.123 UTC, 2 s segments: slot 882,075,582 of the epoch.
        #expect(EpochNumbering.start(at: 1_764_153_565_123, segmentDuration: 2).sequence == 882_076_783)
        #expect(EpochNumbering.start(at: 1_764_153_565_123, segmentDuration: 1).sequence == 1_764_153_566)
        #expect(EpochNumbering.start(at: 1_764_153_565_123, segmentDuration: 6).sequence == 294_025_595)
        // A slot's first millisecond belongs to it; its last still does.
        #expect(EpochNumbering.start(at: 4000, segmentDuration: 2).sequence == 3)
        #expect(EpochNumbering.start(at: 3999, segmentDuration: 2).sequence == 2)
        #expect(EpochNumbering.start(at: 0, segmentDuration: 2).sequence == 1)
        // 1.5 s segments are 1,500 ms slots.
        #expect(EpochNumbering.start(at: 1_764_153_565_123, segmentDuration: 1.5).sequence == 1_176_102_377)
    }

    @Test func aRestartWithinTheSlotOfTheLastSegmentStillGivesNewNumbers() {
        // A run starts at 1,000.1 s with 2 s segments: 501, 502 from 1,002.1 s, 503 from 1,004.1 s.
        let first = EpochNumbering.start(at: 1_000_100, segmentDuration: 2)
        #expect(first == EpochNumbering.Start(sequence: 501, wallMilliseconds: 1_000_100, segmentMilliseconds: 2000))
        #expect(first.highestSequence(by: 1_004_100) == 503)
        #expect(first.highestSequence(by: 1_004_099) == 502)
        // Stopped at 1,004.5 s and started again at 1,005 s: the epoch alone says 503 again.
        #expect(EpochNumbering.start(at: 1_005_000, segmentDuration: 2).sequence == 503)
        // What the channel's last start says moves it past.
        #expect(EpochNumbering.start(at: 1_005_000, segmentDuration: 2, after: first).sequence == 504)
        // Stopped cleanly after 503: its last number is exact, and the epoch rules again after it.
        var stopped = first
        stopped.lastSequence = 503
        #expect(EpochNumbering.start(at: 1_005_000, segmentDuration: 2, after: stopped).sequence == 504)
        #expect(EpochNumbering.start(at: 1_008_100, segmentDuration: 2, after: stopped).sequence == 505)
        // Killed, its bound is one number a segment since its start: 2 more by 1,008.1 s.
        #expect(EpochNumbering.start(at: 1_008_100, segmentDuration: 2, after: first).sequence == 506)
        // Long after, the epoch is past it anyway.
        #expect(EpochNumbering.start(at: 2_000_000, segmentDuration: 2, after: first).sequence == 1001)
        // An earlier start with other segments numbered elsewhere (wall time over 1 s, not 2 s).
        let short = EpochNumbering.start(at: 1_000_000, segmentDuration: 1)
        #expect(short.highestSequence(by: 1_010_000) == 1011)
        #expect(EpochNumbering.start(at: 1_010_000, segmentDuration: 2, after: short).sequence == 506)
    }

    @Test func aStartIsKeptAsOneLineOfText() {
        let start = EpochNumbering.Start(
            sequence: 882_076_783, wallMilliseconds: 1_764_153_565_123, segmentMilliseconds: 2000)
        #expect(start.text == "882076783 1764153565123 2000\n")
        #expect(EpochNumbering.Start(text: start.text) == start)
        #expect(EpochNumbering.Start(text: "") == nil)
        #expect(EpochNumbering.Start(text: "1 2") == nil)
        #expect(EpochNumbering.Start(text: "1 2 0") == nil)
        #expect(EpochNumbering.Start(text: "-1 2 3") == nil)
        #expect(EpochNumbering.Start(text: "one 2 3") == nil)
        let stopped = EpochNumbering.Start(
            sequence: 7, wallMilliseconds: 14000, segmentMilliseconds: 2000, lastSequence: 9)
        #expect(stopped.text == "7 14000 2000 9\n")
        #expect(EpochNumbering.Start(text: stopped.text) == stopped)
        #expect(EpochNumbering.Start(text: "7 14000 2000 5") == nil)
        #expect(EpochNumbering.Start(text: "7 14000 2000 9 1") == nil)
        #expect(EpochNumbering.Start(text: "9223372036854775807 14000 2000") == nil)
        #expect(EpochNumbering.Start(text: "7 -9223372036854775808 2000") == nil)
        #expect(EpochNumbering.Start(text: "7 14000 2000 9223372036854775807") == nil)
    }

    @Test func aTimelineNumberedOnTheEpochNamesItsInitSegmentAfterItsFirstSegment() {
        var timeline = Timeline(
            configuration: TimelineTests.configuration(partDuration: 0.5), firstSequence: 882_076_783)
        #expect(timeline.initSegmentName == .initSegment(continuing: 882_076_783))
        _ = timeline.setInitSegment([1])
        #expect(
            timeline.appendPart([2], duration: 0.5, independent: true)?.events == [.part(.part(882_076_783, 0, .fmp4))])
        _ = timeline.closeSegment(programDateTime: 1_764_153_565_123)
        let playlist = timeline.mediaPlaylist()
        #expect(playlist.mediaSequence == 882_076_783)
        #expect(playlist.segments.map(\.uri) == ["seg882076783.m4s"])
        #expect(playlist.segments.map(\.map) == ["init882076783.mp4"])
        #expect(playlist.segments.map(\.discontinuity) == [false])
        #expect(timeline.firstSequence == 882_076_783)
        // A later run of the same timeline follows a discontinuity.
        timeline.beginRun()
        #expect(timeline.nextIsDiscontinuity)
        #expect(timeline.initSegmentName == .initSegment(continuing: 882_076_784))
    }

    /// Two origins fed by one Low-Latency publisher from its start serve the same text after every
    /// push, and a third that starts empty mid-stream (restarted) serves it too once its window has
    /// filled: same numbers, names, parts, dates and discontinuity numbering.
    @Test func twinsAndARestartedOriginServeTheSamePlaylist() throws {
        var publisher = Publisher(partDuration: 1.0 / 3, firstSequence: 882_076_783)
        var twins = [IngestAssembler(channel: "demo"), IngestAssembler(channel: "demo")]
        for index in twins.indices { try publisher.initSegment(into: &twins[index]) }
        for _ in 0..<4 {
            try Self.segment(&publisher, into: &twins)
            #expect(IngestAssemblerTests.rendered(twins[0]) == IngestAssemblerTests.rendered(twins[1]))
        }
        #expect(twins[0].timeline!.mediaPlaylist().mediaSequence == 882_076_783)
        // The restarted origin: the playlist that names what it never got asks for it again (the 424
        // path), and what the publisher sends again brings it level.
        var restarted = IngestAssembler(channel: "demo")
        try Self.segment(&publisher, into: &twins)
        let segment = MediaFileName.segment(882_076_787, .fmp4)
        _ = try restarted.put(segment, bytes: publisher.timeline.bytes(of: segment)!, now: 0)
        #expect(
            throws: IngestAssembler.Refusal.missingFiles(
                "init882076783.mp4 is not here (this server restarted?): send it, and the files the playlist names, again"
            )
        ) {
            try restarted.put(.mediaPlaylist, bytes: publisher.playlist, now: 0)
        }
        // Sent again: the init segment and the parts the playlist lists.
        _ = try restarted.put(publisher.timeline.initSegmentName!, bytes: [0x69, 0x6e], now: 0)
        for index in 0..<3 {
            let part = MediaFileName.part(882_076_787, index, .fmp4)
            _ = try restarted.put(part, bytes: publisher.timeline.bytes(of: part)!, now: 0)
        }
        _ = try restarted.put(.mediaPlaylist, bytes: publisher.playlist, now: 0)
        #expect(restarted.timeline!.mediaPlaylist().segments.map(\.uri) == ["seg882076787.m4s"])
        var all = twins + [restarted]
        for _ in 0..<6 { try Self.segment(&publisher, into: &all) }
        // Six listed, the restarted one's window is full: line for line, parts and hints included.
        let text = IngestAssemblerTests.rendered(all[0])
        #expect(IngestAssemblerTests.rendered(all[2]) == text)
        #expect(IngestAssemblerTests.rendered(all[1]) == text)
        #expect(all[2].timeline!.mediaPlaylist().mediaSequence == 882_076_788)
        #expect(text.contains("#EXT-X-MAP:URI=\"init882076783.mp4\"\n"))
        #expect(text.contains("#EXT-X-PART:DURATION=0.333,URI=\"part882076793.0.m4s\",INDEPENDENT=YES\n"))
    }

    /// A publisher that continued an earlier run (its playlist lists a discontinuity): an origin that
    /// joins after it takes the discontinuity numbering its playlist gives, so both serve the same
    /// EXT-X-DISCONTINUITY-SEQUENCE once the earlier run has left the window.
    @Test func aLateOriginTakesThePublishersDiscontinuityNumbering() throws {
        var publisher = Publisher(firstSequence: 100)
        var origins = [IngestAssembler(channel: "demo")]
        try publisher.initSegment(into: &origins[0])
        for _ in 0..<3 { try Self.segment(&publisher, into: &origins) }
        publisher.timeline.beginRun()
        publisher.now = 5000
        try publisher.initSegment(into: &origins[0])
        try Self.segment(&publisher, into: &origins)
        #expect(origins[0].timeline!.mediaPlaylist().segments.map(\.discontinuity) == [false, false, false, true])
        // The late one gets the second run's files only.
        var late = IngestAssembler(channel: "demo")
        _ = try late.put(publisher.timeline.initSegmentName!, bytes: [0x69, 0x6e], now: 5000)
        _ = try late.put(.segment(103, .fmp4), bytes: publisher.timeline.bytes(of: .segment(103, .fmp4))!, now: 5000)
        _ = try late.put(.mediaPlaylist, bytes: publisher.playlist, now: 5000)
        let first = late.timeline!.mediaPlaylist()
        #expect(first.segments.map(\.uri) == ["seg103.m4s"])
        #expect(first.segments.map(\.discontinuity) == [true])
        #expect(first.segments.map(\.map) == ["init103.mp4"])
        origins.append(late)
        for _ in 0..<6 { try Self.segment(&publisher, into: &origins) }
        let text = IngestAssemblerTests.rendered(origins[0])
        #expect(IngestAssemblerTests.rendered(origins[1]) == text)
        #expect(text.contains("#EXT-X-MEDIA-SEQUENCE:104\n#EXT-X-DISCONTINUITY-SEQUENCE:1\n"))
    }

    /// A publisher that numbers from 0 again (ffmpeg restarted) never gets an origin to give a name
    /// to other bytes: the origin goes on with its own next numbers.
    @Test func aPublisherThatReusesNumbersIsNumberedOnByTheOrigin() throws {
        var origin = IngestAssembler(channel: "demo")
        var first = Publisher(firstSequence: 40)
        try first.initSegment(into: &origin)
        for _ in 0..<2 { _ = try first.segment(into: &origin) }
        _ = origin.end()
        var again = Publisher(firstSequence: 41)
        again.now = 10_000
        try again.initSegment(into: &origin)
        _ = try again.segment(into: &origin)
        let playlist = origin.timeline!.mediaPlaylist()
        #expect(playlist.segments.map(\.uri) == ["seg40.m4s", "seg41.m4s", "seg42.m4s"])
        #expect(playlist.segments.map(\.map) == ["init40.mp4", "init40.mp4", "init42.mp4"])
        #expect(playlist.segments.map(\.discontinuity) == [false, false, true])
    }
}
