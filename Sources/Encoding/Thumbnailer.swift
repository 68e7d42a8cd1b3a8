internal import CFFmpeg
public import Media
import Synchronization

/// The channel's newest picture as a small JPEG: for the index page, the embed's poster and the
/// previews of a shared watch link. The top rendition's encoder thread offers it every frame and
/// it keeps one every ``interval`` frames (a reference, no copy: frames never change once sent);
/// the picture is scaled and encoded only when asked for, on the asking thread, and kept until
/// a newer one is asked for. So it costs the live path a lock held for a pointer swap, once a frame.
public final class Thumbnailer: Sendable {
    /// The width of the JPEG (the picture's own when narrower); the height keeps its shape.
    public static let largestWidth = 640

    /// Frames between the pictures kept: how old a thumbnail may be.
    public let interval: Int64
    private let slot = Mutex<VideoFrame?>(nil)
    private let encoding = Mutex<Encoding>(Encoding())

    /// What the last request made, and the scaler it used.
    private struct Encoding: ~Copyable {
        var index: Int64?
        var jpeg: [UInt8] = []
        var scaler: OpaquePointer?

        deinit { sws_freeContext(scaler) }
    }

    /// `fps` frames a second; a picture kept every `seconds`.
    public init(fps: Int, seconds: Double = 2) {
        interval = max(1, Int64((Double(fps) * seconds).rounded()))
    }

    /// Keeps `frame` when the one kept is `interval` frames old (or none is).
    public func offer(_ frame: VideoFrame) {
        slot.withLock { kept in
            if kept.map({ frame.index >= $0.index + interval || frame.index < $0.index }) ?? true { kept = frame }
        }
    }

    /// True once a picture is kept.
    public var hasPicture: Bool { slot.withLock { $0 != nil } }

    /// The newest kept picture as a JPEG, and its frame index; nil before the first picture.
    public func jpeg() throws -> (bytes: [UInt8], index: Int64)? {
        guard let frame = slot.withLock({ $0 }) else { return nil }
        return try encoding.withLock { state throws -> ([UInt8], Int64) in
            if state.index != frame.index {
                state.jpeg = try Self.encode(frame, scaler: &state.scaler)
                state.index = frame.index
            }
            return (state.jpeg, frame.index)
        }
    }

    /// The size of a thumbnail of a `width`x`height` picture: at most ``largestWidth`` wide, both even.
    public static func size(width: Int, height: Int) -> (width: Int, height: Int) {
        let targetWidth = min(largestWidth, width) & ~1
        let targetHeight = Int((Double(height) * Double(targetWidth) / Double(width)).rounded()) & ~1
        return (max(2, targetWidth), max(2, targetHeight))
    }

    /// Scales the picture to the thumbnail's size in full-range yuvj420p and encodes it with
    /// libavcodec's MJPEG encoder. Wraps `sws_getCachedContext`, `sws_scale` and the encoder.
    private static func encode(_ frame: VideoFrame, scaler: inout OpaquePointer?) throws -> [UInt8] {
        let size = size(width: frame.width, height: frame.height)
        scaler = sws_getCachedContext(
            scaler, Int32(frame.width), Int32(frame.height), AV_PIX_FMT_YUV420P, Int32(size.width),
            Int32(size.height), AV_PIX_FMT_YUVJ420P, SWS_BICUBIC, nil, nil, nil)
        guard let scaler else { throw LibavError(code: -EINVAL, operation: "sws_getCachedContext") }
        let picture = try LibavAllocation(av_frame_alloc(), "av_frame_alloc") { av_frame_free(&$0) }
        picture.pointer.pointee.width = Int32(size.width)
        picture.pointer.pointee.height = Int32(size.height)
        picture.pointer.pointee.format = AV_PIX_FMT_YUVJ420P.rawValue
        picture.pointer.pointee.pts = 0
        try check(av_frame_get_buffer(picture.pointer, 0), "av_frame_get_buffer")
        try scalePicture(scaler, from: frame.frame, into: picture.pointer)
        let codec = try CodecContext(encoder: "mjpeg", track: TrackID(0), kind: .video) { context in
            context.pointee.width = Int32(size.width)
            context.pointee.height = Int32(size.height)
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
}
