import Runtime
import Testing

@testable import Capture
@testable import Media

@Suite struct TestSourceTests {
    @Test func clockTextIsUTCWithMilliseconds() {
        #expect(TestPattern.clockText(milliseconds: 1_795_000_000_250) == "11:06:40.250")
        #expect(TestPattern.clockText(milliseconds: 86_399_999) == "23:59:59.999")
    }

    @Test func bt601LimitedRangeColours() {
        #expect(YUVColor.black == YUVColor(y: 16, cb: 128, cr: 128))
        #expect(YUVColor.white == YUVColor(y: 235, cb: 128, cr: 128))
        #expect(YUVColor(red: 255, green: 0, blue: 0) == YUVColor(y: 81, cb: 90, cr: 240))
    }

    @Test func toneBeepsForTheFirstTenthOfEveryWallSecond() {
        // Anchor at .950 s: the beep (1 kHz, louder) runs from 50 ms to 150 ms of media time.
        let anchor: Int64 = 1_795_000_000_950
        func peak(_ range: Range<Int64>) -> Int16 {
            range.map { ToneSource.sample(at: $0, anchorWallMilliseconds: anchor) }.map { abs($0) }.max()!
        }
        #expect(peak(0..<2_300) <= 3_277)
        #expect(peak(2_500..<7_000) > 16_000)
        #expect(peak(7_300..<40_000) <= 3_277)
    }

    @Test func patternDrawsTheClockOfItsCaptureTime() throws {
        let clock = MediaClock(anchorNanoseconds: 0, anchorWallMilliseconds: 0)
        let pattern = try TestPattern(width: 320, height: 180, fps: 30, clock: clock)
        let first = try #require(try pattern.capture(index: 0, at: 0)).frame
        let later = try #require(try pattern.capture(index: 45, at: 1.5)).frame
        #expect(first.width == 320 && first.height == 180 && later.index == 45)
        // The backdrop below the bars is the same; the clock row differs.
        #expect(luma(first, row: 150) == luma(later, row: 150))
        #expect(luma(first, row: 90) != luma(later, row: 90))
    }

    @Test func timeCodeIsGuardedFortyBitMilliseconds() {
        let f = false
        let t = true
        #expect(TimeCode.blocks(milliseconds: 11) == [t, f] + Array(repeating: f, count: 36) + [t, f, t, t] + [f, t])
        // Only the low 40 bits: 2^40 ms later reads the same.
        #expect(TimeCode.blocks(milliseconds: 11 + 1 << 40) == TimeCode.blocks(milliseconds: 11))
        #expect(TimeCode.placement(width: 1280, height: 720) == (x: 288, y: 304, block: 16))
        #expect(TimeCode.placement(width: 640, height: 360) == (x: 144, y: 152, block: 8))
    }

    @Test func patternCarriesItsCaptureTimeAsATimeCode() throws {
        let clock = MediaClock(anchorNanoseconds: 0, anchorWallMilliseconds: 1_795_000_000_250)
        let pattern = try TestPattern(width: 640, height: 360, fps: 30, clock: clock)
        let frame = try #require(try pattern.capture(index: 3, at: 0.1)).frame
        let code = TimeCode.placement(width: 640, height: 360)
        let row = luma(frame, row: code.y + code.block / 2)
        let read = (0..<TimeCode.blockCount).map { row[code.x + $0 * code.block + code.block / 2] > 128 }
        #expect(read == TimeCode.blocks(milliseconds: 1_795_000_000_350))
    }

    private func luma(_ frame: VideoFrame, row: Int) -> [UInt8] {
        frame.withPlane(0) { bytes, stride, width, _ in
            Array(UnsafeBufferPointer(start: bytes + row * stride, count: width))
        }
    }
}
