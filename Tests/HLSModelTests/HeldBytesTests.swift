import HLSModel
import Testing

/// Media held in memory for as long as it is downloadable takes its own size, not the room its
/// array grew into while being written.
@Suite struct HeldBytesTests {
    /// The room an array has beyond its bytes: what malloc's rounding adds, a few bytes to a page,
    /// when it was made to size; up to as much again as it holds when it grew by doubling.
    static func room(_ bytes: [UInt8]) -> Int { bytes.capacity - bytes.count }

    @Test func aClosedSegmentIsTheSizeOfItsParts() {
        var timeline = Timeline(configuration: TimelineTests.configuration())
        for index in 0..<3 {
            _ = timeline.appendPart([UInt8](repeating: UInt8(index), count: 100_003), duration: 0.5, independent: true)
        }
        _ = timeline.closeSegment(programDateTime: 0)
        let bytes = timeline.bytes(of: .segment(0, .fmp4))!
        #expect(bytes.count == 300_009)
        #expect([bytes[0], bytes[100_003], bytes[300_008]] == [0, 1, 2])
        #expect(Self.room(bytes) < 4096)
    }
}
