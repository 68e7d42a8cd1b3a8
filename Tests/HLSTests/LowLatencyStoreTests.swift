import HLSModel
import Foundation
import Testing

@testable import HLS

@Suite struct LowLatencyStoreTests {
    static func store(playlistSize: Int = 3) -> TestChannel {
        TestChannel(
            configuration: .init(
                channel: "demo", format: .fmp4, segmentDuration: 2, playlistSize: playlistSize,
                codecs: ["avc1.64001f", "mp4a.40.2"], width: 1280, height: 720, fps: 30, videoBitrate: 1_872_000,
                audioBitrate: 128_000, partDuration: 0.5),
            startedAt: 1_795_000_000_000)
    }

    /// Four 0.5 s parts a segment; `parts` more of the next one.
    @discardableResult
    static func publish(_ store: TestChannel, segments: Int, from first: Int = 0, parts: Int = 0)
        -> [Publication]
    {
        let changes = (first..<(first + segments)).map { index in
            for part in 0..<4 {
                store.appendFragment([UInt8(index % 256), UInt8(part)], duration: 0.5, independent: part == 0)
            }
            return store.closeSegment(programDateTime: 1_795_000_000_000 + Int64(index) * 2000)
        }
        for part in 0..<parts {
            store.appendFragment([0xFF, UInt8(part)], duration: 0.5, independent: part == 0)
        }
        return changes
    }

    static func playlist(_ store: TestChannel, skip: Bool = false) -> String {
        String(decoding: store.mediaPlaylist(skip: skip), as: UTF8.self)
    }

    @Test func playlistListsPartsTheOpenSegmentAndTheNextPart() {
        let store = Self.store()
        Self.publish(store, segments: 1, parts: 2)
        #expect(
            Self.playlist(store) == """
                #EXTM3U
                #EXT-X-VERSION:6
                #EXT-X-TARGETDURATION:2
                #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,CAN-SKIP-UNTIL=12.000,CAN-SKIP-DATERANGES=YES,HOLD-BACK=6.000,PART-HOLD-BACK=1.500
                #EXT-X-PART-INF:PART-TARGET=0.500
                #EXT-X-MEDIA-SEQUENCE:0
                #EXT-X-DISCONTINUITY-SEQUENCE:0
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-MAP:URI="init.mp4"
                #EXT-X-PROGRAM-DATE-TIME:2026-11-18T11:06:40.000Z
                #EXT-X-PART:DURATION=0.500,URI="part0.0.m4s",INDEPENDENT=YES
                #EXT-X-PART:DURATION=0.500,URI="part0.1.m4s"
                #EXT-X-PART:DURATION=0.500,URI="part0.2.m4s"
                #EXT-X-PART:DURATION=0.500,URI="part0.3.m4s"
                #EXTINF:2.000,
                seg0.m4s
                #EXT-X-PART:DURATION=0.500,URI="part1.0.m4s",INDEPENDENT=YES
                #EXT-X-PART:DURATION=0.500,URI="part1.1.m4s"
                #EXT-X-PRELOAD-HINT:TYPE=PART,URI="part1.2.m4s"

                """)
        #expect(store.file(named: "part1.1.m4s")?.bytes == [0xFF, 1])
        #expect(store.file(named: "part0.2.m4s")?.bytes == [0, 2])
        #expect(store.file(named: "seg0.m4s")?.bytes == [0, 0, 0, 1, 0, 2, 0, 3])
        #expect(store.file(named: "part1.2.m4s") == nil)
    }

    @Test func partTagsLeaveAfterThreeTargetDurationsAndTheirFilesThreeLater() {
        let store = Self.store(playlistSize: 10)
        Self.publish(store, segments: 5)  // edge at 10 s
        let text = Self.playlist(store)
        #expect(!text.contains("part1.0.m4s"))  // ends at 4 s: 6 s from the edge
        #expect(text.contains("URI=\"part2.0.m4s\""))  // ends at 6 s
        #expect(store.file(named: "part1.0.m4s") != nil)
        Self.publish(store, segments: 4, from: 5)  // edge at 18 s: seg1 ended 14 s ago, seg2 12 s ago
        #expect(store.file(named: "part1.0.m4s") == nil)
        #expect(store.file(named: "part2.0.m4s") != nil)
        #expect(store.file(named: "seg1.m4s") != nil)
    }

    @Test func deltaUpdateSkipsSegmentsOlderThanCanSkipUntil() {
        let store = Self.store(playlistSize: 10)
        Self.publish(store, segments: 10)  // edge at 20 s; CAN-SKIP-UNTIL 12 s: seg0–2 end before 8 s
        let delta = Self.playlist(store, skip: true)
        #expect(delta.contains("#EXT-X-VERSION:9\n"))
        #expect(
            delta.contains("#EXT-X-MAP:URI=\"init.mp4\"\n#EXT-X-SKIP:SKIPPED-SEGMENTS=3\n#EXT-X-PROGRAM-DATE-TIME:"))
        #expect(!delta.contains("seg2.m4s") && delta.contains("seg3.m4s"))
        #expect(Self.playlist(store).contains("seg0.m4s"))
        // With nothing old enough to skip, the delta update is the whole playlist.
        let short = Self.store()
        Self.publish(short, segments: 3)
        #expect(Self.playlist(short, skip: true) == Self.playlist(short))
    }

    @Test func folderPlaylistNamesNoPartFile() throws {
        let store = Self.store()
        Self.publish(store, segments: 2)
        let text = store.timeline.wholeSegmentPlaylist().render()
        #expect(!text.contains("PART") && !text.contains("SERVER-CONTROL") && text.hasSuffix("seg1.m4s\n"))
    }

    @Test func blockedReloadReturnsWhenThePartExists() async {
        let store = Self.store()
        Self.publish(store, segments: 1)
        async let listed = store.waitUntilListed(msn: 1, part: 1, timeout: .seconds(10))
        try? await Task.sleep(for: .milliseconds(50))
        store.appendFragment([1], duration: 0.5, independent: true)
        store.appendFragment([2], duration: 0.5, independent: false)
        #expect(await listed)
        #expect(await store.waitUntilListed(msn: 0, part: nil, timeout: .seconds(1)))
        #expect(await store.waitUntilListed(msn: 1, part: 2, timeout: .milliseconds(20)) == false)
    }

    @Test func endingTheStreamReleasesEveryHeldRequest() async {
        let store = Self.store()
        async let listed = store.waitUntilListed(msn: 2, part: nil, timeout: .seconds(10))
        try? await Task.sleep(for: .milliseconds(50))
        _ = store.end()
        #expect(await listed)
    }

    @Test func preloadHintedPartIsHeldUntilComplete() async {
        let store = Self.store()
        Self.publish(store, segments: 1)
        async let part = store.part(named: "part1.0.m4s", timeout: .seconds(10))
        try? await Task.sleep(for: .milliseconds(50))
        store.appendFragment([7, 7], duration: 0.5, independent: true)
        #expect(await part?.bytes == [7, 7])
        // Only the next part is waited for.
        #expect(await store.part(named: "part1.5.m4s", timeout: .seconds(10)) == nil)
        #expect(await store.part(named: "part9.0.m4s", timeout: .seconds(10)) == nil)
    }

    @Test func reloadsTooFarAheadOrWithoutSequenceAreRefused() {
        let store = Self.store()
        Self.publish(store, segments: 2)  // last segment: 1
        #expect(throws: LiveFile.Refusal.badRequest("_HLS_part needs _HLS_msn")) {
            try store.checkReload(msn: nil, part: 0)
        }
        #expect(throws: LiveFile.Refusal.badRequest("_HLS_msn=4 is more than 2 segments after the last one, 1")) {
            try store.checkReload(msn: 4, part: nil)
        }
        #expect(throws: Never.self) { try store.checkReload(msn: 3, part: 2) }
        #expect(throws: Never.self) { try store.checkReload(msn: nil, part: nil) }
    }
}
