internal import CFFmpeg

/// Pictures as JPEG (thumbnails, posters): scaled to the size asked for in full-range yuvj420p and
/// encoded with libavcodec's MJPEG encoder at a fixed quality. Keeps its scaler between pictures.
public final class JPEGEncoder {
    private var scaler: OpaquePointer?

    public init() {}

    /// `frame` at `width`x`height` as a JPEG. Wraps `sws_getCachedContext`, `sws_scale` and the
    /// `mjpeg` encoder.
    public func encode(_ frame: VideoFrame, width: Int, height: Int) throws -> [UInt8] {
        scaler = sws_getCachedContext(
            scaler, Int32(frame.width), Int32(frame.height), AV_PIX_FMT_YUV420P, Int32(width),
            Int32(height), AV_PIX_FMT_YUVJ420P, SWS_BICUBIC, nil, nil, nil)
        guard let scaler else { throw LibavError(code: -EINVAL, operation: "sws_getCachedContext") }
        let picture = try LibavAllocation(av_frame_alloc(), "av_frame_alloc") { av_frame_free(&$0) }
        picture.pointer.pointee.width = Int32(width)
        picture.pointer.pointee.height = Int32(height)
        picture.pointer.pointee.format = AV_PIX_FMT_YUVJ420P.rawValue
        picture.pointer.pointee.pts = 0
        try check(av_frame_get_buffer(picture.pointer, 0), "av_frame_get_buffer")
        try scalePicture(scaler, from: frame.frame, into: picture.pointer)
        let codec = try CodecContext(encoder: "mjpeg", track: TrackID(0), kind: .video) { context in
            context.pointee.width = Int32(width)
            context.pointee.height = Int32(height)
            context.pointee.pix_fmt = AV_PIX_FMT_YUVJ420P
            context.pointee.color_range = AVCOL_RANGE_JPEG
            context.pointee.time_base = AVRational(num: 1, den: 1)
            // A fixed quality (qscale 4 of 2 to 31): sharp text, some 30 to 60 KB at 640x360.
            context.pointee.flags |= AV_CODEC_FLAG_QSCALE
            context.pointee.global_quality = 4 * FF_QP2LAMBDA
        }
        var bytes: [UInt8] = []
        for packet in try codec.encode(picture.pointer) + codec.encode(nil) {
            bytes += UnsafeBufferPointer(start: packet.packet.pointee.data, count: packet.size)
        }
        return bytes
    }

    deinit {
        sws_freeContext(scaler)
    }
}
