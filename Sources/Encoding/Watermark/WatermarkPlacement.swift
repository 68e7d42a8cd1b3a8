/// Where and how large the watermark is drawn, and how opaque.
public struct WatermarkPlacement: Sendable, Equatable {
    public enum Position: Sendable, Equatable {
        case topLeft, topRight, bottomLeft, bottomRight, center
        /// Output pixels from the top-left; a negative value counts from the right or bottom
        /// edge to the watermark's far edge (`-16,-16` is bottom-right with a 16-pixel margin).
        case point(x: Int, y: Int)
    }

    public enum Size: Sendable, Equatable {
        /// A factor of the image's own size.
        case scale(Double)
        /// A width in output pixels; the height follows the image's aspect ratio.
        case width(Int)
    }

    public var position = Position.topRight
    /// Pixels between the watermark and the edges it sits against (corners only).
    public var margin = 16
    public var size = Size.scale(1)
    /// 0 (invisible) to 1 (the image's own alpha).
    public var opacity = 1.0

    public init() {}

    /// The drawn size for an image in a frame: never larger than the frame, at least 1 pixel.
    /// `fitted` is true when the image had to be shrunk to fit.
    func drawnSize(imageWidth: Int, imageHeight: Int, frameWidth: Int, frameHeight: Int)
        -> (width: Int, height: Int, fitted: Bool)
    {
        let factor: Double =
            switch size {
            case .scale(let scale): scale
            case .width(let width): Double(width) / Double(imageWidth)
            }
        var width = Double(imageWidth) * factor
        var height = Double(imageHeight) * factor
        let shrink = min(1, Double(frameWidth) / width, Double(frameHeight) / height)
        width *= shrink
        height *= shrink
        return (max(1, Int(width.rounded())), max(1, Int(height.rounded())), shrink < 1)
    }

    /// The top-left corner for a drawn size, inside the frame, on even coordinates so the
    /// chroma of yuv420p lines up with the luma.
    func origin(width: Int, height: Int, frameWidth: Int, frameHeight: Int) -> (x: Int, y: Int) {
        let right = frameWidth - width - margin
        let bottom = frameHeight - height - margin
        let (x, y): (Int, Int) =
            switch position {
            case .topLeft: (margin, margin)
            case .topRight: (right, margin)
            case .bottomLeft: (margin, bottom)
            case .bottomRight: (right, bottom)
            case .center: ((frameWidth - width) / 2, (frameHeight - height) / 2)
            case .point(let x, let y):
                (x >= 0 ? x : frameWidth - width + x, y >= 0 ? y : frameHeight - height + y)
            }
        let clampedX = min(max(0, x), max(0, frameWidth - width))
        let clampedY = min(max(0, y), max(0, frameHeight - height))
        return (clampedX & ~1, clampedY & ~1)
    }
}
