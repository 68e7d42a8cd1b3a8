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
        #expect(growing.playlist.render() == whole.render())
        #expect(growing.playlist.iFramePlaylist().render() == whole.iFramePlaylist().render())
        #expect(growing.playlist.render().contains("#EXT-X-MAP:URI=\"init4.mp4\"\n#EXT-X-PROGRAM-DATE-TIME"))
    }

    @Test func aNewRecordingTakesItsFirstInitSegmentAsThePlaylists() {
        var growing = GrowingPlaylist(head: MediaPlaylist(version: 6, targetDuration: 2), format: .fmp4)
        #expect(growing.count == 0 && growing.firstProgramDateTime == nil)
        growing.append(
            number: 0, duration: 2, programDateTime: Self.start, discontinuity: false, map: "init.mp4", iFrame: nil)
        let playlist = growing.playlist
        #expect(playlist.initSegmentURI == "init.mp4")
        #expect(playlist.segments.map(\.uri) == ["seg0.m4s"])
        // A range past 32 bits is not a keyframe a segment can have: listed as none.
        growing.append(
            number: 1, duration: 2, programDateTime: Self.start + 2000, discontinuity: false, map: "init.mp4",
            iFrame: IFrameRange(offset: 1 << 33, length: 10))
        #expect(growing.playlist.segments[1].iFrame == nil)
    }
}
