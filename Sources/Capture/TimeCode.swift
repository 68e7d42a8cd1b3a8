/// The capture time as a row of black and white blocks a program can read back from the
/// decoded picture (a browser canvas, ffmpeg), for measuring glass-to-glass latency.
///
/// 44 blocks: white, black, the low 40 bits of the wall time in milliseconds (most significant
/// first, white for 1; they repeat every 34.8 years), black, white. Blocks are flat and large
/// (a 1/80 of the width), so they survive any sensible bitrate.
public enum TimeCode {
    public static let blockCount = 44

    /// The blocks, left to right: true for white.
    public static func blocks(milliseconds: Int64) -> [Bool] {
        let value = UInt64(bitPattern: milliseconds) & (1 << 40 - 1)
        return [true, false] + (0..<40).map { value >> (39 - $0) & 1 == 1 } + [false, true]
    }

    /// Where the row goes in a picture of this size: above the clock, below the ball.
    /// `web/timecode.js` reads it from the same formulas.
    public static func placement(width: Int, height: Int) -> (x: Int, y: Int, block: Int) {
        let block = max(4, width / 80) & ~1
        let clockScale = max(2, width / 96) & ~1
        let clockY = (height / 2 - clockScale * 2) & ~1
        return (((width - blockCount * block) / 2) & ~1, (clockY - 2 * block) & ~1, block)
    }
}
