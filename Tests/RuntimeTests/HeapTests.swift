import Foundation
import Testing

import Runtime

@Suite struct HeapTests {
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
}
