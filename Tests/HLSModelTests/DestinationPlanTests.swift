import Testing
import FoundationEssentials

@testable import HLSModel

/// What a live destination (a push, the folder) is sent, lists and removes, with exact values.
@Suite struct DestinationPlanTests {
    static func timeline(partDuration: Double? = nil, segments: Int, openParts: Int = 0) -> Timeline {
        var timeline = Timeline(
            configuration: .init(
                channel: "demo",
                rendition: Rendition(
                    width: 640, height: 360, fps: 30, videoBitrate: 800_000, audioBitrate: 64_000,
                    codecs: ["avc1.64001e", "mp4a.40.2"]),
                format: .fmp4, segmentDuration: 2, playlistSize: 3, partDuration: partDuration))
        _ = timeline.setInitSegment([0])
        for index in 0..<segments {
            _ = timeline.appendPart([UInt8(index)], duration: 1, independent: true)
            _ = timeline.appendPart([UInt8(index)], duration: 1, independent: false)
            _ = timeline.closeSegment(programDateTime: 1_000_000 + Int64(index) * 2000)
        }
        for _ in 0..<openParts {
            _ = timeline.appendPart([9], duration: 1, independent: false)
        }
        return timeline
    }

    @Test func sendsInitThenSegmentsOldestFirstAndOnlyWhatIsMissing() {
        let timeline = Self.timeline(segments: 5)
        var progress = DestinationPlan(sendsParts: false)
        // seg0 and seg1 have left the playlist (size 3): listed are seg2–4.
        #expect(progress.missing(in: timeline).map(\.description) == ["init.mp4", "seg2.m4s", "seg3.m4s", "seg4.m4s"])
        progress.stored = [.initSegment(continuing: nil), .segment(2, .fmp4)]
        #expect(progress.missing(in: timeline).map(\.description) == ["seg3.m4s", "seg4.m4s"])
        #expect(!progress.canList(timeline))
        progress.gaps = [3]
        #expect(progress.missing(in: timeline).map(\.description) == ["seg4.m4s"])
        progress.stored.insert(.segment(4, .fmp4))
        #expect(progress.canList(timeline))
        // Not before the init segment the playlist's EXT-X-MAP names is there.
        progress.stored.remove(.initSegment(continuing: nil))
        #expect(!progress.canList(timeline))
    }

    @Test func aSegmentGivenUpIsAGapInTheDestinationsPlaylist() {
        let timeline = Self.timeline(segments: 4)
        var progress = DestinationPlan(sendsParts: false)
        progress.stored = [.initSegment(continuing: nil), .segment(1, .fmp4), .segment(3, .fmp4)]
        progress.gaps = [2]
        let text = progress.playlist(for: timeline).render()
        #expect(text.contains("#EXT-X-VERSION:8\n"))
        #expect(text.contains("#EXT-X-GAP\n#EXTINF:2.000,\nseg2.m4s\n"))
        #expect(text.components(separatedBy: "#EXT-X-GAP").count == 2)
        // Once it has left the timeline, the gap is forgotten and the version falls back.
        var later = timeline
        for index in 4..<12 {
            _ = later.appendPart([1], duration: 2, independent: true)
            _ = later.closeSegment(programDateTime: 1_000_000 + Int64(index) * 2000)
        }
        progress.forgetGaps(leaving: later)
        #expect(progress.gaps.isEmpty)
    }

    @Test func lowLatencyListsOnlyPartsThatAreThere() {
        let timeline = Self.timeline(partDuration: 1, segments: 2, openParts: 2)
        var progress = DestinationPlan(sendsParts: true)
        // The newest segment's parts and the open ones, before the segments.
        #expect(
            progress.missing(in: timeline).map(\.description) == [
                "init.mp4", "part1.0.m4s", "part1.1.m4s", "part2.0.m4s", "part2.1.m4s", "seg0.m4s", "seg1.m4s",
            ])
        progress.stored = [
            .initSegment(continuing: nil), .segment(0, .fmp4), .segment(1, .fmp4), .part(1, 0, .fmp4),
            .part(2, 0, .fmp4),
        ]
        let playlist = progress.playlist(for: timeline)
        // seg1 lacks a part: no part tags for it; of the open parts, only the first is there.
        #expect(playlist.segments.map(\.parts.count) == [0, 0])
        #expect(playlist.lowLatency?.openParts.map(\.uri) == ["part2.0.m4s"])
        #expect(playlist.lowLatency?.preloadHint == "part2.1.m4s")
        // A bucket is sent whole segments and a playlist without parts.
        let whole = DestinationPlan(sendsParts: false)
        #expect(whole.playlist(for: timeline).lowLatency == nil)
        #expect(!whole.missing(in: timeline).contains { if case .part = $0 { true } else { false } })
    }

    @Test func removesWhatTheTimelineNoLongerHolds() {
        let timeline = Self.timeline(segments: 8)
        var progress = DestinationPlan(sendsParts: false)
        progress.stored = Set((0..<8).map { MediaFileName.segment($0, .fmp4) } + [.initSegment(continuing: nil)])
        // At 16 s seg0 expired (left at 8 s, available 2 + 6 s more); seg1 is still downloadable.
        #expect(timeline.segments.first?.sequence == 1)
        #expect(progress.removable(in: timeline) == [.segment(0, .fmp4)])
        // A segment whose sending failed midway may have arrived: it goes too, once let go of.
        progress.stored = []
        progress.attempted = [.segment(0, .fmp4), .segment(5, .fmp4)]
        #expect(progress.removable(in: timeline) == [.segment(0, .fmp4)])
    }

    @Test func aSegmentIsLateOneSegmentDurationAfterItWasCut() {
        let timeline = Self.timeline(segments: 1)
        let segment = timeline.segments[0]
        // Cut at 1_002_000 ms (start + 2 s): late after 1_004_000.
        #expect(!DestinationPlan.isLate(segment, nowMilliseconds: 1_004_000))
        #expect(DestinationPlan.isLate(segment, nowMilliseconds: 1_004_001))
    }

    @Test func aDestinationThatLostItsFilesGetsEveryOneAgain() {
        var progress = DestinationPlan(sendsParts: false)
        progress.stored = [.initSegment(continuing: nil), .segment(3, .fmp4)]
        progress.playlists[.mediaPlaylist] = [1]
        progress.destinationLostFiles()
        #expect(progress.stored.isEmpty && progress.playlists.isEmpty)
        // Still removed once the timeline lets go of them: they may be there after all.
        #expect(progress.attempted == [.initSegment(continuing: nil), .segment(3, .fmp4)])
    }
}
