import Foundation
import Testing

@testable import HLS

/// The disk as a file store: whole files renamed into place, folders made as files need them,
/// nothing left behind, and removing what is not there is no failure.
@Suite struct DiskStoreTests {
    func scratch() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("disk-store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    @Test func aFileIsPutWholeInTheFolderMadeForItAndNoTemporaryFileLeft() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let store = DiskStore(root: root)
        #expect(throws: StoreFailure.self) { try store.put("720p/seg3.m4s", bytes: [1]) }
        try store.makeFolder("720p")
        try store.put("720p/seg3.m4s", bytes: [1, 2, 3])
        try store.put("720p/seg3.m4s", bytes: [4, 5])
        #expect(try Array(Data(contentsOf: root.appendingPathComponent("720p/seg3.m4s"))) == [4, 5])
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("720p").path) == [
                "seg3.m4s"
            ])
        try store.delete("720p/seg3.m4s")
        try store.delete("720p/seg3.m4s")
        try store.delete("gone/seg9.m4s")
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("720p").path).isEmpty)
    }

    @Test func aStreamedFileIsItsPiecesInOrderAndABodyThatFailsLeavesTheOldFileAlone() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let store = DiskStore(root: root)
        try store.put("media.m3u8") { emit throws(StoreFailure) in
            try emit([1, 2])
            try emit([])
            try emit([3])
        }
        let file = root.appendingPathComponent("media.m3u8")
        #expect(try Array(Data(contentsOf: file)) == [1, 2, 3])
        #expect(throws: StoreFailure.content("cut short")) {
            try store.put("media.m3u8") { emit throws(StoreFailure) in
                try emit([7, 7, 7, 7])
                throw .content("cut short")
            }
        }
        #expect(try Array(Data(contentsOf: file)) == [1, 2, 3])
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["media.m3u8"])
    }

    @Test func aTemporaryFileAKilledRunLeftIsTakenWithTheNextWriteOfItsName() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        try Data([9, 9]).write(to: root.appendingPathComponent(".media.m3u8.tmp"))
        try DiskStore(root: root).put("media.m3u8", bytes: [1])
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["media.m3u8"])
        #expect(try Array(Data(contentsOf: root.appendingPathComponent("media.m3u8"))) == [1])
    }

    @Test func aFolderThatCannotBeWrittenIsADiskFailureThatMayPass() throws {
        let root = try scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        // A plain file where the folder should be: nothing can be written under it.
        try Data().write(to: root.appendingPathComponent("720p"))
        #expect {
            try DiskStore(root: root).put("720p/seg3.m4s", bytes: [1])
        } throws: { error in
            guard let failure = error as? StoreFailure, case .disk = failure else { return false }
            return failure.isTransient
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: root.path) == ["720p"])
    }

    @Test func aRecordingsFilesAreFoundBelowTheStoresRootByTheirPlansFolder() {
        let folder = URL(fileURLWithPath: "/demo/2026-11-24T07-05-09Z/720p")
        #expect(RecordingSink.path(of: "seg3.m4s", in: folder) == "demo/2026-11-24T07-05-09Z/720p/seg3.m4s")
        #expect(
            RecordingSink.path(of: "index.m3u8", in: URL(fileURLWithPath: "/demo/2026-11-24T07-05-09Z"))
                == "demo/2026-11-24T07-05-09Z/index.m3u8")
    }
}
