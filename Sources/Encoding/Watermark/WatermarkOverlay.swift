import Runtime
public import Media

/// A watermark made ready for one output size: scaled once, converted to premultiplied
/// limited-range BT.601 Y'CbCr in 16.16 fixed point, and blended into every frame by
/// touching only its own rectangle.
public final class WatermarkOverlay: Sendable {
    /// The rectangle, in output pixels (even origin and size).
    public let x: Int
    public let y: Int
    public let width: Int
    public let height: Int
    /// True when the image was larger than the output and was shrunk to fit.
    public let fitted: Bool
    private let luma: Plane
    private let blue: Plane
    private let red: Plane

    /// Alpha and premultiplied value per sample, both in 1/65536 units.
    struct Plane {
        var width: Int
        var alpha: [UInt32]
        var value: [UInt32]
    }

    public init(image: WatermarkImage, placement: WatermarkPlacement, frameWidth: Int, frameHeight: Int) {
        let drawn = placement.drawnSize(
            imageWidth: image.width, imageHeight: image.height, frameWidth: frameWidth, frameHeight: frameHeight)
        let origin = placement.origin(
            width: drawn.width, height: drawn.height, frameWidth: frameWidth, frameHeight: frameHeight)
        var pixels = ImageResizer.tent(
            image.pixels, width: image.width, height: image.height, toWidth: drawn.width, toHeight: drawn.height)
        let opacity = Float(min(1, max(0, placement.opacity)))
        pixels = pixels.map { $0 * opacity }
        // Pad to even with transparent pixels so every 2×2 chroma block is whole.
        let width = min(drawn.width + drawn.width % 2, frameWidth - origin.x)
        let height = min(drawn.height + drawn.height % 2, frameHeight - origin.y)
        func pixel(_ column: Int, _ row: Int) -> SIMD4<Float> {
            column < drawn.width && row < drawn.height ? pixels[row * drawn.width + column] : .zero
        }
        var luma = Plane(width: width, alpha: [], value: [])
        for row in 0..<height {
            for column in 0..<width {
                let p = pixel(column, row)
                luma.alpha.append(Self.fixed(p.w))
                luma.value.append(Self.fixed(16 * p.w + 65.481 * p.x + 128.553 * p.y + 24.966 * p.z))
            }
        }
        var blue = Plane(width: width / 2, alpha: [], value: [])
        var red = blue
        for row in stride(from: 0, to: height - 1, by: 2) {
            for column in stride(from: 0, to: width - 1, by: 2) {
                let p =
                    (pixel(column, row) + pixel(column + 1, row) + pixel(column, row + 1) + pixel(column + 1, row + 1))
                    / 4
                blue.alpha.append(Self.fixed(p.w))
                red.alpha.append(Self.fixed(p.w))
                blue.value.append(Self.fixed(128 * p.w - 37.797 * p.x - 74.203 * p.y + 112 * p.z))
                red.value.append(Self.fixed(128 * p.w + 112 * p.x - 93.786 * p.y - 18.214 * p.z))
            }
        }
        self.x = origin.x
        self.y = origin.y
        self.width = width
        self.height = height
        self.fitted = drawn.fitted
        self.luma = luma
        self.blue = blue
        self.red = red
    }

    /// Blends the watermark into a new picture in place, before it is handed on: out = in × (1 − α)
    /// + α·colour, rounded. A picture that is the one before with some parts redrawn
    /// (`changedAreas`) already carries the watermark elsewhere: only where those parts overlap it
    /// is it blended again.
    public func apply(to picture: CapturedPicture) {
        let frame = picture.frame
        let own = PixelRect(x: x, y: y, width: width, height: height)
        for area in picture.changedAreas ?? [own] {
            guard let overlap = area.clipped(to: own) else { continue }
            // Even bounds, so the chroma samples are whole (changed areas are even already).
            let left = overlap.x & ~1, top = overlap.y & ~1
            let right = min(x + width, (overlap.x + overlap.width + 1) & ~1)
            let bottom = min(y + height, (overlap.y + overlap.height + 1) & ~1)
            let part = PixelRect(x: left - x, y: top - y, width: right - left, height: bottom - top)
            Self.blend(luma, into: frame, plane: 0, at: (x, y), part: part)
            let half = PixelRect(x: part.x / 2, y: part.y / 2, width: part.width / 2, height: part.height / 2)
            Self.blend(blue, into: frame, plane: 1, at: (x / 2, y / 2), part: half)
            Self.blend(red, into: frame, plane: 2, at: (x / 2, y / 2), part: half)
        }
    }

    /// Blends `part` of the overlay (in its own samples) into a plane whose overlay starts at `at`.
    private static func blend(
        _ overlay: Plane, into frame: VideoFrame, plane: Int, at origin: (x: Int, y: Int), part: PixelRect
    ) {
        frame.withPlane(plane) { bytes, stride, _, _ in
            overlay.alpha.withUnsafeBufferPointer { alpha in
                overlay.value.withUnsafeBufferPointer { value in
                    for row in part.y..<(part.y + part.height) {
                        let line = bytes + (origin.y + row) * stride + origin.x
                        let base = row * overlay.width
                        for column in part.x..<(part.x + part.width) {
                            let a = alpha[base + column]
                            guard a != 0 else { continue }
                            let under = UInt32(line[column])
                            line[column] = UInt8((under * (65536 - a) + value[base + column] + 32768) >> 16)
                        }
                    }
                }
            }
        }
    }

    /// A quantity in 1/65536 units, rounded, never negative.
    private static func fixed(_ value: Float) -> UInt32 {
        UInt32(max(0, (Double(value) * 65536).rounded()))
    }
}

/// Resizes premultiplied pixels once, with a tent filter widened by the reduction factor, so a
/// shrunk logo is averaged (no aliasing) and an enlarged one is interpolated.
enum ImageResizer {
    static func tent(_ pixels: [SIMD4<Float>], width: Int, height: Int, toWidth: Int, toHeight: Int) -> [SIMD4<Float>] {
        if width == toWidth, height == toHeight { return pixels }
        let across = weights(from: width, to: toWidth)
        var horizontal = [SIMD4<Float>](repeating: .zero, count: toWidth * height)
        for row in 0..<height {
            for (column, taps) in across.enumerated() {
                var sum = SIMD4<Float>.zero
                for (index, weight) in taps { sum += pixels[row * width + index] * weight }
                horizontal[row * toWidth + column] = sum
            }
        }
        let down = weights(from: height, to: toHeight)
        var result = [SIMD4<Float>](repeating: .zero, count: toWidth * toHeight)
        for (row, taps) in down.enumerated() {
            for column in 0..<toWidth {
                var sum = SIMD4<Float>.zero
                for (index, weight) in taps { sum += horizontal[index * toWidth + column] * weight }
                result[row * toWidth + column] = sum
            }
        }
        return result
    }

    /// For each output sample, the input samples it draws on and their normalised weights.
    static func weights(from size: Int, to target: Int) -> [[(Int, Float)]] {
        let ratio = Double(size) / Double(target)
        let support = max(1, ratio)
        return (0..<target).map { output in
            let center = (Double(output) + 0.5) * ratio - 0.5
            let first = Int((center - support).rounded(.up)), last = Int((center + support).rounded(.down))
            var taps: [(Int, Float)] = []
            for input in first...last {
                let weight = 1 - abs(Double(input) - center) / support
                if weight > 0 { taps.append((min(max(0, input), size - 1), Float(weight))) }
            }
            let total = taps.reduce(0) { $0 + $1.1 }
            return taps.map { ($0.0, $0.1 / total) }
        }
    }
}
