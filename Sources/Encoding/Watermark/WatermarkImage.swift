import Runtime
import Media

/// A decoded PNG as premultiplied RGBA in 0…1, whatever its bit depth or colour type.
public final class WatermarkImage: Sendable {
    public let width: Int
    public let height: Int
    /// Premultiplied red, green, blue, alpha per pixel, rows top to bottom.
    let pixels: [SIMD4<Float>]

    init(width: Int, height: Int, pixels: [SIMD4<Float>]) {
        precondition(pixels.count == width * height)
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The largest PNG file taken: 32 MiB, far more than any logo needs.
    public static let fileLimit = 32 << 20
    /// The largest side in pixels: 8192 (a decoded 8192x8192 picture is 256 MiB of RGBA).
    public static let sideLimit = 8192

    /// Decodes a PNG file with libav's decoder in strict mode (CRCs checked, any damage fatal).
    public convenience init(contentsOf path: String) throws(EncodingError) {
        let bytes: [UInt8]
        do throws(RegularFile.Problem) {
            bytes = try RegularFile.read(path, limit: Self.fileLimit)
        } catch {
            switch error {
            case .unreadable: throw .unreadable(path)
            case .notRegular: throw .notRegularFile(path)
            case .tooLarge: throw .fileTooLarge(path)
            }
        }
        try self.init(png: bytes, path: path)
    }

    /// Decodes PNG bytes with libav's decoder (see ``PNGDecoder``).
    public convenience init(png bytes: [UInt8], path: String = "image") throws(EncodingError) {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.starts(with: signature) else { throw .notPNG(path) }
        guard bytes.count >= 33, bytes[16..<24].contains(where: { $0 != 0 }) else { throw .empty(path) }
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        guard width > 0, height > 0 else { throw .empty(path) }
        guard width <= Self.sideLimit, height <= Self.sideLimit else { throw .tooLarge(path, width, height) }
        let picture: PNGDecoder.Picture
        do {
            picture = try PNGDecoder.premultipliedRGBA(bytes)
        } catch {
            throw .corrupt(path, "\(error)")
        }
        guard picture.width > 0, picture.height > 0 else { throw .empty(path) }
        guard let pixels = picture.pixels else { throw .unsupported(path, picture.layout) }
        self.init(width: picture.width, height: picture.height, pixels: pixels)
    }
}
