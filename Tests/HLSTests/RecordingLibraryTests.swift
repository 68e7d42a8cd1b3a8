import Foundation
import Testing
import HLSModel

@testable import HLS

struct RecordingLibraryTests {
    static let stamp = "2026-11-24T01-40-05Z"

    @Test func servesOnlyTheFilesARecordingHolds() {
        let servable = { (path: String) in
            RecordingLibrary.isServable(path.split(separator: "/", omittingEmptySubsequences: false))
        }
        #expect(servable("talk/\(Self.stamp)/index.m3u8"))
        #expect(servable("talk/\(Self.stamp)/media.m3u8"))
        #expect(servable("talk/\(Self.stamp)/init3.mp4"))
        #expect(servable("talk/\(Self.stamp)/seg12.m4s"))
        #expect(servable("talk/\(Self.stamp)/seg12.ts"))
        #expect(servable("talk/\(Self.stamp)/recording.mp4"))
        #expect(servable("talk/\(Self.stamp)/720p/seg0.m4s"))
        #expect(servable("talk/\(Self.stamp)/audio/media.m3u8"))
        #expect(!servable("talk/\(Self.stamp)/720p/recording.mp4"))
        #expect(!servable("talk/\(Self.stamp)/part3.1.m4s"))
        #expect(!servable("talk/\(Self.stamp)/.recording.mp4.tmp"))
        #expect(!servable("talk/\(Self.stamp)/notes.txt"))
        #expect(!servable("talk/\(Self.stamp)/../seg0.m4s"))
        #expect(!servable("talk/\(Self.stamp)"))
        #expect(!servable("talk/2026-11-24/index.m3u8"))
        #expect(!servable("../\(Self.stamp)/index.m3u8"))
        #expect(!servable("talk/\(Self.stamp)/a/b/seg0.m4s"))
        #expect(!servable("talk/\(Self.stamp)//seg0.m4s"))
    }

    @Test func theStartTimeIsTheFolderNameInISO8601() {
        #expect(RecordingLibrary.startTime(of: Self.stamp) == "2026-11-24T01:40:05Z")
    }

    @Test func pruningRemovesTheOldestAndNeverTheOneBeingWritten() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("prune-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let names = ["2024-01-01T00-00-00Z", "2025-01-01T00-00-00Z", "2026-01-01T00-00-00Z", Self.stamp]
        for (number, name) in names.enumerated() {
            let folder = root.appendingPathComponent("talk").appendingPathComponent(name)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(repeating: 1, count: 1000 * (number + 1)).write(to: folder.appendingPathComponent("seg0.m4s"))
            try RecordingLibrary.markRecording(folder)
        }
        try FileManager.default.createDirectory(
            at: root.appendingPathComponent("talk/not-a-recording"), withIntermediateDirectories: true)
        let current = root.appendingPathComponent("talk/\(Self.stamp)")
        let kept = RecordingRetention(root: root, channel: "talk", keep: 3, maxBytes: nil).apply(sparing: current)
        #expect(kept.map(\.folder.lastPathComponent) == ["2024-01-01T00-00-00Z"])
        #expect(kept.map(\.bytes) == [1000])
        // 2 000 + 3 000 + 4 000 bytes left; 7 000 allowed: the oldest goes, then 7 000 fit.
        let sized = RecordingRetention(root: root, channel: "talk", keep: nil, maxBytes: 7000).apply(sparing: current)
        #expect(sized.map(\.folder.lastPathComponent) == ["2025-01-01T00-00-00Z"])
        // Nothing fits: all but the one being written.
        let tight = RecordingRetention(root: root, channel: "talk", keep: nil, maxBytes: 1).apply(sparing: current)
        #expect(tight.map(\.folder.lastPathComponent) == ["2026-01-01T00-00-00Z"])
        #expect(RecordingLibrary.recordings(of: "talk", in: root) == [current])
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("talk/not-a-recording").path))
    }

    /// Retention removes only recordings onair made (marked), and of them only the files it wrote.
    @Test func pruningLeavesFoldersAndFilesOnairNeverWrote() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("prune-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let channel = root.appendingPathComponent("talk")
        // Someone's folder with a recording's kind of name, and no mark.
        let notes = channel.appendingPathComponent("2000-01-01T00-00-00Z")
        try FileManager.default.createDirectory(at: notes, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: notes.appendingPathComponent("notes.txt"))
        // A recording with a file someone added, and a rendition folder of it.
        let recording = channel.appendingPathComponent("2001-01-01T00-00-00Z")
        try FileManager.default.createDirectory(
            at: recording.appendingPathComponent("720p"), withIntermediateDirectories: true)
        try RecordingLibrary.markRecording(recording)
        try Data(repeating: 1, count: 100).write(to: recording.appendingPathComponent("720p/seg0.m4s"))
        try Data(repeating: 1, count: 10).write(to: recording.appendingPathComponent("index.m3u8"))
        try Data(repeating: 1, count: 20).write(to: recording.appendingPathComponent(RecordingExport.fileName))
        try Data("thesis".utf8).write(to: recording.appendingPathComponent("thesis.txt"))
        let current = channel.appendingPathComponent(Self.stamp)
        try FileManager.default.createDirectory(at: current, withIntermediateDirectories: true)
        try RecordingLibrary.markRecording(current)
        let removed = RecordingRetention(root: root, channel: "talk", keep: 1, maxBytes: nil).apply(sparing: current)
        #expect(removed.map(\.folder.lastPathComponent) == ["2001-01-01T00-00-00Z"])
        #expect(removed.map(\.bytes) == [130])
        #expect(try FileManager.default.contentsOfDirectory(atPath: notes.path) == ["notes.txt"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: recording.path) == ["thesis.txt"])
        // Unmarked now, it is not counted again.
        #expect(RecordingRetention(root: root, channel: "talk", keep: 1, maxBytes: nil).apply(sparing: current).isEmpty)
    }

    /// The catalogue reads a recording again only when one of its folders changed (files arrive by
    /// rename): a playlist rewritten in place, which onair never does, is not seen; a rename is.
    @Test func theCatalogueReadsARecordingAgainOnlyWhenItsFoldersChanged() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("catalogue-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("talk/\(Self.stamp)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func playlist(_ segments: Int, ended: Bool) -> [UInt8] {
            var text = "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:2\n#EXT-X-MAP:URI=\"init.mp4\"\n"
            for index in 0..<segments { text += "#EXTINF:2.000,\nseg\(index).m4s\n" }
            return Array((text + (ended ? "#EXT-X-ENDLIST\n" : "")).utf8)
        }
        let index = "#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000,RESOLUTION=640x360\nmedia.m3u8\n"
        try DiskStore(root: folder).put("index.m3u8", bytes: Array(index.utf8))
        try DiskStore(root: folder).put("media.m3u8", bytes: playlist(2, ended: false))
        let catalogue = RecordingCatalog(root: root)
        #expect(catalogue.list().map { [$0.seconds, $0.ended ? 1 : 0] } == [[4, 0]])
        // Rewritten in place: the folder did not change, the listing is the one kept.
        try Data(playlist(3, ended: true)).write(to: folder.appendingPathComponent("media.m3u8"))
        #expect(catalogue.list().map { [$0.seconds, $0.ended ? 1 : 0] } == [[4, 0]])
        // Renamed into place, as onair writes: read again.
        try DiskStore(root: folder).put("media.m3u8", bytes: playlist(5, ended: true))
        #expect(catalogue.list().map { [$0.seconds, $0.ended ? 1 : 0] } == [[10, 1]])
        try FileManager.default.removeItem(at: folder)
        #expect(catalogue.list().isEmpty)
    }
}
