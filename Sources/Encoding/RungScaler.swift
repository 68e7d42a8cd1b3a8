public import Media

/// Scales the captured picture down to one lower rendition of a ladder, on that rendition's encoder
/// thread: every rung from the captured picture itself (never from another rung), so each is one
/// scaling away from the screen. A repeated picture (the screen did not change) is scaled once and
/// its scaled copy repeated.
public final class RungScaler {
    public var width: Int { scaler.width }
    public var height: Int { scaler.height }
    private let scaler: PictureScaler
    /// The last picture scaled (held, so its buffer cannot be reused for another picture while
    /// it is compared against) and what it became.
    private var lastInput: VideoFrame?
    private var lastOutput: VideoFrame?

    public init(width: Int, height: Int) throws {
        scaler = try PictureScaler(width: width, height: height)
    }

    /// The picture of `frame` at this rung's size, with its index.
    public func scale(_ frame: VideoFrame) throws -> VideoFrame {
        if let lastInput, let lastOutput, lastInput.samePicture(as: frame) {
            return try lastOutput.reference(index: frame.index)
        }
        let output = try scaler.scale(frame)
        lastInput = frame
        lastOutput = output
        return output
    }
}
