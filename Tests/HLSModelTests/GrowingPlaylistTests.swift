import Testing

@testable import HLSModel

/// A recording's growing playlist: 32 bytes a segment, and the same playlist as one built whole.
@Suite struct GrowingPlaylistTests {
    static let start: Int64 = 1_795_000_000_000

    @Test func aSegmentCosts32BytesAndThePlaylistIsTheOneBuiltWhole() {
        #expect(MemoryLayout<GrowingPlaylist.Entry>.stride == 32)
        // What a crashed run left: two segments, then this run's after a discontinuity, with an
        // init segment of its own from segment 2 and another (a restart of the publisher) from 4.
        var head = MediaPlaylist(version: 6, targetDuration: 2, initSegmentURI: "init.mp4")
        head.segments = (0..<2).map { number in
            MediaPlaylist.Segment(
                uri: "seg\(number).m4s", duration: 2, programDateTime: Self.start + Int64(number) * 2000,
                map: "init.mp4")
        }
        head.playlistType = .event
        var growing = GrowingPlaylist(head: head, format: .fmp4)
        var whole = head
        for number in 2..<6 {
            let map = number < 4 ? "init2.mp4" : "init4.mp4"
            let iFrame = number == 3 ? nil : IFrameRange(offset: 100 * number, length: 5000 + number)
            let pdt = Self.start + 60_000 + Int64(number) * 2000
            growing.append(
                number: number, duration: 1.5, programDateTime: pdt, discontinuity: number == 2 || number == 4,
                map: map, iFrame: iFrame)
            whole.segments.append(
                MediaPlaylist.Segment(
                    uri: "seg\(number).m4s", duration: 1.5, programDateTime: pdt,
                    discontinuity: number == 2 || number == 4, map: map, iFrame: iFrame))
        }
        #expect(growing.count == 6)
        #expect(growing.firstProgramDateTime == Self.start)
        #expect(Self.text(of: growing) == whole.render())
        #expect(Self.text(of: growing, iFrames: true) == whole.iFramePlaylist().render())
        #expect(Self.text(of: growing).contains("#EXT-X-MAP:URI=\"init4.mp4\"\n#EXT-X-PROGRAM-DATE-TIME"))
        // Markers go where the whole playlist puts them: before the segment they start in, and
        // after the last one when they start later; then EXT-X-ENDLIST.
        growing.head.dateRanges = [
            DateRange(id: "intro", start: Self.start + 1000, title: "Intro"),
            DateRange(id: "later", start: Self.start + 60_000 + 7000, title: "Later"),
            DateRange(id: "next", start: Self.start + 90_000, title: "Next"),
        ]
        growing.head.ended = true
        growing.head.playlistType = .vod
        whole.dateRanges = growing.head.dateRanges
        whole.ended = true
        whole.playlistType = .vod
        #expect(Self.text(of: growing) == whole.render())
        #expect(Self.text(of: growing, iFrames: true) == whole.iFramePlaylist().render())
    }

    @Test func itsTextComesInPiecesOfTheSizeAskedForAndIsTheWholePlaylistsText() {
        var growing = GrowingPlaylist(head: MediaPlaylist(version: 7, targetDuration: 2), format: .fmp4)
        var whole = MediaPlaylist(version: 7, targetDuration: 2, initSegmentURI: "init.mp4")
        for number in 0..<1000 {
            let pdt = Self.start + Int64(number) * 2000
            let iFrame = IFrameRange(offset: 812, length: 40_000 + number)
            growing.append(
                number: number, duration: 2, programDateTime: pdt, discontinuity: false, map: "init.mp4",
                iFrame: iFrame)
            whole.segments.append(
                MediaPlaylist.Segment(uri: "seg\(number).m4s", duration: 2, programDateTime: pdt, iFrame: iFrame))
        }
        var pieces: [[UInt8]] = []
        growing.render(piece: 4096) { pieces.append($0) }
        let expected = Array(whole.render().utf8)
        #expect(pieces.joined().elementsEqual(expected))
        // Each piece is cut after the segment that takes it past 4096 bytes: one segment's lines
        // (79 bytes here) at most beyond it, and the last piece is what is left.
        #expect(pieces.dropLast().allSatisfy { $0.count >= 4096 && $0.count < 4096 + 80 })
        #expect(pieces.count > expected.count / (4096 + 80) && pieces.last!.count < 4096 + 80)
    }

    @Test func aNewRecordingTakesItsFirstInitSegmentAsThePlaylists() {
        var growing = GrowingPlaylist(head: MediaPlaylist(version: 6, targetDuration: 2), format: .fmp4)
        #expect(growing.count == 0 && growing.firstProgramDateTime == nil)
        growing.append(
            number: 0, duration: 2, programDateTime: Self.start, discontinuity: false, map: "init.mp4", iFrame: nil)
        #expect(
            Self.text(of: growing) == """
                #EXTM3U
                #EXT-X-VERSION:6
                #EXT-X-TARGETDURATION:2
                #EXT-X-MEDIA-SEQUENCE:0
                #EXT-X-DISCONTINUITY-SEQUENCE:0
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-MAP:URI="init.mp4"
                #EXT-X-PROGRAM-DATE-TIME:2026-11-18T11:06:40.000Z
                #EXTINF:2.000,
                seg0.m4s

                """)
        // A range past 32 bits is not a keyframe a segment can have: listed as none, a gap in the
        // I-frame playlist (which then needs version 8).
        growing.append(
            number: 1, duration: 2, programDateTime: Self.start + 2000, discontinuity: false, map: "init.mp4",
            iFrame: IFrameRange(offset: 1 << 33, length: 10))
        let iFrames = Self.text(of: growing, iFrames: true)
        #expect(iFrames.hasPrefix("#EXTM3U\n#EXT-X-VERSION:8\n"))
        #expect(iFrames.hasSuffix("#EXT-X-GAP\n#EXTINF:2.000,\nseg1.m4s\n"))
        #expect(!iFrames.contains("#EXT-X-BYTERANGE"))
    }

    /// The text `render` hands on, whole.
    static func text(of growing: GrowingPlaylist, iFrames: Bool = false) -> String {
        var bytes: [UInt8] = []
        growing.render(iFrames: iFrames) { bytes += $0 }
        return String(decoding: bytes, as: UTF8.self)
    }
}
