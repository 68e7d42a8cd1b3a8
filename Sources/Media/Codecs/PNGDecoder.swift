internal import CFFmpeg

/// One-shot PNG decoding through libav's decoder in strict mode (CRCs checked, any damage fatal),
/// into premultiplied RGBA in 0…1 whatever the bit depth or colour type.
public enum PNGDecoder {
    /// A decoded picture: premultiplied red, green, blue, alpha per pixel, rows top to bottom; nil
    /// for a pixel layout not read here.
    public struct Picture: Sendable {
        public let width: Int
        public let height: Int
        /// libav's name of the decoded layout (`rgba`, `pal8`, …).
        public let layout: String
        public let pixels: [SIMD4<Float>]?
    }

    /// Decodes `bytes`, a whole PNG file; damaged or truncated bytes are libav's error.
    public static func premultipliedRGBA(_ bytes: [UInt8]) throws(LibavError) -> Picture {
        let frame = try decode(bytes)
        defer {
            var frame: UnsafeMutablePointer<AVFrame>? = frame
            av_frame_free(&frame)
        }
        let format = AVPixelFormat(frame.pointee.format)
        return Picture(
            width: Int(frame.pointee.width), height: Int(frame.pointee.height),
            layout: av_get_pix_fmt_name(format).map { String(cString: $0) } ?? "unknown",
            pixels: PixelReader.premultipliedRGBA(frame))
    }

    /// Wraps the `png` decoder: `avcodec_send_packet` and `avcodec_receive_frame`.
    private static func decode(_ bytes: [UInt8]) throws(LibavError) -> UnsafeMutablePointer<AVFrame> {
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
    /// Nil for a layout not read here.
    static func premultipliedRGBA(_ frame: UnsafeMutablePointer<AVFrame>) -> [SIMD4<Float>]? {
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
            guard let palette else { return nil }
            // libav stores each entry as native-endian 0xAARRGGBB, with tRNS alpha folded in.
            read = { r, x in
                let entry = palette[Int(data[r * stride + x])]
                return [
                    Float(entry >> 16 & 0xff) / 255, Float(entry >> 8 & 0xff) / 255, Float(entry & 0xff) / 255,
                    Float(entry >> 24) / 255,
                ]
            }
        default:
            return nil
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
