import Foundation
import Testing

import Runtime

/// One test at a time: one measures the process's resident memory, the other changes where glibc
/// puts large blocks.
@Suite(.serialized) struct HeapTests {
    /// The process's anonymous resident memory, from /proc/self/status, in bytes.
    private func residentAnonymousBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") })
        let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
        return kilobytes * 1024
    }

    /// 64 MiB of small blocks, freed while the last one is kept, stay resident: glibc trims only the
    /// top of a heap. Giving the free pages back returns them.
    @Test func pagesFreedBelowABlockInUseAreGivenBack() throws {
        let count = 64 * 1024
        let blocks = (0..<count).map { _ in
            let block = UnsafeMutableRawPointer.allocate(byteCount: 1000, alignment: 8)
            block.initializeMemory(as: UInt8.self, repeating: 1, count: 1000)
            return block
        }
        for block in blocks.dropLast() { block.deallocate() }
        let held = try residentAnonymousBytes()
        _ = Heap.giveBackFreePages()
        let after = try residentAnonymousBytes()
        blocks.last?.deallocate()
        // Other tests allocate meanwhile; most of the 62 MiB must still come back.
        #expect(held - after > 40 * 1024 * 1024, "held \(held) bytes, \(after) after")
    }

    /// Whether `block` (from malloc) is glibc's mapping of its own: such a block's header starts its
    /// mapping, 16 bytes before it; a block cut from a heap lies inside the heap's mapping.
    private func isMappedOnItsOwn(_ block: UnsafeMutableRawPointer) throws -> Bool {
        let start = String(UInt(bitPattern: block) - 16, radix: 16)
        let maps = try String(contentsOfFile: "/proc/self/maps", encoding: .utf8)
        return maps.split(separator: "\n").contains { $0.hasPrefix(start + "-") }
    }

    /// glibc raises its threshold for mapping a block to the size of each mapped block freed (here
    /// a picture's 30 MiB), and then cuts every smaller block from a heap, where the gaps they leave
    /// stay for good. With the threshold held, a block of a segment's size that no free block fits
    /// gets a mapping of its own, handed back whole when it is freed. (Free blocks other tests left
    /// are taken first, as they should be: the loop goes on until they are used up.)
    @Test func aSegmentsBlockIsMappedOnItsOwnAfterAPictureWasFreed() throws {
        Heap.mapLargeBlocks()
        let picture = UnsafeMutableRawPointer.allocate(byteCount: 30 << 20, alignment: 16)
        picture.deallocate()
        var blocks: [UnsafeMutableRawPointer] = []
        blocks.reserveCapacity(512)
        defer { for block in blocks { block.deallocate() } }
        for _ in 0..<512 {
            let block = UnsafeMutableRawPointer.allocate(byteCount: 1 << 20, alignment: 16)
            blocks.append(block)
            if try isMappedOnItsOwn(block) { return }
        }
        Issue.record("512 blocks of 1 MiB, all cut from a heap: none had a mapping of its own")
    }
}
