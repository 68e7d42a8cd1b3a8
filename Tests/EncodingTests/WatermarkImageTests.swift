import Testing

@testable import Encoding

@Suite struct WatermarkImageTests {
    /// Premultiplied pixel 0 of a decoded PNG, as 8-bit-style values rounded to 1/255.
    static func firstPixel(_ png: [UInt8]) throws -> [Int] {
        let image = try WatermarkImage(png: png)
        let p = image.pixels[0]
        return [p.x, p.y, p.z, p.w].map { Int(($0 * 255).rounded()) }
    }

    @Test func rgba8IsPremultiplied() throws {
        let png = PNGBuilder.make(width: 1, height: 1, bitDepth: 8, colourType: 6, rows: [[255, 100, 0, 128]])
        #expect(try Self.firstPixel(png) == [128, 50, 0, 128])
    }

    @Test func rgba16KeepsItsPrecision() throws {
        let png = PNGBuilder.make(
            width: 1, height: 1, bitDepth: 16, colourType: 6, rows: [[0xFF, 0xFF, 0x80, 0x00, 0, 0, 0x80, 0x00]])
        let image = try WatermarkImage(png: png)
        let p = image.pixels[0]
        #expect(abs(p.w - Float(0x8000) / 65535) < 1e-6)
        #expect(abs(p.x - p.w) < 1e-6)
        #expect(abs(p.y - Float(0x8000) / 65535 * p.w) < 1e-6)
    }

    @Test func greyWithAlpha() throws {
        let png = PNGBuilder.make(width: 1, height: 1, bitDepth: 8, colourType: 4, rows: [[200, 51]])
        #expect(try Self.firstPixel(png) == [40, 40, 40, 51])
    }

    @Test func paletteWithTransparency() throws {
        let png = PNGBuilder.make(
            width: 2, height: 1, bitDepth: 8, colourType: 3, rows: [[1, 0]], palette: [0, 0, 255, 255, 0, 0],
            transparency: [255, 0])
        let image = try WatermarkImage(png: png)
        #expect(image.pixels[0] == SIMD4<Float>(0, 0, 0, 0))
        #expect(image.pixels[1] == SIMD4<Float>(0, 0, 1, 1))
    }

    @Test func noAlphaIsOpaque() throws {
        let rgb = PNGBuilder.make(width: 1, height: 1, bitDepth: 8, colourType: 2, rows: [[10, 20, 30]])
        #expect(try Self.firstPixel(rgb) == [10, 20, 30, 255])
        let grey16 = PNGBuilder.make(width: 1, height: 1, bitDepth: 16, colourType: 0, rows: [[0xFF, 0xFF]])
        #expect(try Self.firstPixel(grey16) == [255, 255, 255, 255])
    }

    @Test func badFilesAreRefusedWithWhatToDo() throws {
        let good = PNGBuilder.make(
            width: 2, height: 2, bitDepth: 8, colourType: 6,
            rows: [[UInt8]](repeating: [1, 2, 3, 4, 5, 6, 7, 8], count: 2))
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0, 16, 0x4A, 0x46, 0x49, 0x46]
        #expect(throws: EncodingError.notPNG("image")) { try WatermarkImage(png: jpeg) }
        #expect(throws: EncodingError.corrupt("image", "")) { try WatermarkImage(png: Array(good.dropLast(30))) }
        var damaged = good
        damaged[damaged.count - 20] ^= 0xFF
        #expect(throws: EncodingError.corrupt("image", "")) { try WatermarkImage(png: damaged) }
        let empty = PNGBuilder.make(width: 0, height: 0, bitDepth: 8, colourType: 6, rows: [])
        #expect(throws: EncodingError.empty("image")) { try WatermarkImage(png: empty) }
        #expect(
            EncodingError.notPNG("logo.jpg.png").description
                == "--watermark logo.jpg.png is not a PNG file; convert it to PNG")
    }
}
