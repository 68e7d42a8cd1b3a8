import Media

/// A colour as limited-range BT.601 Y, Cb, Cr: what yuv420p frames hold.
public struct YUVColor: Sendable, Equatable {
    public var y: UInt8
    public var cb: UInt8
    public var cr: UInt8

    public init(y: UInt8, cb: UInt8, cr: UInt8) {
        self.y = y
        self.cb = cb
        self.cr = cr
    }

    /// Converts 8-bit sRGB.
    public init(red: Int, green: Int, blue: Int) {
        let r = Double(red) / 255, g = Double(green) / 255, b = Double(blue) / 255
        y = UInt8((16 + 65.481 * r + 128.553 * g + 24.966 * b).rounded())
        cb = UInt8((128 - 37.797 * r - 74.203 * g + 112.0 * b).rounded())
        cr = UInt8((128 + 112.0 * r - 93.786 * g - 18.214 * b).rounded())
    }

    public static let black = YUVColor(red: 0, green: 0, blue: 0)
    public static let white = YUVColor(red: 255, green: 255, blue: 255)
}

/// Draws rectangles and text straight into a yuv420p frame (even coordinates keep chroma exact).
struct Canvas {
    let frame: VideoFrame

    func fill(x: Int, y: Int, width: Int, height: Int, color: YUVColor) {
        let left = max(0, x), top = max(0, y)
        let right = min(frame.width, x + width), bottom = min(frame.height, y + height)
        guard right > left, bottom > top else { return }
        for (plane, value) in [(0, color.y), (1, color.cb), (2, color.cr)] {
            let shift = plane == 0 ? 0 : 1
            frame.withPlane(plane) { bytes, stride, _, _ in
                for row in (top >> shift)..<((bottom + shift) >> shift) {
                    (bytes + row * stride + (left >> shift)).update(
                        repeating: value, count: ((right + shift) >> shift) - (left >> shift))
                }
            }
        }
    }

    /// Draws text in the 5×7 bitmap font, each font pixel `scale` pixels square; returns its width.
    @discardableResult
    func text(_ string: String, x: Int, y: Int, scale: Int, color: YUVColor) -> Int {
        var cursor = x
        for character in string {
            let rows = BitmapFont.glyph(character)
            for (row, bits) in rows.enumerated() {
                for column in 0..<5 where bits & (0x10 >> column) != 0 {
                    fill(x: cursor + column * scale, y: y + row * scale, width: scale, height: scale, color: color)
                }
            }
            cursor += 6 * scale
        }
        return cursor - x
    }
}

/// A 5×7 font: each glyph is seven rows, the five low bits of each a pixel, high bit leftmost.
enum BitmapFont {
    static func glyph(_ character: Character) -> [UInt8] {
        glyphs[character] ?? glyphs[" "]!
    }

    static let glyphs: [Character: [UInt8]] = [
        " ": [0, 0, 0, 0, 0, 0, 0],
        "0": [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E],
        "1": [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        "2": [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F],
        "3": [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        "4": [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02],
        "5": [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        "6": [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E],
        "7": [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        "8": [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E],
        "9": [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
        ":": [0x00, 0x0C, 0x0C, 0x00, 0x0C, 0x0C, 0x00],
        ".": [0x00, 0x00, 0x00, 0x00, 0x00, 0x0C, 0x0C],
        "-": [0x00, 0x00, 0x00, 0x1F, 0x00, 0x00, 0x00],
        "A": [0x0E, 0x11, 0x11, 0x1F, 0x11, 0x11, 0x11],
        "C": [0x0E, 0x11, 0x10, 0x10, 0x10, 0x11, 0x0E],
        "E": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x1F],
        "F": [0x1F, 0x10, 0x10, 0x1E, 0x10, 0x10, 0x10],
        "I": [0x0E, 0x04, 0x04, 0x04, 0x04, 0x04, 0x0E],
        "M": [0x11, 0x1B, 0x15, 0x15, 0x11, 0x11, 0x11],
        "N": [0x11, 0x11, 0x19, 0x15, 0x13, 0x11, 0x11],
        "O": [0x0E, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E],
        "R": [0x1E, 0x11, 0x11, 0x1E, 0x14, 0x12, 0x11],
        "S": [0x0F, 0x10, 0x10, 0x0E, 0x01, 0x01, 0x1E],
        "T": [0x1F, 0x04, 0x04, 0x04, 0x04, 0x04, 0x04],
        "U": [0x11, 0x11, 0x11, 0x11, 0x11, 0x11, 0x0E],
    ]
}
