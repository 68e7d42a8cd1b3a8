import CFFmpeg
import Testing

@testable import Media

/// A muxer's output in memory is handed over fragment by fragment in arrays of their own size.
@Suite struct MemoryOutputTests {
    /// The room an array has beyond its bytes (see HeldBytesTests).
    static func room(_ bytes: [UInt8]) -> Int { bytes.capacity - bytes.count }

    @Test func aFragmentIsHandedOverInAnArrayOfItsSize() throws {
        let output = try MemoryOutput()
        let chunk = [UInt8](repeating: 7, count: 50_001)
        for _ in 0..<4 { chunk.withUnsafeBufferPointer { avio_write(output.context, $0.baseAddress, 50_001) } }
        let first = output.take()
        #expect(first.count == 200_004)
        #expect(!first.contains { $0 != 7 })
        #expect(Self.room(first) < 4096)
        // The next fragment starts empty, in the buffer the first one grew.
        chunk.withUnsafeBufferPointer { avio_write(output.context, $0.baseAddress, 1000) }
        let second = output.take()
        #expect(second.count == 1000)
        #expect(Self.room(second) < 4096)
        #expect(output.take().isEmpty)
    }
}
