internal import CFFmpeg

/// Scales yuv420p pictures of any size to one size, into a pool of pictures of that size. Owns a
/// SwsContext, made again when the pictures given change size.
public final class PictureScaler {
    public let width: Int
    public let height: Int
    private let pool: VideoFramePool
    private var context: OpaquePointer?
    private var source = (width: 0, height: 0)

    public init(width: Int, height: Int) throws(LibavError) {
        self.width = width
        self.height = height
        pool = try VideoFramePool(width: width, height: height)
    }

    /// The picture of `frame` at this size, with its index. Wraps `sws_getContext` and `sws_scale`.
    public func scale(_ frame: VideoFrame) throws -> VideoFrame {
        if context == nil || source != (frame.width, frame.height) {
            sws_freeContext(context)
            context = sws_getContext(
                Int32(frame.width), Int32(frame.height), AV_PIX_FMT_YUV420P, Int32(width), Int32(height),
                AV_PIX_FMT_YUV420P, SWS_BICUBIC, nil, nil, nil)
            guard context != nil else { throw LibavError(code: -EINVAL, operation: "sws_getContext") }
            source = (frame.width, frame.height)
        }
        let output = try pool.makeFrame(index: frame.index)
        try scalePicture(context!, from: frame.frame, into: output.frame)
        return output
    }

    deinit {
        sws_freeContext(context)
    }
}
