import HLSModel
import Testing

@testable import Packaging
@testable import HLS

/// The captions' book and packager: what is taken, and which cues each part and segment lists.
@Suite struct CaptionPackagerTests {
    @Test func captionsAreTakenAllOrNoneWithinTheListedTime() throws {
        let book = CaptionBook()
        #expect(
            throws: CueRefusal("a caption must end after 10 s, the oldest moment still listed (this one ends at 9 s)")
        ) {
            try book.add([Cue(start: 8, end: 9, text: "old")], earliest: 10, latest: 20)
        }
        #expect(throws: CueRefusal("a caption cannot start in the future (1.5 s from now)")) {
            try book.add([Cue(start: 21.5, end: 22, text: "soon")], earliest: 10, latest: 20)
        }
        #expect(throws: CueRefusal("a caption needs text")) {
            try book.add(
                [Cue(start: 11, end: 12, text: "fine"), Cue(start: 12, end: 13, text: "")], earliest: 10, latest: 20)
        }
        #expect(
            throws: CueRefusal(
                "a caption must end after 10 s, the oldest moment still listed (this one ends at -1e+300 s)")
        ) {
            try book.add([Cue(start: -1e300, end: -1e300, text: "far")], earliest: 10, latest: 20)
        }
        #expect(throws: CueRefusal("a caption cannot start in the future (1e+300 s from now)")) {
            try book.add([Cue(start: 1e300, end: 1e300, text: "far")], earliest: 10, latest: 20)
        }
        #expect(book.last == nil)
        try book.add(
            [Cue(start: 11, end: 12, text: "one"), Cue(start: 12, end: 13, text: "two")], earliest: 10, latest: 20)
        var taken = 0
        #expect(book.added(since: &taken).map(\.text) == ["one", "two"])
        #expect(taken == 2 && book.added(since: &taken).isEmpty)
        for number in 0..<CaptionBook.kept {
            try book.add(
                [Cue(start: 13 + Double(number), end: 13.5 + Double(number), text: "\(number)")], earliest: 0,
                latest: .infinity)
        }
        // A reader that fell far behind gets what is kept.
        var behind = 1
        #expect(book.added(since: &behind).count == CaptionBook.kept)
        #expect(behind == CaptionBook.kept + 2)
    }

    @Test func aLongCaptionStillCountsOnScreenAfterManyShortOnes() throws {
        let book = CaptionBook()
        try book.add([Cue(start: 0, end: 30, text: "the whole talk")], earliest: 0, latest: 100)
        for number in 0..<100 {
            let start = 0.1 + Double(number) * 0.2
            try book.add([Cue(start: start, end: start + 0.1, text: "\(number)")], earliest: 0, latest: 100)
        }
        // Beside the long one and a short one: a third on screen.
        #expect(throws: CueRefusal("at most 2 captions are on screen at once")) {
            try book.add(
                [Cue(start: 20.15, end: 20.5, text: "a"), Cue(start: 20.16, end: 20.5, text: "b")], earliest: 0,
                latest: 100)
        }
        #expect(book.last?.text == "99")
    }

    @Test func eachPartListsTheCuesOverItAndALateOneGoesInTheNext() async throws {
        let timeline = Timeline(
            configuration: .init(
                channel: "talk", rendition: .captions(.init(language: "en", name: "English")), format: .webVTT,
                segmentDuration: 2, playlistSize: 6, partDuration: 1),
            firstSequence: 40)
        let store = LiveStore(timeline: timeline, startedAt: 0)
        let book = CaptionBook()
        let packager = CaptionPackager(
            timeline: timeline, book: book, sinks: [SinkRunner(store)], board: nil, markers: nil)
        try book.add([Cue(start: 0.5, end: 1.5, text: "spans two parts")], earliest: 0, latest: 1)
        packager.partEnded(from: 0, to: 1)
        // Said of 0.2–0.8 after that part was cut: in the next part and the segment.
        try book.add([Cue(start: 1.2, end: 1.8, text: "late")], earliest: 0, latest: 1.1)
        try book.add([Cue(start: 2.5, end: 3, text: "next segment")], earliest: 0, latest: 2.5)
        packager.segmentEnded(from: 0, lastPartFrom: 1, to: 2, programDateTime: 2000)
        #expect(await store.waitUntilListed(msn: 40, part: nil, timeout: .seconds(5)))
        func cues(_ name: String) -> [String] {
            let text = String(decoding: store.file(named: name)?.bytes ?? [], as: UTF8.self)
            return text.split(separator: "\n").filter {
                !$0.contains("-->") && !$0.hasPrefix("WEBVTT") && !$0.hasPrefix("X-")
            }
            .map(String.init)
        }
        #expect(cues("part40.0.vtt") == ["spans two parts"])
        #expect(cues("part40.1.vtt") == ["spans two parts", "late"])
        #expect(cues("seg40.vtt") == ["spans two parts", "late"])
        let playlist = String(decoding: store.mediaPlaylist(skip: nil), as: UTF8.self)
        #expect(playlist.contains("#EXT-X-MEDIA-SEQUENCE:40\n") && playlist.contains("#EXTINF:2.000,\nseg40.vtt\n"))
    }
}
