import Runtime
internal import CFFmpeg
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

    /// Decodes PNG bytes. Wraps the libav `png` decoder.
    public convenience init(png bytes: [UInt8], path: String = "image") throws(WatermarkError) {
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.starts(with: signature) else { throw .notPNG(path) }
        guard bytes.count >= 33, bytes[16..<24].contains(where: { $0 != 0 }) else { throw .empty(path) }
        let width = bytes[16..<20].reduce(0) { $0 << 8 | Int($1) }
        let height = bytes[20..<24].reduce(0) { $0 << 8 | Int($1) }
        guard width > 0, height > 0 else { throw .empty(path) }
        guard width <= Self.sideLimit, height <= Self.sideLimit else { throw .tooLarge(path, width, height) }
        do {
            let frame = try PNGDecoder.decode(bytes)
            defer {
                var frame: UnsafeMutablePointer<AVFrame>? = frame
                av_frame_free(&frame)
            }
            guard frame.pointee.width > 0, frame.pointee.height > 0 else { throw WatermarkError.empty(path) }
            let pixels = try PixelReader.premultipliedRGBA(frame)
            self.init(width: Int(frame.pointee.width), height: Int(frame.pointee.height), pixels: pixels)
        } catch let error as WatermarkError {
            throw error
        } catch {
            throw .corrupt(path, "\(error)")
        }
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

/// One-shot PNG decoding through libav.
enum PNGDecoder {
    static func decode(_ bytes: [UInt8]) throws -> UnsafeMutablePointer<AVFrame> {
        guard let codec = avcodec_find_decoder(AV_CODEC_ID_PNG) else {
            throw LibavError(code: -ENOENT, operation: "avcodec_find_decoder(png)")
        }
        var context: UnsafeMutablePointer<AVCodecContext>? = try checkAllocation(
            avcodec_alloc_context3(codec), "avcodec_alloc_context3")
        defer { avcodec_free_context(&context) }
        context!.pointee.err_recognition = AV_EF_CRCCHECK | AV_EF_BITSTREAM | AV_EF_EXPLODE
        try check(avcodec_open2(context, codec, nil), "avcodec_open2(png)")
        var packet: UnsafeMutablePointer<AVPacket>? = try checkAllocation(av_packet_alloc(), "av_packet_alloc")
        defer { av_packet_free(&packet) }
        try check(av_new_packet(packet, Int32(bytes.count)), "av_new_packet")
        bytes.withUnsafeBufferPointer { packet!.pointee.data.update(from: $0.baseAddress!, count: bytes.count) }
        try check(avcodec_send_packet(context, packet), "avcodec_send_packet")
        try check(avcodec_send_packet(context, nil), "avcodec_send_packet(flush)")
        var frame: UnsafeMutablePointer<AVFrame>? = try checkAllocation(av_frame_alloc(), "av_frame_alloc")
        let received = avcodec_receive_frame(context, frame)
        guard received >= 0, frame!.pointee.decode_error_flags == 0 else {
            av_frame_free(&frame)
            throw LibavError(code: received < 0 ? received : CFFmpeg_AVERROR_INVALIDDATA, operation: "png decode")
        }
        return frame!
    }
}

/// Reads each layout libav's PNG decoder produces into premultiplied float RGBA.
enum PixelReader {
    static func premultipliedRGBA(_ frame: UnsafeMutablePointer<AVFrame>) throws -> [SIMD4<Float>] {
        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        let format = AVPixelFormat(frame.pointee.format)
        let data = frame.pointee.data.0!
        let stride = Int(frame.pointee.linesize.0)
        let palette = frame.pointee.data.1.map { $0.withMemoryRebound(to: UInt32.self, capacity: 256) { $0 } }
        func byte(_ row: Int, _ offset: Int) -> Float { Float(data[row * stride + offset]) / 255 }
        func word(_ row: Int, _ offset: Int) -> Float {
            Float(UInt16(data[row * stride + offset]) << 8 | UInt16(data[row * stride + offset + 1])) / 65535
        }
        let read: (Int, Int) -> SIMD4<Float>
        switch format {
        case AV_PIX_FMT_RGBA:
            read = { r, x in [byte(r, 4 * x), byte(r, 4 * x + 1), byte(r, 4 * x + 2), byte(r, 4 * x + 3)] }
        case AV_PIX_FMT_RGB24: read = { r, x in [byte(r, 3 * x), byte(r, 3 * x + 1), byte(r, 3 * x + 2), 1] }
        case AV_PIX_FMT_GRAY8:
            read = { r, x in
                let g = byte(r, x); return [g, g, g, 1]
            }
        case AV_PIX_FMT_YA8:
            read = { r, x in
                let g = byte(r, 2 * x); return [g, g, g, byte(r, 2 * x + 1)]
            }
        case AV_PIX_FMT_RGBA64BE:
            read = { r, x in [word(r, 8 * x), word(r, 8 * x + 2), word(r, 8 * x + 4), word(r, 8 * x + 6)] }
        case AV_PIX_FMT_RGB48BE: read = { r, x in [word(r, 6 * x), word(r, 6 * x + 2), word(r, 6 * x + 4), 1] }
        case AV_PIX_FMT_GRAY16BE:
            read = { r, x in
                let g = word(r, 2 * x); return [g, g, g, 1]
            }
        case AV_PIX_FMT_YA16BE:
            read = { r, x in
                let g = word(r, 4 * x); return [g, g, g, word(r, 4 * x + 2)]
            }
        case AV_PIX_FMT_MONOBLACK:
            read = { r, x in
                let g: Float = data[r * stride + x / 8] & (0x80 >> UInt8(x % 8)) != 0 ? 1 : 0
                return [g, g, g, 1]
            }
        case AV_PIX_FMT_PAL8:
            guard let palette else { throw WatermarkError.unsupported("image", "palette without colours") }
            // libav stores each entry as native-endian 0xAARRGGBB, with tRNS alpha folded in.
            read = { r, x in
                let entry = palette[Int(data[r * stride + x])]
                return [
                    Float(entry >> 16 & 0xff) / 255, Float(entry >> 8 & 0xff) / 255, Float(entry & 0xff) / 255,
                    Float(entry >> 24) / 255,
                ]
            }
        default:
            throw WatermarkError.unsupported("image", String(cString: av_get_pix_fmt_name(format)))
        }
        var pixels: [SIMD4<Float>] = []
        pixels.reserveCapacity(width * height)
        for row in 0..<height {
            for x in 0..<width {
                let straight = read(row, x)
                pixels.append([straight.x * straight.w, straight.y * straight.w, straight.z * straight.w, straight.w])
            }
        }
        return pixels
    }
}
