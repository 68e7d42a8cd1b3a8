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
    public convenience init(contentsOf path: String) throws(WatermarkError) {
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
    public convenience init(png bytes: [UInt8], path: String = "image") throws(WatermarkError) {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.starts(with: signature) else { throw .notPNG(path) }
        guard bytes.count >= 33, bytes[16..<24].contains(where: { $0 != 0 }) else { throw .empty(path) }
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        guard width > 0, height > 0 else { throw .empty(path) }
        guard width <= Self.sideLimit, height <= Self.sideLimit else { throw .tooLarge(path, width, height) }
        let picture: PNGDecoder.Picture
        do throws(PNGDecoder.Failure) {
            picture = try PNGDecoder.premultipliedRGBA(bytes)
        } catch {
            switch error {
            case .damaged(let detail): throw .corrupt(path, detail)
            case .unsupported(let layout): throw .unsupported(path, layout)
            }
        }
        guard picture.width > 0, picture.height > 0 else { throw .empty(path) }
        self.init(width: picture.width, height: picture.height, pixels: picture.pixels)
    }
}

/// Why a watermark cannot be used; each message says what to do.
public enum WatermarkError: Error, CustomStringConvertible, Equatable {
    /// Errors compare by kind and file: the decoder's detail is for logs, not for tests.
    public static func == (lhs: WatermarkError, rhs: WatermarkError) -> Bool {
        switch (lhs, rhs) {
        case (.unreadable(let a), .unreadable(let b)), (.notPNG(let a), .notPNG(let b)), (.empty(let a), .empty(let b)):
            a == b
        case (.corrupt(let a, _), .corrupt(let b, _)), (.unsupported(let a, _), .unsupported(let b, _)): a == b
        default: false
        }
    }

    case unreadable(String)
    case notRegularFile(String)
    case fileTooLarge(String)
    case tooLarge(String, Int, Int)
    case notPNG(String)
    case corrupt(String, String)
    case empty(String)
    case unsupported(String, String)

    public var description: String {
        switch self {
        case .unreadable(let path): "--watermark \(path) cannot be read; check the path"
        case .notRegularFile(let path): "--watermark \(path) is not a regular file"
        case .fileTooLarge(let path):
            "--watermark \(path) is larger than \(WatermarkImage.fileLimit >> 20) MiB; a watermark is a small PNG"
        case .tooLarge(let path, let width, let height):
            "--watermark \(path) at \(width)x\(height) is too large: at most \(WatermarkImage.sideLimit)x\(WatermarkImage.sideLimit) pixels; scale it down"
        case .notPNG(let path): "--watermark \(path) is not a PNG file; convert it to PNG"
        case .corrupt(let path, _): "--watermark \(path) is a damaged or truncated PNG; export it again"
        case .empty(let path): "--watermark \(path) has no pixels (zero width or height)"
        case .unsupported(let path, let format): "--watermark \(path) uses an unsupported PNG layout (\(format))"
        }
    }
}
