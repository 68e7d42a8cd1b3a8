import Foundation
import Synchronization
import Testing
import HLSModel

@testable import HLS
import Runtime

/// The folder sink: atomic files, the playlist written after what it names, catching up from the
/// newest timeline after a failure or when it fell behind, and removing only what it wrote.
@Suite struct DirectoryMirrorTests {
    final class Events: Sendable {
        let said = Mutex<[BroadcastEvent.Code]>([])
        var codes: [BroadcastEvent.Code] { said.withLock { $0 } }
        var reporter: EventReporter { { code, _ in self.said.withLock { $0.append(code) } } }
    }

    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("onair-mirror-\(UUID().uuidString)")
    }

    static func names(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    static let idle = SinkBacklog(skipped: 0, waiting: 0)

    @Test func writesAtomicallyAndRemovesExpiredSegments() throws {
        let root = Self.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let mirror = DirectoryMirror(root: root, channel: "demo") { _, _ in }
        let store = LiveStoreTests.store()
        mirror.receive(try #require(store.setInitSegment([9, 9])), backlog: Self.idle)
        for publication in LiveStoreTests.publish(store, count: 8, bytes: 10) {
            mirror.receive(publication, backlog: Self.idle)
        }
        #expect(
            try Self.names(in: mirror.folder) == ["index.m3u8", "init.mp4", "media.m3u8"]
                + (1...7).map { "seg\($0).m4s" })
        let playlist = try String(contentsOf: mirror.folder.appendingPathComponent("media.m3u8"), encoding: .utf8)
        #expect(playlist == LiveStoreTests.playlist(store))
    }

    @Test func aFolderThatCannotBeWrittenFailsOnceThenCatchesUp() throws {
        let root = Self.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let events = Events()
        let mirror = DirectoryMirror(root: root, channel: "demo", report: events.reporter)
        let store = LiveStoreTests.store()
        mirror.receive(try #require(store.setInitSegment([9])), backlog: Self.idle)
        let changes = LiveStoreTests.publish(store, count: 6, bytes: 10)
        mirror.receive(changes[0], backlog: Self.idle)
        // A folder that is no longer a folder: every write fails.
        try FileManager.default.removeItem(at: mirror.folder)
        try Data().write(to: mirror.folder)
        mirror.receive(changes[1], backlog: Self.idle)
        mirror.receive(changes[2], backlog: Self.idle)
        #expect(events.codes == [.diskWriteFailed], "the first failure only")
        try FileManager.default.removeItem(at: mirror.folder)
        try FileManager.default.createDirectory(at: mirror.folder, withIntermediateDirectories: true)
        mirror.receive(changes[5], backlog: Self.idle)
        #expect(events.codes == [.diskWriteFailed, .diskWriteRecovered])
        // What the timeline lists now (seg3–5), rebuilt in the emptied folder; seg1–2 were never written,
        // and the failure (said once) covers them.
        #expect(
            try Self.names(in: mirror.folder) == [
                "index.m3u8", "init.mp4", "media.m3u8", "seg3.m4s", "seg4.m4s", "seg5.m4s",
            ])
        #expect(
            try String(contentsOf: mirror.folder.appendingPathComponent("media.m3u8"), encoding: .utf8)
                == LiveStoreTests.playlist(store))
    }

    @Test func fallingBehindSkipsToTheNewestTimelineAndSaysWhatItSkipped() throws {
        let root = Self.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let events = Events()
        let mirror = DirectoryMirror(root: root, channel: "demo", report: events.reporter)
        let store = LiveStoreTests.store()
        let changes = LiveStoreTests.publish(store, count: 8, bytes: 10)
        mirror.receive(changes[0], backlog: Self.idle)
        // Six publications left out: seg1–4 left the three-segment list before they could be written.
        mirror.receive(changes[7], backlog: SinkBacklog(skipped: 6, waiting: 0))
        #expect(events.codes == [.diskWriteBehind])
        #expect(try Self.names(in: mirror.folder) == ["index.m3u8", "media.m3u8", "seg5.m4s", "seg6.m4s", "seg7.m4s"])
        let more = LiveStoreTests.publish(store, count: 1, from: 8, bytes: 10)
        mirror.receive(more[0], backlog: Self.idle)
        #expect(events.codes == [.diskWriteBehind, .diskWriteCaughtUp])
    }

    @Test func onlyFilesItWroteOrItsEarlierPlaylistNamedAreRemoved() throws {
        let root = Self.folder()
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("live/demo")
        try FileManager.default.createDirectory(
            at: folder.appendingPathComponent("segments-archive"), withIntermediateDirectories: true)
        let earlier = ContinuationTests.earlier.replacingOccurrences(of: "seg8.m4s", with: "backup.m3u8")
        try Data(earlier.utf8).write(to: folder.appendingPathComponent("media.m3u8"))
        let foreign = ["partners.csv", "initial-setup.sh", "segway.txt", "backup.m3u8", "seg3.m4s", ".seg4.m4s.tmp"]
        for name in foreign + ["init.mp4", "seg7.m4s"] {
            try Data([1]).write(to: folder.appendingPathComponent(name))
        }
        let previous = try #require(DirectoryMirror.previousRun(root: root, channel: "demo"))
        let mirror = DirectoryMirror(root: root, channel: "demo", earlier: previous) { _, _ in }
        let store = ContinuationTests.store(previous: previous)
        mirror.receive(try #require(store.setInitSegment([2])), backlog: Self.idle)
        for publication in LiveStoreTests.publish(store, count: 12, from: 9, bytes: 10) {
            mirror.receive(publication, backlog: Self.idle)
        }
        // seg7 and init.mp4 were named by the earlier playlist: they went. Of this run's, seg9–13 have
        // expired; seg14–17 left the list but are still downloadable. The rest is not ours and stays.
        #expect(
            try Self.names(in: folder)
                == (foreign + ["index.m3u8", "init9.mp4", "media.m3u8", "segments-archive"]
                + (14...20).map { "seg\($0).m4s" }).sorted())
    }
}
