import HLSModel
import Foundation
import Testing

@testable import HLS

@Suite struct LiveStoreTests {
    static func store(format: ContainerFormat = .fmp4, playlistSize: Int = 3) -> TestChannel {
        TestChannel(
            configuration: .init(
                channel: "demo", format: format, segmentDuration: 2, playlistSize: playlistSize,
                codecs: ["avc1.64001f", "mp4a.40.2"], width: 1280, height: 720, fps: 30, videoBitrate: 1_872_000,
                audioBitrate: 128_000),
            startedAt: 1_795_000_000_000)
    }

    /// Lists `count` 2-second segments of `bytes` bytes each.
    @discardableResult
    static func publish(_ store: TestChannel, count: Int, from first: Int = 0, bytes: Int = 500_000) -> [Publication] {
        (first..<(first + count)).map { index in
            store.appendFragment(
                [UInt8](repeating: UInt8(index % 256), count: bytes), duration: 2, independent: true)
            return store.closeSegment(programDateTime: 1_795_000_000_000 + Int64(index) * 2000)
        }
    }

    static func playlist(_ store: TestChannel) -> String {
        String(decoding: store.file(named: "media.m3u8")!.bytes, as: UTF8.self)
    }

    @Test func windowSlidesAndMediaSequenceCountsRemovedSegments() {
        let store = Self.store()
        Self.publish(store, count: 5)
        let text = Self.playlist(store)
        #expect(text.contains("#EXT-X-MEDIA-SEQUENCE:2\n"))
        #expect(text.components(separatedBy: "#EXTINF").count - 1 == 3)
        #expect(
            text.hasSuffix(
                "seg2.m4s\n#EXT-X-PROGRAM-DATE-TIME:2026-11-18T11:06:46.000Z\n#EXTINF:2.000,\nseg3.m4s\n#EXT-X-PROGRAM-DATE-TIME:2026-11-18T11:06:48.000Z\n#EXTINF:2.000,\nseg4.m4s\n"
            ))
    }

    @Test func segmentLeavingTheWindowStaysForItsDurationPlusThePlaylistDuration() {
        let store = Self.store()
        Self.publish(store, count: 4)  // seg0 leaves at t=8: kept until 8 + 2 + 6 = 16
        #expect(store.file(named: "seg0.m4s") != nil)
        let changes = Self.publish(store, count: 3, from: 4)  // t = 10, 12, 14
        #expect(changes.allSatisfy { $0.removed.isEmpty })
        #expect(store.file(named: "seg0.m4s") != nil)
        let next = Self.publish(store, count: 1, from: 7)  // t = 16: seg0 goes
        #expect(next[0].removed == ["seg0.m4s"])
        #expect(store.file(named: "seg0.m4s") == nil)
        #expect(
            store.heldSegmentNames == [
                "seg1.m4s", "seg2.m4s", "seg3.m4s", "seg4.m4s", "seg5.m4s", "seg6.m4s", "seg7.m4s",
            ])
    }

    @Test func segmentIsTheConcatenationOfItsFragments() {
        let store = Self.store()
        store.appendFragment([1, 2], duration: 1, independent: true)
        store.appendFragment([3], duration: 1, independent: false)
        _ = store.closeSegment(programDateTime: 0)
        #expect(store.file(named: "seg0.m4s")?.bytes == [1, 2, 3])
        #expect(store.file(named: "seg0.m4s")?.contentType == "video/mp4")
        #expect(store.file(named: "seg0.m4s")?.immutable == true)
    }

    @Test func endAddsEndlist() {
        let store = Self.store()
        Self.publish(store, count: 1)
        _ = store.end()
        #expect(Self.playlist(store).hasSuffix("seg0.m4s\n#EXT-X-ENDLIST\n"))
        #expect(store.summary().state == .ended)
    }

    @Test func multivariantBandwidthIsMeasuredFromSegments() {
        let store = Self.store()
        let before = String(decoding: store.file(named: "index.m3u8")!.bytes, as: UTF8.self)
        // Before any segment: the targets, 2 Mb/s, plus 10 % for the container.
        #expect(before.contains("BANDWIDTH=2200000,AVERAGE-BANDWIDTH=2200000"))
        store.appendFragment([UInt8](repeating: 0, count: 250_000), duration: 2, independent: true)  // 1 Mb/s
        _ = store.closeSegment(programDateTime: 0)
        store.appendFragment([UInt8](repeating: 0, count: 750_000), duration: 2, independent: true)  // 3 Mb/s
        _ = store.closeSegment(programDateTime: 2000)
        let after = String(decoding: store.file(named: "index.m3u8")!.bytes, as: UTF8.self)
        #expect(after.contains("BANDWIDTH=3000000,AVERAGE-BANDWIDTH=2000000,CODECS=\"avc1.64001f,mp4a.40.2\""))
    }

    @Test func tsSegmentsHaveTheirTypeAndNoInitSegment() {
        let store = Self.store(format: .ts)
        #expect(store.setInitSegment([]) == nil)
        Self.publish(store, count: 1, bytes: 188)
        #expect(store.file(named: "seg0.ts")?.contentType == "video/mp2t")
        #expect(store.file(named: "init.mp4") == nil)
        #expect(!Self.playlist(store).contains("EXT-X-MAP"))
    }

    @Test func variantQueryFollowsTheMediaPlaylistURI() {
        let store = Self.store()
        let text = String(decoding: Array(store.multivariantPlaylist(session: "a1").render().utf8), as: UTF8.self)
        #expect(text.hasSuffix("\nmedia.m3u8?session=a1\n"))
        #expect(String(decoding: store.file(named: "index.m3u8")!.bytes, as: UTF8.self).hasSuffix("\nmedia.m3u8\n"))
    }

    @Test func stateGoesFromWaitingToLiveToEnded() {
        let store = Self.store()
        #expect(store.summary().state == .waiting)
        store.appendFragment([1, 2, 3], duration: 2, independent: true)
        _ = store.closeSegment(programDateTime: 0)
        #expect(store.summary().state == .live)
        #expect(store.summary().measuredBitrate == 12)
        _ = store.end()
        #expect(store.summary().state == .ended)
    }

    @Test func unknownFilesAreNotFound() {
        let store = Self.store()
        #expect(store.file(named: "seg0.m4s") == nil)
        #expect(store.file(named: "../index.m3u8") == nil)
    }
}
