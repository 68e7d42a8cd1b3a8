import HLSModel
import Testing

@testable import HLS

/// The broadcast's markers: ids, order, the limit, and what a packaging stage takes up.
@Suite struct MarkerBookTests {
    static let now: Int64 = 1_795_000_060_000

    @Test func markersAreNumberedKeptInTimeOrderAndTakenUpOnceChanged() throws {
        let book = MarkerBook()
        var seen = 0
        #expect(book.changes(since: &seen) == nil)
        let later = try book.add(title: "Two", at: Self.now, now: Self.now, earliest: Self.now - 60_000)
        let earlier = try book.add(title: "One", at: Self.now - 5000, now: Self.now, earliest: Self.now - 60_000)
        #expect(later.id == "m1-1795000060000" && earlier.id == "m2-1795000055000")
        #expect(book.markers.map(\.title) == ["One", "Two"])
        #expect(book.changes(since: &seen)?.map(\.title) == ["One", "Two"])
        #expect(seen == 2)
        #expect(book.changes(since: &seen) == nil)
    }

    @Test func aRefusedMarkerAddsNothingAndTheThousandAndFirstIs429() throws {
        let book = MarkerBook()
        #expect(throws: MarkerRefusal.badTitle("a marker needs a title")) {
            try book.add(title: " ", at: Self.now, now: Self.now, earliest: Self.now)
        }
        #expect(book.markers.isEmpty)
        for number in 0..<DateRange.maxCount {
            _ = try book.add(title: "Slide \(number)", at: Self.now - Int64(number), now: Self.now, earliest: 0)
        }
        #expect(throws: MarkerRefusal.full) {
            try book.add(title: "One more", at: Self.now, now: Self.now, earliest: 0)
        }
        #expect(book.markers.count == 1000)
    }
}

/// Where a recording's markers fall, and the MP4's chapters made of them.
@Suite struct RecordingChaptersTests {
    static let start: Int64 = 1_795_000_000_000

    static func recording(markers: [Int64]) -> MediaPlaylist {
        var playlist = MediaPlaylist(version: 6, targetDuration: 2)
        // Two segments, then a restart 60 s later: the export closes the hole up.
        playlist.segments = [0, 2000, 62_000].enumerated().map { index, offset in
            MediaPlaylist.Segment(
                uri: "seg\(index).m4s", duration: 2, programDateTime: start + offset, discontinuity: index == 2)
        }
        playlist.dateRanges = markers.enumerated().map { index, offset in
            DateRange(id: "m\(index)", start: start + offset, title: "T\(index)")
        }
        return playlist
    }

    @Test func eachMarkerIsPlacedInItsSegmentAndTheChaptersCoverTheFile() {
        let playlist = Self.recording(markers: [1250, 3000, 62_500])
        #expect(RecordingExport.places(of: playlist).map(\.seconds) == [1.25, 3, 4.5])
        let chapters = RecordingExport.chapters(of: playlist)
        #expect(chapters.map(\.title) == ["Start", "T0", "T1", "T2"])
        #expect(chapters.map(\.start) == [0, 1.25, 3, 4.5])
        #expect(chapters.map(\.end) == [1.25, 3, 4.5, 6])
        // A first marker at the start (under half a second in) is the first chapter itself.
        #expect(RecordingExport.chapters(of: Self.recording(markers: [300])).map(\.title) == ["T0"])
        #expect(RecordingExport.chapters(of: Self.recording(markers: [])).isEmpty)
    }
}
