import HLSModel
import Foundation
import Runtime
import Testing

@testable import HLS

/// The recording: every segment kept under its own numbers, EVENT then VOD, continued after a
/// crash, and where a broadcast is recorded.
@Suite struct RecordingSinkTests {
    static let idle = SinkBacklog(skipped: 0, waiting: 0)

    @Test func everySegmentIsKeptUnderItsOwnNumbersAndTheEndMakesItVOD() throws {
        let folder = DirectoryMirrorTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = try RecordingSink(recording: folder) { _, _ in }
        let store = LiveStoreTests.store(playlistSize: 3)
        recorder.receive(try #require(store.setInitSegment([9, 9])), backlog: Self.idle)
        // The live playlist holds 3 segments; the recording all 5.
        for publication in LiveStoreTests.publish(store, count: 5, bytes: 10) {
            recorder.receive(publication, backlog: Self.idle)
        }
        let playlist = { try String(contentsOf: folder.appendingPathComponent("media.m3u8"), encoding: .utf8) }
        let pdt = { (index: Int) in ProgramDateTime.format(milliseconds: 1_795_000_000_000 + Int64(index) * 2000) }
        let listing = (0..<5).map { "#EXT-X-PROGRAM-DATE-TIME:\(pdt($0))\n#EXTINF:2.000,\nseg\($0).m4s\n" }.joined()
        #expect(
            try playlist() == """
                #EXTM3U
                #EXT-X-VERSION:6
                #EXT-X-TARGETDURATION:2
                #EXT-X-PLAYLIST-TYPE:EVENT
                #EXT-X-MEDIA-SEQUENCE:0
                #EXT-X-DISCONTINUITY-SEQUENCE:0
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-MAP:URI="init.mp4"

                """ + listing)
        #expect(try Data(contentsOf: folder.appendingPathComponent("seg4.m4s")) == Data(repeating: 4, count: 10))
        recorder.receive(store.end(), backlog: Self.idle)
        #expect(try playlist().contains("#EXT-X-PLAYLIST-TYPE:VOD\n"))
        #expect(try playlist().hasSuffix("seg4.m4s\n#EXT-X-ENDLIST\n"))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
                == [".onair-recording", "index.m3u8", "init.mp4", "media.m3u8"] + (0..<5).map { "seg\($0).m4s" })
    }

    @Test func aCrashedRecordingGoesOnAfterADiscontinuityWithItsOwnInitSegment() throws {
        let folder = DirectoryMirrorTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let first = try RecordingSink(recording: folder) { _, _ in }
        let before = LiveStoreTests.store()
        first.receive(try #require(before.setInitSegment([1])), backlog: Self.idle)
        for publication in LiveStoreTests.publish(before, count: 2, bytes: 10) {
            first.receive(publication, backlog: Self.idle)
        }
        // Killed: no end. The next broadcast finds the EVENT playlist and goes on from it.
        let plan = RecordingPlan.plan(
            root: folder.deletingLastPathComponent(), channel: ChannelName(folder.lastPathComponent)!,
            renditions: [nil],
            format: .fmp4, startedAt: 0)
        #expect(plan.continuing.isEmpty, "a folder not named by a start time is not a recording")
        let left = try #require(
            MediaPlaylist.parse(try String(contentsOf: folder.appendingPathComponent("media.m3u8"), encoding: .utf8)))
        let second = try RecordingSink(recording: folder, continuing: left) { _, _ in }
        let after = LiveStoreTests.store()
        second.receive(try #require(after.setInitSegment([2])), backlog: Self.idle)
        for publication in LiveStoreTests.publish(after, count: 1, bytes: 10) {
            second.receive(publication, backlog: Self.idle)
        }
        second.receive(after.end(), backlog: Self.idle)
        let text = try String(contentsOf: folder.appendingPathComponent("media.m3u8"), encoding: .utf8)
        #expect(
            text.hasSuffix(
                "seg1.m4s\n#EXT-X-DISCONTINUITY\n#EXT-X-MAP:URI=\"init2.mp4\"\n#EXT-X-PROGRAM-DATE-TIME:\(ProgramDateTime.format(milliseconds: 1_795_000_000_000))\n#EXTINF:2.000,\nseg2.m4s\n#EXT-X-ENDLIST\n"
            ))
        #expect(try Data(contentsOf: folder.appendingPathComponent("init2.mp4")) == Data([2]))
    }

    @Test func segmentsTheLiveTimelineLetGoBeforeTheyCouldBeWrittenAreMissingAfterADiscontinuity() throws {
        let folder = DirectoryMirrorTests.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let recorder = try RecordingSink(recording: folder) { _, _ in }
        let store = LiveStoreTests.store(playlistSize: 3)
        recorder.receive(try #require(store.setInitSegment([9])), backlog: Self.idle)
        let publications = LiveStoreTests.publish(store, count: 20, bytes: 10)
        recorder.receive(publications[0], backlog: Self.idle)
        // The folder could not be written meanwhile: the next publication it takes is the 20th.
        recorder.receive(publications[19], backlog: Self.idle)
        let kept = try #require(
            MediaPlaylist.parse(try String(contentsOf: folder.appendingPathComponent("media.m3u8"), encoding: .utf8)))
        let first = store.timeline.segments.first!.sequence
        #expect(first > 1, "the live timeline let segments go")
        #expect(kept.segments.count == 1 + (20 - first))
        #expect(kept.segments.map(\.discontinuity) == [false, true] + Array(repeating: false, count: 19 - first))
        #expect(kept.segments.map(\.uri) == (0..<kept.segments.count).map { "seg\($0).m4s" })
        #expect(
            try Data(contentsOf: folder.appendingPathComponent("seg1.m4s")) == Data(repeating: UInt8(first), count: 10))
    }

    @Test func aBroadcastIsRecordedInAFolderNamedByItsStartOrContinuesAnUnfinishedOne() throws {
        #expect(RecordingPlan.folderName(startedAt: 1_795_000_000_123) == "2026-11-18T11-06-40Z")
        #expect(RecordingPlan.isStartTime("2026-11-18T11-06-40Z"))
        #expect(!RecordingPlan.isStartTime("2026-11-18T11:06:40Z") && !RecordingPlan.isStartTime("notes"))
        let root = DirectoryMirrorTests.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let fresh = RecordingPlan.plan(
            root: root, channel: "demo", renditions: [nil], format: .fmp4, startedAt: 1_795_000_000_123)
        #expect(fresh.folder.lastPathComponent == "2026-11-18T11-06-40Z" && fresh.continuing.isEmpty)
        // An unfinished recording (EVENT, no ENDLIST) is continued; a finished one is not.
        let recorder = try RecordingSink(recording: fresh.folder) { _, _ in }
        let store = LiveStoreTests.store()
        recorder.receive(try #require(store.setInitSegment([1])), backlog: Self.idle)
        for publication in LiveStoreTests.publish(store, count: 1, bytes: 10) {
            recorder.receive(publication, backlog: Self.idle)
        }
        let later = RecordingPlan.plan(
            root: root, channel: "demo", renditions: [nil], format: .fmp4, startedAt: 1_795_000_900_000)
        #expect(later.folder.path == fresh.folder.path, "\(later.folder) \(fresh.folder)")
        #expect(later.continuing[nil]?.segments.count == 1)
        recorder.receive(store.end(), backlog: Self.idle)
        let next = RecordingPlan.plan(
            root: root, channel: "demo", renditions: [nil], format: .fmp4, startedAt: 1_795_000_900_000)
        #expect(next.folder.lastPathComponent == "2026-11-18T11-21-40Z" && next.continuing.isEmpty)
        // A broadcast started within the second of a finished recording's start does not write into it.
        let same = RecordingPlan.plan(
            root: root, channel: "demo", renditions: [nil], format: .fmp4, startedAt: 1_795_000_000_900)
        #expect(same.folder.lastPathComponent == "2026-11-18T11-06-41Z")
        // A ladder continues only when every rendition's playlist is there and unfinished.
        #expect(
            RecordingPlan.plan(root: root, channel: "demo", renditions: ["720p"], format: .fmp4, startedAt: 0)
                .continuing.isEmpty)
        // And only a recording of the same container.
        let unfinished = RecordingPlan.plan(
            root: root, channel: "demo", renditions: [nil], format: .fmp4, startedAt: 1_795_000_900_000)
        let other = try RecordingSink(recording: unfinished.folder) { _, _ in }
        let ts = LiveStoreTests.store(format: .ts)
        for publication in LiveStoreTests.publish(ts, count: 1, bytes: 10) {
            other.receive(publication, backlog: Self.idle)
        }
        #expect(
            RecordingPlan.plan(root: root, channel: "demo", renditions: [nil], format: .ts, startedAt: 0).continuing
                .count == 1)
        #expect(
            RecordingPlan.plan(root: root, channel: "demo", renditions: [nil], format: .fmp4, startedAt: 0).continuing
                .isEmpty)
        // A folder onair did not make (no mark), unfinished playlist and all, is never continued.
        let foreign = root.appendingPathComponent("demo/2099-01-01T00-00-00Z")
        try FileManager.default.createDirectory(at: foreign, withIntermediateDirectories: true)
        try Data("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nseg0.ts\n".utf8).write(
            to: foreign.appendingPathComponent("media.m3u8"))
        let beside = RecordingPlan.plan(
            root: root, channel: "demo", renditions: [nil], format: .ts, startedAt: 1_795_000_900_000)
        #expect(beside.continuing.isEmpty && beside.folder.path != foreign.path)
    }
}
