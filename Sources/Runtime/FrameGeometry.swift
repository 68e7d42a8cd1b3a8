/// A rectangle in pixels.
public struct PixelRect: Sendable, Equatable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// `WxH+X+Y`, as X11 geometry is written.
    public var description: String { "\(width)x\(height)+\(x)+\(y)" }

    /// The part inside `bounds`, nil when none is.
    public func clipped(to bounds: PixelRect) -> PixelRect? {
        let left = max(x, bounds.x), top = max(y, bounds.y)
        let right = min(x + width, bounds.x + bounds.width), bottom = min(y + height, bounds.y + bounds.height)
        guard right > left, bottom > top else { return nil }
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }
}

/// Output sizes that keep the source's shape, in even pixels for yuv420p.
public enum FrameGeometry {
    /// The size whose short side is `shortSide` (or the source's own, when smaller and
    /// `upscale` is false), the long side following the source's aspect ratio.
    public static func size(sourceWidth: Int, sourceHeight: Int, shortSide: Int, upscale: Bool = false) -> (
        width: Int, height: Int
    ) {
        let sourceShort = min(sourceWidth, sourceHeight)
        let short = upscale ? shortSide : min(shortSide, sourceShort)
        let scale = Double(short) / Double(sourceShort)
        return (even(Double(sourceWidth) * scale), even(Double(sourceHeight) * scale))
    }

    /// The largest rectangle with the source's aspect ratio centred in the target: the picture
    /// goes there and the bars around it stay black.
    public static func letterbox(sourceWidth: Int, sourceHeight: Int, targetWidth: Int, targetHeight: Int) -> PixelRect
    {
        let scale = min(Double(targetWidth) / Double(sourceWidth), Double(targetHeight) / Double(sourceHeight))
        let width = min(targetWidth, even(Double(sourceWidth) * scale))
        let height = min(targetHeight, even(Double(sourceHeight) * scale))
        return PixelRect(
            x: ((targetWidth - width) / 2) & ~1, y: ((targetHeight - height) / 2) & ~1, width: width, height: height)
    }

    private static func even(_ value: Double) -> Int {
        max(2, Int((value / 2).rounded()) * 2)
    }
}
