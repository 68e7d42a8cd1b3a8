import Testing

@testable import HLSModel

/// An origin rebuilding a channel from what its publisher pushes: the same playlists as the
/// publisher's own, a publisher that comes back, gaps, and what is refused, with exact values.
@Suite struct IngestAssemblerTests {
    static let start: Int64 = 1_700_000_000_000

    /// A publisher: its timeline, and what it pushes (files before the playlist naming them).
    struct Publisher {
        var timeline: Timeline
        var lowLatency: Bool
        /// Wall milliseconds its pushes arrive at.
        var now: Int64 = 0

        init(partDuration: Double? = nil, firstSequence: Int = 0) {
            timeline = Timeline(
                configuration: TimelineTests.configuration(partDuration: partDuration, playlistSize: 6),
                firstSequence: firstSequence)
            lowLatency = partDuration != nil
        }

        /// What the publisher sends as its playlist: with parts for an origin, whole segments otherwise.
        var playlist: [UInt8] {
            Array((lowLatency ? timeline.mediaPlaylist() : timeline.wholeSegmentPlaylist()).render().utf8)
        }

        mutating func initSegment(into origin: inout IngestAssembler) throws {
            _ = timeline.setInitSegment([0x69, 0x6e])
            _ = try origin.put(timeline.initSegmentName!, bytes: [0x69, 0x6e], now: now)
        }

        /// One segment of `parts` parts of a third of a second each; pushes each part and a playlist
        /// after it (Low-Latency HLS), or the segment and a playlist after it.
        mutating func segment(into origin: inout IngestAssembler, parts: Int = 3, push: Bool = true) throws
            -> [Publication]
        {
            var publications: [Publication] = []
            let sequence = timeline.nextSequence
            for index in 0..<parts {
                let bytes = [UInt8(sequence & 0xff), UInt8(index)]
                _ = timeline.appendPart(bytes, duration: 1 / Double(parts), independent: index == 0)
                guard push, lowLatency else { continue }
                _ = try origin.put(.part(sequence, index, .fmp4), bytes: bytes, now: now)
                publications += try origin.put(.mediaPlaylist, bytes: playlist, now: now)
            }
            let closed = timeline.closeSegment(programDateTime: start + Int64(sequence) * 1000)
            guard push else { return publications }
            if case .segment(let name) = closed.events.first {
                _ = try origin.put(name, bytes: timeline.bytes(of: name)!, now: now)
            }
            return publications + (try origin.put(.mediaPlaylist, bytes: playlist, now: now))
        }
    }

    static func rendered(_ origin: IngestAssembler) -> String {
        origin.timeline!.mediaPlaylist().render()
    }

    @Test func aPushedStreamIsServedAsItsPublisherListsIt() throws {
        var origin = IngestAssembler(channel: "demo")
        var publisher = Publisher()
        try publisher.initSegment(into: &origin)
        #expect(origin.timeline == nil)
        for _ in 0..<9 { _ = try publisher.segment(into: &origin) }
        #expect(Self.rendered(origin) == publisher.timeline.wholeSegmentPlaylist().render())
        #expect(origin.timeline!.bytes(of: .segment(8, .fmp4)) == [8, 0, 8, 1, 8, 2])
        #expect(origin.timeline!.edge == 9)
        #expect(origin.timeline!.bytes(of: .initSegment(continuing: nil)) == [0x69, 0x6e])
        // Taken files are not held twice; the publisher's window has moved past the rest.
        #expect(origin.files.isEmpty)
        #expect(origin.heldBytes == 0)
    }

    @Test func lowLatencyPartsAreListedAsTheyArrive() throws {
        var origin = IngestAssembler(channel: "demo")
        var publisher = Publisher(partDuration: 0.25)
        try publisher.initSegment(into: &origin)
        var events: [Publication.Event] = []
        for _ in 0..<8 { events += try publisher.segment(into: &origin, parts: 4).flatMap(\.events) }
        #expect(Self.rendered(origin) == publisher.timeline.mediaPlaylist().render())
        #expect(origin.timeline!.deltaPlaylist()?.render() == publisher.timeline.deltaPlaylist()?.render())
        #expect(
            events.prefix(5) == [
                .initSegment(.initSegment(continuing: nil)), .part(.part(0, 0, .fmp4)),
                .part(.part(0, 1, .fmp4)), .part(.part(0, 2, .fmp4)), .part(.part(0, 3, .fmp4)),
            ])
        // A part pushed with its playlist is listed at once, with the hint to the next.
        let sequence = publisher.timeline.nextSequence
        _ = publisher.timeline.appendPart([1], duration: 0.25, independent: true)
        _ = try origin.put(.part(sequence, 0, .fmp4), bytes: [1], now: 0)
        let listed = try origin.put(.mediaPlaylist, bytes: publisher.playlist, now: 0)
        #expect(listed.flatMap(\.events) == [.part(.part(8, 0, .fmp4))])
        #expect(origin.timeline!.lists(msn: 8, part: 0))
        #expect(Self.rendered(origin).contains("#EXT-X-PRELOAD-HINT:TYPE=PART,URI=\"part8.1.m4s\""))
    }

    @Test func aPublisherThatComesBackContinuesAfterADiscontinuity() throws {
        var origin = IngestAssembler(channel: "demo")
        var first = Publisher()
        try first.initSegment(into: &origin)
        for _ in 0..<3 { _ = try first.segment(into: &origin) }
        // It restarts from segment 0, with an init segment of the same name, once the first is silent.
        var second = Publisher()
        second.now = 5000
        try second.initSegment(into: &origin)
        for _ in 0..<2 { _ = try second.segment(into: &origin) }
        let playlist = origin.timeline!.mediaPlaylist()
        #expect(playlist.segments.map(\.uri) == ["seg0.m4s", "seg1.m4s", "seg2.m4s", "seg3.m4s", "seg4.m4s"])
        #expect(playlist.segments.map(\.discontinuity) == [false, false, false, true, false])
        #expect(playlist.segments.map(\.map) == ["init.mp4", "init.mp4", "init.mp4", "init3.mp4", "init3.mp4"])
        #expect(origin.timeline!.bytes(of: .segment(3, .fmp4)) == [0, 0, 0, 1, 0, 2])
        // An ended channel goes live again the same way.
        _ = origin.end()
        #expect(origin.timeline!.ended)
        var third = Publisher()
        third.now = 5000
        try third.initSegment(into: &origin)
        _ = try third.segment(into: &origin)
        #expect(!origin.timeline!.ended)
        #expect(origin.timeline!.mediaPlaylist().segments.last?.map == "init5.mp4")
    }

    @Test func anOriginThatStartsMidStreamBeginsWithTheFirstSegmentItHas() throws {
        var origin = IngestAssembler(channel: "demo")
        var publisher = Publisher()
        try publisher.initSegment(into: &origin)
        for _ in 0..<4 { _ = try publisher.segment(into: &origin, push: false) }
        #expect(try origin.put(.mediaPlaylist, bytes: publisher.playlist, now: 0).isEmpty)
        _ = try publisher.segment(into: &origin)
        // Under the publisher's number: every origin serves the same names.
        let playlist = origin.timeline!.mediaPlaylist()
        #expect(playlist.segments.map(\.uri) == ["seg4.m4s"])
        #expect(playlist.mediaSequence == 4)
        #expect(origin.timeline!.bytes(of: .segment(4, .fmp4)) == [4, 0, 4, 1, 4, 2])
    }

    @Test func anOriginThatRestartedAsksForTheInitSegmentItNeverGot() throws {
        // The publisher sent its init segment to this origin before it restarted.
        var before = IngestAssembler(channel: "demo")
        var publisher = Publisher()
        try publisher.initSegment(into: &before)
        _ = try publisher.segment(into: &before)
        var origin = IngestAssembler(channel: "demo")
        _ = publisher.timeline.appendPart([9], duration: 1, independent: true)
        let segment = publisher.timeline.closeSegment(programDateTime: Self.start + 1000)
        guard case .segment(let name) = segment.events.first else { Issue.record("no segment"); return }
        _ = try origin.put(name, bytes: publisher.timeline.bytes(of: name)!, now: 0)
        // Its segments arrive, the init segment they need never will: asked for, not waited for.
        do {
            _ = try origin.put(.mediaPlaylist, bytes: publisher.playlist, now: 0)
            Issue.record("the playlist was taken without its init segment")
        } catch {
            #expect(
                error
                    == .missingFiles(
                        "init.mp4 is not here (this server restarted?): send it, and the files the playlist names, again"
                    ))
        }
        // Sent again, the channel goes on from the first segment here.
        _ = try origin.put(.initSegment(continuing: nil), bytes: [0x69, 0x6e], now: 0)
        _ = try origin.put(.mediaPlaylist, bytes: publisher.playlist, now: 0)
        #expect(origin.timeline!.mediaPlaylist().segments.map(\.uri) == ["seg1.m4s"])
        // A playlist before any of its media is not refused: the files may be on their way.
        var fresh = IngestAssembler(channel: "demo")
        #expect(try fresh.put(.mediaPlaylist, bytes: publisher.playlist, now: 0).isEmpty)
    }

    @Test func anOriginThatRestartedBetweenTwoPartsAsksAtOnce() throws {
        var publisher = Publisher(partDuration: 1.0 / 3)
        var before = IngestAssembler(channel: "demo")
        try publisher.initSegment(into: &before)
        _ = try publisher.segment(into: &before)
        // Restarted between two parts: what reaches it first is the open segment's second part, and
        // the playlist that follows asks at once for what went before, not once a segment closes.
        _ = publisher.timeline.appendPart([7], duration: 1.0 / 3, independent: true)
        _ = publisher.timeline.appendPart([8], duration: 1.0 / 3, independent: false)
        var origin = IngestAssembler(channel: "demo")
        _ = try origin.put(.part(1, 1, .fmp4), bytes: [8], now: 0)
        #expect(
            throws: IngestAssembler.Refusal.missingFiles(
                "init.mp4 is not here (this server restarted?): send it, and the files the playlist names, again"
            )
        ) {
            try origin.put(.mediaPlaylist, bytes: publisher.playlist, now: 0)
        }
    }

    @Test func aGapIsListedAsAGapAndTheEndAsTheEnd() throws {
        var origin = IngestAssembler(channel: "demo")
        var publisher = Publisher()
        try publisher.initSegment(into: &origin)
        _ = try publisher.segment(into: &origin)
        // The publisher gave segment 1 up: its playlist lists it as a gap.
        _ = try publisher.segment(into: &origin, push: false)
        var gapped = publisher.timeline.wholeSegmentPlaylist()
        gapped.segments[1].gap = true
        _ = try origin.put(.mediaPlaylist, bytes: Array(gapped.render().utf8), now: 0)
        _ = try publisher.segment(into: &origin)
        let ended = publisher.timeline.end()
        #expect(ended.events == [.ended])
        let publications = try origin.put(.mediaPlaylist, bytes: publisher.playlist, now: 0)
        #expect(publications.flatMap(\.events) == [.ended])
        let playlist = origin.timeline!.mediaPlaylist()
        #expect(playlist.segments.map(\.gap) == [false, true, false])
        #expect(playlist.ended)
        #expect(origin.timeline!.bytes(of: .segment(1, .fmp4)) == nil)
        #expect(playlist.render().contains("#EXT-X-GAP\n#EXTINF:1.000,\nseg1.m4s"))
    }

    @Test func whatAnOriginCannotTakeIsRefused() throws {
        var origin = IngestAssembler(channel: "demo", limits: .init(files: 2, bytes: 10))
        let foreign = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n../secret.ts\n"
        #expect(throws: IngestAssembler.Refusal.self) {
            try origin.put(.mediaPlaylist, bytes: Array(foreign.utf8), now: 0)
        }
        #expect(throws: IngestAssembler.Refusal.badRequest("media.m3u8 is not a media playlist")) {
            try origin.put(.mediaPlaylist, bytes: Array("hello".utf8), now: 0)
        }
        _ = try origin.put(.segment(0, .fmp4), bytes: Array(repeating: 1, count: 6), now: 0)
        #expect(throws: IngestAssembler.Refusal.self) {
            try origin.put(.segment(1, .fmp4), bytes: Array(repeating: 1, count: 6), now: 0)
        }
        // Replacing a file counts its new size only.
        _ = try origin.put(.segment(0, .fmp4), bytes: Array(repeating: 1, count: 9), now: 0)
        #expect(origin.heldBytes == 9)
        origin.delete(.segment(0, .fmp4))
        #expect(origin.heldBytes == 0)
    }

    @Test func theMultivariantPlaylistDescribesTheStream() throws {
        var origin = IngestAssembler(channel: "demo")
        let pushed = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-STREAM-INF:BANDWIDTH=2400000,AVERAGE-BANDWIDTH=2100000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,FRAME-RATE=30.000
            media.m3u8

            """
        _ = try origin.put(.multivariantPlaylist, bytes: Array(pushed.utf8), now: 0)
        var publisher = Publisher()
        try publisher.initSegment(into: &origin)
        _ = try publisher.segment(into: &origin)
        #expect(
            MultivariantPlaylist(renditions: [origin.timeline!]).render().contains(
                "CODECS=\"avc1.64001f,mp4a.40.2\",RESOLUTION=1280x720,FRAME-RATE=30.000"))
        // A publisher that says nothing of its codecs gets a variant without them.
        let bare = IngestAssembler(channel: "bare")
        #expect(bare.timeline == nil)
        let variant = MultivariantPlaylist.Variant(
            uri: "media.m3u8", bandwidth: 1000, averageBandwidth: 900, codecs: [], width: 0, height: 0, frameRate: 0)
        #expect(
            MultivariantPlaylist(version: 6, variants: [variant]).render()
                == "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-INDEPENDENT-SEGMENTS\n#EXT-X-STREAM-INF:BANDWIDTH=1000,AVERAGE-BANDWIDTH=900\nmedia.m3u8\n"
        )
    }

    /// ffmpeg sends a playlist and the segment it lists at once: the playlist may come first.
    @Test func aSegmentThatArrivesAfterThePlaylistListingItIsTakenWhenItComes() throws {
        var origin = IngestAssembler(channel: "demo")
        var publisher = Publisher()
        try publisher.initSegment(into: &origin)
        _ = try publisher.segment(into: &origin)
        _ = try publisher.segment(into: &origin, push: false)
        let ended = publisher.timeline.end()
        #expect(ended.events == [.ended])
        #expect(try origin.put(.mediaPlaylist, bytes: publisher.playlist, now: 0).isEmpty)
        #expect(origin.timeline!.mediaPlaylist().segments.count == 1)
        let late = try origin.put(.segment(1, .fmp4), bytes: publisher.timeline.bytes(of: .segment(1, .fmp4))!, now: 0)
        #expect(late.flatMap(\.events) == [.segment(.segment(1, .fmp4)), .ended])
        #expect(Self.rendered(origin) == publisher.timeline.wholeSegmentPlaylist().render())
    }

    /// After a long first run, the returning publisher's first files are kept until its playlist comes.
    @Test func aReturningPublishersFilesAreKeptWhileTheOldPlaylistIsReadAgain() throws {
        var origin = IngestAssembler(channel: "demo")
        var first = Publisher()
        try first.initSegment(into: &origin)
        for _ in 0..<9 { _ = try first.segment(into: &origin) }
        var second = Publisher()
        second.now = 5000
        try second.initSegment(into: &origin)
        _ = try second.segment(into: &origin)
        let playlist = origin.timeline!.mediaPlaylist()
        #expect(playlist.segments.last?.uri == "seg9.m4s")
        #expect(playlist.segments.last?.discontinuity == true)
        #expect(origin.timeline!.bytes(of: .segment(9, .fmp4)) == [0, 0, 0, 1, 0, 2])
    }

    /// Two publishers on one channel: the one pushing keeps it, the other is told (409) until the
    /// first ends or is silent for two target durations (at least 4 s).
    @Test func aSecondPublisherIsRefusedWhileTheFirstPushes() throws {
        var origin = IngestAssembler(channel: "demo")
        var first = Publisher()
        try first.initSegment(into: &origin)
        for _ in 0..<3 { _ = try first.segment(into: &origin) }
        var second = Publisher()
        second.now = 3999
        try second.initSegment(into: &origin)
        #expect(
            throws: IngestAssembler.Refusal.conflict(
                "channel demo is live from another publisher, which pushed 4.0 s ago; a channel has one publisher "
                    + "at a time, and another takes over once it ends or is silent for 4 s")
        ) {
            _ = try second.segment(into: &origin)
        }
        #expect(origin.timeline!.mediaPlaylist().segments.count == 3)
        // The first goes on undisturbed.
        _ = try first.segment(into: &origin)
        #expect(origin.timeline!.mediaPlaylist().segments.map(\.discontinuity) == [false, false, false, false])
        // Silent for 4 s: the second takes over, after a discontinuity.
        second.now = 4000
        _ = try second.segment(into: &origin)
        #expect(
            origin.timeline!.mediaPlaylist().segments.map(\.discontinuity) == [false, false, false, false, true, false])
        #expect(IngestAssembler.holdMilliseconds(targetDuration: 6) == 12000)
    }

    /// A publisher's playlist that moved past segments the origin never got: what follows is after a
    /// discontinuity, under the publisher's numbers; the earlier segments leave the playlist (which
    /// lists consecutive numbers only) and stay downloadable.
    /// A run that ends within its first playlist, after an ended run: a new run (after a
    /// discontinuity, live for its recording), not segments added to the ended timeline.
    @Test func aRunWhoseFirstPlaylistEndsItIsANewRunAfterAnEndedOne() throws {
        var origin = IngestAssembler(channel: "demo")
        func run(from first: Int, count: Int) throws -> [Publication] {
            var text = "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
            for number in first..<(first + count) {
                _ = try origin.put(.segment(number, .ts), bytes: [UInt8(number)], now: 0)
                text += "#EXTINF:1.000,\nseg\(number).ts\n"
            }
            return try origin.put(.mediaPlaylist, bytes: Array((text + "#EXT-X-ENDLIST\n").utf8), now: 0)
        }
        _ = try run(from: 0, count: 2)
        #expect(origin.timeline?.ended == true)
        let second = try run(from: 2, count: 2)
        let playlist = try #require(origin.timeline).mediaPlaylist()
        #expect(playlist.segments.map(\.uri) == ["seg0.ts", "seg1.ts", "seg2.ts", "seg3.ts"])
        #expect(playlist.segments.map(\.discontinuity) == [false, false, true, false])
        #expect(playlist.ended)
        #expect(second.map(\.timeline.ended) == [false, false, true])
        // The same ending playlist pushed again starts nothing.
        #expect(try origin.put(.mediaPlaylist, bytes: Array(playlist.render().utf8), now: 0).isEmpty)
    }

    @Test func aJumpInThePublishersNumbersIsADiscontinuity() throws {
        var origin = IngestAssembler(channel: "demo")
        var publisher = Publisher()
        try publisher.initSegment(into: &origin)
        _ = try publisher.segment(into: &origin)
        var jumped = MediaPlaylist.parse(String(decoding: publisher.playlist, as: UTF8.self))!
        jumped.mediaSequence = (1 << 49) - 2
        jumped.segments = [jumped.segments[0]]
        jumped.segments[0].uri = "seg\((1 << 49) - 2).m4s"
        _ = try origin.put(.segment((1 << 49) - 2, .fmp4), bytes: [7], now: 0)
        _ = try origin.put(.mediaPlaylist, bytes: Array(jumped.render().utf8), now: 0)
        let playlist = origin.timeline!.mediaPlaylist()
        #expect(playlist.segments.map(\.uri) == ["seg562949953421310.m4s"])
        #expect(playlist.segments.map(\.discontinuity) == [true])
        #expect(playlist.mediaSequence == (1 << 49) - 2)
        #expect(playlist.discontinuitySequence == 0)
        #expect(origin.timeline!.bytes(of: .segment(0, .fmp4)) == [0, 0, 0, 1, 0, 2])
        // One more would take the publisher's numbers to 2^49, the half of 2^50 an origin keeps.
        jumped.mediaSequence = (1 << 49) - 1
        jumped.segments[0].uri = "seg\((1 << 49) - 1).m4s"
        #expect(throws: IngestAssembler.Refusal.self) {
            try origin.put(.mediaPlaylist, bytes: Array(jumped.render().utf8), now: 0)
        }
    }

    /// The numbers and attributes that once stopped an origin (a trap in its arithmetic), each
    /// refused with the rule it breaks.
    @Test(arguments: [
        ("#EXT-X-TARGETDURATION:1\n#EXTINF:1e-20,\nseg0.m4s\n", "#EXTINF:0.000 of seg0.m4s is out of range"),
        ("#EXT-X-TARGETDURATION:1\n#EXTINF:0x1p-80,\nseg0.m4s\n", "#EXTINF:0.000 of seg0.m4s is out of range"),
        ("#EXT-X-TARGETDURATION:2\n#EXTINF:86400,\nseg0.m4s\n", "#EXTINF:86400.000 of seg0.m4s is out of range"),
        // Served as 2.500, which rounds to 3: over the target duration.
        ("#EXT-X-TARGETDURATION:2\n#EXTINF:2.4996,\nseg0.m4s\n", "#EXTINF:2.500 of seg0.m4s is out of range"),
        ("#EXT-X-TARGETDURATION:9223372036854775807\n#EXTINF:1,\nseg0.m4s\n", "EXT-X-TARGETDURATION"),
        (
            "#EXT-X-TARGETDURATION:2000000000000000\n#EXT-X-PART-INF:PART-TARGET=0.2\n#EXT-X-PART:DURATION=0.2,URI=\"part0.0.m4s\"\n",
            "EXT-X-TARGETDURATION 2000000000000000 is out of range"
        ),
        (
            "#EXT-X-TARGETDURATION:2\n#EXT-X-PART-INF:PART-TARGET=0.2\n#EXT-X-PART:DURATION=0.9,URI=\"part0.0.m4s\"\n",
            "the part part0.0.m4s lasts 0.900 s"
        ),
        (
            "#EXT-X-TARGETDURATION:2\n#EXT-X-PART-INF:PART-TARGET=30\n#EXT-X-PART:DURATION=0.2,URI=\"part0.0.m4s\"\n",
            "PART-TARGET must be"
        ),
        (
            "#EXT-X-TARGETDURATION:1\n" + String(repeating: "#EXTINF:1,\nseg0.m4s\n", count: 1001),
            "media.m3u8 lists 1001 segments; an origin takes at most 1000"
        ),
        // One part pushed once, listed 600 times: 600 copies of its bytes.
        (
            "#EXT-X-TARGETDURATION:2\n#EXT-X-PART-INF:PART-TARGET=0.2\n"
                + String(repeating: "#EXT-X-PART:DURATION=0.2,URI=\"part0.0.m4s\"\n", count: 600)
                + "#EXTINF:2,\nseg0.m4s\n",
            "media.m3u8 lists part0.0.m4s twice; each segment and part is listed once"
        ),
        (
            "#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nseg0.m4s\n#EXTINF:2,\nseg0.m4s\n",
            "media.m3u8 lists seg0.m4s twice"
        ),
        // Unstamped segments after it would be dated in the year 10000.
        (
            "#EXT-X-TARGETDURATION:2\n#EXT-X-PROGRAM-DATE-TIME:9999-12-31T23:59:59.000Z\n#EXTINF:2,\nseg0.m4s\n",
            "the EXT-X-PROGRAM-DATE-TIME of seg0.m4s is out of range (1970 to 9000)"
        ),
    ])
    func everyNumberAPublisherSendsIsBounded(body: String, reason: String) throws {
        var origin = IngestAssembler(channel: "demo")
        do {
            _ = try origin.put(.mediaPlaylist, bytes: Array(("#EXTM3U\n" + body).utf8), now: 0)
            Issue.record("taken: \(body.prefix(80))")
        } catch {
            guard case .badRequest(let said) = error else {
                Issue.record("refused otherwise: \(error)")
                return
            }
            #expect(said.contains(reason), "\(said)")
        }
    }

    @Test(arguments: [
        ("BANDWIDTH=900000000000000000", "BANDWIDTH 900000000000000000, out of range"),
        ("BANDWIDTH=2000000,AVERAGE-BANDWIDTH=900000000000000000", "AVERAGE-BANDWIDTH 900000000000000000, above"),
        ("BANDWIDTH=2000000,RESOLUTION=99999999999x99999999999", "RESOLUTION 99999999999x99999999999, out of range"),
        ("BANDWIDTH=2000000,CODECS=\"avc1\\\"<script>\"", "not a codec string"),
        ("BANDWIDTH=2000000,CODECS=\"avc1.64001f,<b>\"", "not a codec string"),
    ])
    func everyAttributeOfAMultivariantPlaylistIsChecked(attributes: String, reason: String) throws {
        var origin = IngestAssembler(channel: "demo")
        let pushed = "#EXTM3U\n#EXT-X-STREAM-INF:\(attributes)\nmedia.m3u8\n"
        do {
            _ = try origin.put(.multivariantPlaylist, bytes: Array(pushed.utf8), now: 0)
            Issue.record("taken: \(attributes)")
        } catch {
            guard case .badRequest(let said) = error else {
                Issue.record("refused otherwise: \(error)")
                return
            }
            #expect(said.contains(reason), "\(said)")
        }
    }
}
