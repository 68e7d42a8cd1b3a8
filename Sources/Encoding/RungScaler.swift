internal import CFFmpeg
public import Media

/// Scales the captured picture down to one lower rendition of a ladder, on that rendition's encoder
/// thread: every rung from the captured picture itself (never from another rung), so each is one
/// scaling away from the screen. A repeated picture (the screen did not change) is scaled once and
/// its scaled copy repeated. Owns a SwsContext and a pool of pictures of the rung's size.
public final class RungScaler {
    public let width: Int
    public let height: Int
    private let pool: VideoFramePool
    private var context: OpaquePointer?
    private var contextSource = (width: 0, height: 0)
    /// The last picture scaled (held, so its buffer cannot be reused for another picture while
    /// it is compared against) and what it became.
    private var lastInput: VideoFrame?
    private var lastOutput: VideoFrame?

    public init(width: Int, height: Int) throws {
        self.width = width
        self.height = height
        pool = try VideoFramePool(width: width, height: height)
    }

    /// The picture of `frame` at this rung's size, with its index. Wraps `sws_scale`.
    public func scale(_ frame: VideoFrame) throws -> VideoFrame {
        if let lastInput, let lastOutput, lastInput.samePicture(as: frame) {
            return try lastOutput.reference(index: frame.index)
        }
        if context == nil || contextSource != (frame.width, frame.height) {
            sws_freeContext(context)
            context = sws_getContext(
                Int32(frame.width), Int32(frame.height), AV_PIX_FMT_YUV420P, Int32(width), Int32(height),
                AV_PIX_FMT_YUV420P, SWS_BICUBIC, nil, nil, nil)
            guard context != nil else { throw LibavError(code: -EINVAL, operation: "sws_getContext") }
            contextSource = (frame.width, frame.height)
        }
        let output = try pool.makeFrame(index: frame.index)
        try scalePicture(context!, from: frame.frame, into: output.frame)
        lastInput = frame
        lastOutput = output
        return output
    }

    deinit {
        sws_freeContext(context)
    }
}
