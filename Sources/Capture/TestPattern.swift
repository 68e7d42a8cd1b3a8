public import Runtime
public import Media

/// The built-in picture: colour bars, a ball that bounces across the screen, the capture time
/// as a large HH:MM:SS.mmm UTC clock and as a machine-readable ``TimeCode``, and the frame counter. Every element is a function of
/// the frame index, so a viewer can check timing and continuity from the picture alone.
public final class TestPattern: VideoSource {
    public let width: Int
    public let height: Int
    private let fps: Int
    private let clock: MediaClock
    private let background: VideoFrame
    private let pool: VideoFramePool

    static let bars: [YUVColor] = [
        YUVColor(red: 191, green: 191, blue: 191), YUVColor(red: 191, green: 191, blue: 0),
        YUVColor(red: 0, green: 191, blue: 191), YUVColor(red: 0, green: 191, blue: 0),
        YUVColor(red: 191, green: 0, blue: 191), YUVColor(red: 191, green: 0, blue: 0),
        YUVColor(red: 0, green: 0, blue: 191),
    ]
    static let backdrop = YUVColor(red: 24, green: 28, blue: 36)
    static let ball = YUVColor(red: 255, green: 196, blue: 0)

    public init(width: Int, height: Int, fps: Int, clock: MediaClock) throws {
        self.width = width
        self.height = height
        self.fps = fps
        self.clock = clock
        pool = try VideoFramePool(width: width, height: height)
        background = try VideoFrame(width: width, height: height, index: 0)
        let canvas = Canvas(frame: background)
        canvas.fill(x: 0, y: 0, width: width, height: height, color: Self.backdrop)
        let barWidth = (width / Self.bars.count) & ~1
        for (index, color) in Self.bars.enumerated() {
            let last = index == Self.bars.count - 1
            canvas.fill(
                x: index * barWidth, y: 0, width: last ? width - index * barWidth : barWidth,
                height: (height / 4) & ~1, color: color)
        }
        let scale = max(1, height / 180)
        canvas.text("ONAIR TEST", x: scale * 4, y: height - scale * 11, scale: scale, color: .white)
    }

    public func capture(index: Int64, at seconds: Double) throws -> CapturedPicture? {
        let frame = try pool.makeFrame(index: index)
        for plane in 0..<3 {
            background.withPlane(plane) { source, sourceStride, planeWidth, planeHeight in
                frame.withPlane(plane) { target, targetStride, _, _ in
                    for row in 0..<planeHeight {
                        (target + row * targetStride).update(from: source + row * sourceStride, count: planeWidth)
                    }
                }
            }
        }
        let canvas = Canvas(frame: frame)
        let unit = max(2, height / 72) & ~1
        let travel = width - 4 * unit
        let period = Int64(fps * 4)
        let phase = Int(index % period)
        let offset = phase * 2 * travel / Int(period)
        let ballX = (offset <= travel ? offset : 2 * travel - offset) & ~1
        canvas.fill(x: ballX, y: (height / 4 + unit) & ~1, width: 4 * unit, height: 4 * unit, color: Self.ball)

        let wall = clock.wallMilliseconds(at: seconds)
        let code = TimeCode.placement(width: width, height: height)
        for (position, white) in TimeCode.blocks(milliseconds: wall).enumerated() {
            canvas.fill(
                x: code.x + position * code.block, y: code.y, width: code.block, height: code.block,
                color: white ? .white : .black)
        }

        let clockScale = max(2, width / 96) & ~1
        let clockText = Self.clockText(milliseconds: wall)
        let clockWidth = clockText.count * 6 * clockScale
        let clockY = (height / 2 - clockScale * 2) & ~1
        canvas.text(clockText, x: ((width - clockWidth) / 2) & ~1, y: clockY, scale: clockScale, color: .white)
        let counterScale = max(2, clockScale / 2) & ~1
        let counterText = "FRAME " + String(zeroPadded: index, width: 7)
        canvas.text(
            counterText, x: ((width - counterText.count * 6 * counterScale) / 2) & ~1,
            y: clockY + clockScale * 9, scale: counterScale, color: .white)
        return CapturedPicture(frame)
    }

    /// `HH:MM:SS.mmm` of a wall time in UTC.
    static func clockText(milliseconds: Int64) -> String {
        let day = ((milliseconds % 86_400_000) + 86_400_000) % 86_400_000
        return String(zeroPadded: day / 3_600_000, width: 2) + ":" + String(zeroPadded: day / 60_000 % 60, width: 2)
            + ":" + String(zeroPadded: day / 1000 % 60, width: 2) + "." + String(zeroPadded: day % 1000, width: 3)
    }
}
