import Foundation
import Testing

@testable import HLS
import HLSModel

/// A restarted channel: the earlier run's playlist read back, its numbering continued after a
/// discontinuity, its init segment kept while its segments are.
@Suite struct ContinuationTests {
    static let earlier = """
        #EXTM3U
        #EXT-X-VERSION:6
        #EXT-X-TARGETDURATION:2
        #EXT-X-MEDIA-SEQUENCE:7
        #EXT-X-DISCONTINUITY-SEQUENCE:1
        #EXT-X-INDEPENDENT-SEGMENTS
        #EXT-X-MAP:URI="init.mp4"
        #EXT-X-PROGRAM-DATE-TIME:2026-11-22T04:00:00.000Z
        #EXTINF:2.000,
        seg7.m4s
        #EXT-X-PROGRAM-DATE-TIME:2026-11-22T04:00:02.000Z
        #EXTINF:2.000,
        seg8.m4s

        """

    static func store(previous: Timeline.PreviousRun?) -> TestChannel {
        TestChannel(
            configuration: .init(
                channel: "demo", format: .fmp4, segmentDuration: 2, playlistSize: 3,
                codecs: ["avc1.64001f", "mp4a.40.2"], width: 1280, height: 720, fps: 30, videoBitrate: 1_872_000,
                audioBitrate: 128_000),
            startedAt: 1_795_320_010_000, continuing: previous)
    }

    @Test func aRestartContinuesTheNumbersAfterADiscontinuity() throws {
        let earlier = try #require(MediaPlaylist.parse(Self.earlier))
        let timeline = Self.store(
            previous: .init(playlist: earlier, files: ["init.mp4": [1], "seg7.m4s": [7], "seg8.m4s": [8]])
        ).timeline
        #expect(timeline.nextSequence == 9 && timeline.firstSequence == 9 && timeline.nextIsDiscontinuity)
        #expect(timeline.initSegmentName == .initSegment(continuing: 9))
        #expect(timeline.segments.map(\.name) == [.segment(7, .fmp4), .segment(8, .fmp4)])
        #expect(timeline.segments.map(\.end) == [-2, 0])
        #expect(timeline.discontinuitySequence == 1)
        // A playlist naming files this program never writes is not taken up, only its numbering.
        var foreign = earlier
        foreign.segments[1].uri = "../etc/passwd"
        let other = Self.store(previous: .init(playlist: foreign, files: ["../etc/passwd": [0]])).timeline
        #expect(other.nextSequence == 9 && other.segments.isEmpty)
    }

    @Test func aPlaylistReadsBackAsItWasWritten() throws {
        let playlist = try #require(MediaPlaylist.parse(Self.earlier))
        #expect(playlist.targetDuration == 2 && playlist.version == 6)
        #expect(playlist.mediaSequence == 7 && playlist.discontinuitySequence == 1)
        #expect(playlist.segments.map(\.uri) == ["seg7.m4s", "seg8.m4s"])
        #expect(playlist.segments.map(\.map) == ["init.mp4", "init.mp4"])
        #expect(playlist.segments.map(\.programDateTime) == [1_795_320_000_000, 1_795_320_002_000])
        #expect(!playlist.ended)
        var rendered = playlist
        rendered.segments = rendered.segments.map {
            var segment = $0; segment.map = nil; return segment
        }
        #expect(rendered.render() == Self.earlier)
    }

    @Test func notAPlaylistIsNil() {
        #expect(MediaPlaylist.parse("") == nil)
        #expect(MediaPlaylist.parse("hello\n") == nil)
        #expect(MediaPlaylist.parse("#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:-1\n#EXT-X-TARGETDURATION:2\n") == nil)
        #expect(MediaPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:2\nseg0.m4s\n") == nil, "a URI without EXTINF")
        // Found by the fuzzer: a duration too large to write back.
        #expect(MediaPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.e200,\nseg0.m4s\n") == nil)
        #expect(MediaPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:inf,\nseg0.m4s\n") == nil)
        #expect(MediaPlaylist.parse("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:nan,\nseg0.m4s\n") == nil)
    }

    @Test func programDateTimeReadsBackWhatItWrites() {
        for milliseconds: Int64 in [0, 951_782_400_123, 1_795_320_000_250, 4_102_444_799_999] {
            #expect(ProgramDateTime.parse(ProgramDateTime.format(milliseconds: milliseconds)) == milliseconds)
        }
        #expect(ProgramDateTime.parse("2026-11-22T04:00:00.250+01:00") == nil)
        #expect(ProgramDateTime.parse("2026-13-22T04:00:00.250Z") == nil)
    }

    @Test func theNumbersGoOnAfterADiscontinuityWithANewInitSegment() {
        let previous = Timeline.PreviousRun(
            playlist: MediaPlaylist.parse(Self.earlier)!,
            files: ["init.mp4": [1], "seg7.m4s": [7], "seg8.m4s": [8]])
        let store = Self.store(previous: previous)
        #expect(store.initSegmentName == "init9.mp4")
        #expect(store.continuation == (9, 2))
        #expect(store.file(named: "seg8.m4s")?.bytes == [8] && store.file(named: "init.mp4")?.bytes == [1])
        _ = store.setInitSegment([2])
        store.appendFragment([9], duration: 2, independent: true)
        let change = store.closeSegment(programDateTime: 1_795_320_010_000)
        #expect(change.events == [.segment(.segment(9, .fmp4))])
        #expect(
            String(decoding: store.file(named: "media.m3u8")!.bytes, as: UTF8.self) == """
                #EXTM3U
                #EXT-X-VERSION:6
                #EXT-X-TARGETDURATION:2
                #EXT-X-MEDIA-SEQUENCE:7
                #EXT-X-DISCONTINUITY-SEQUENCE:1
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-MAP:URI="init.mp4"
                #EXT-X-PROGRAM-DATE-TIME:2026-11-22T04:00:00.000Z
                #EXTINF:2.000,
                seg7.m4s
                #EXT-X-PROGRAM-DATE-TIME:2026-11-22T04:00:02.000Z
                #EXTINF:2.000,
                seg8.m4s
                #EXT-X-DISCONTINUITY
                #EXT-X-MAP:URI="init9.mp4"
                #EXT-X-PROGRAM-DATE-TIME:2026-11-22T04:00:10.000Z
                #EXTINF:2.000,
                seg9.m4s

                """)
        #expect(store.summary().segments == 1, "this run's segments")
    }

    @Test func theDiscontinuityIsCountedWhenItLeavesAndTheOldInitGoesWithItsSegments() {
        let previous = Timeline.PreviousRun(
            playlist: MediaPlaylist.parse(Self.earlier)!,
            files: ["init.mp4": [1], "seg7.m4s": [7], "seg8.m4s": [8]])
        let store = Self.store(previous: previous)
        _ = store.setInitSegment([2])
        var removed: [String] = []
        for index in 0..<12 {
            store.appendFragment([UInt8(index)], duration: 2, independent: true)
            removed += store.closeSegment(programDateTime: 1_795_320_010_000 + Int64(index) * 2000).removed
        }
        let playlist = String(decoding: store.file(named: "media.m3u8")!.bytes, as: UTF8.self)
        #expect(playlist.contains("#EXT-X-MEDIA-SEQUENCE:18\n#EXT-X-DISCONTINUITY-SEQUENCE:2\n"))
        #expect(playlist.contains("#EXT-X-MAP:URI=\"init9.mp4\"") && !playlist.contains("init.mp4"))
        #expect(!playlist.contains("#EXT-X-DISCONTINUITY\n"))
        #expect(removed.prefix(3) == ["seg7.m4s", "seg8.m4s", "init.mp4"])
        #expect(store.file(named: "init.mp4") == nil && store.file(named: "init9.mp4")?.bytes == [2])
    }

    @Test func missingFilesKeepTheNumbersButNotTheSegments() {
        let previous = Timeline.PreviousRun(
            playlist: MediaPlaylist.parse(Self.earlier)!, files: ["init.mp4": [1], "seg8.m4s": [8]])
        let store = Self.store(previous: previous)
        #expect(store.continuation == (9, 1), "only the newest segments whose files are all there")
        let other = TestChannel(
            configuration: .init(
                channel: "demo", format: .fmp4, segmentDuration: 4, playlistSize: 3, codecs: [], width: 1280,
                height: 720, fps: 30, videoBitrate: 1, audioBitrate: 1),
            startedAt: 0, continuing: previous)
        #expect(other.continuation == (9, 0), "another target duration cannot share the playlist")
    }
}
