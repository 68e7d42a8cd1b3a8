internal import CFFmpeg
import Media

/// Converts captured BGRX pixels into a yuv420p frame of the output size, scaled with the
/// source's aspect ratio kept and black bars around it. Owns a SwsContext, made again when the
/// captured size changes (a resized window, a new screen resolution).
final class PictureFitter {
    let outputWidth: Int
    let outputHeight: Int
    private var context: OpaquePointer?
    private var sourceSize = (width: 0, height: 0)
    private var placement = PixelRect(x: 0, y: 0, width: 0, height: 0)

    init(outputWidth: Int, outputHeight: Int) {
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
    }

    /// Fills `frame` with the picture. Wraps `sws_scale`.
    func fit(_ pixels: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int, into frame: VideoFrame) throws
    {
        if sourceSize != (width, height) {
            sws_freeContext(context)
            placement = FrameGeometry.letterbox(
                sourceWidth: width, sourceHeight: height, targetWidth: outputWidth, targetHeight: outputHeight)
            context = sws_getContext(
                Int32(width), Int32(height), AV_PIX_FMT_BGR0, Int32(placement.width), Int32(placement.height),
                AV_PIX_FMT_YUV420P, SWS_BICUBIC, nil, nil, nil)
            guard context != nil else { throw LibavError(code: -EINVAL, operation: "sws_getContext") }
            sourceSize = (width, height)
        }
        let letterboxed = placement.width < outputWidth || placement.height < outputHeight
        var targets: [UnsafeMutablePointer<UInt8>?] = []
        var strides: [Int32] = []
        for (plane, black) in [(0, UInt8(16)), (1, UInt8(128)), (2, UInt8(128))] {
            let shift = plane == 0 ? 0 : 1
            frame.withPlane(plane) { bytes, planeStride, planeWidth, planeHeight in
                if letterboxed {
                    for row in 0..<planeHeight {
                        (bytes + row * planeStride).update(repeating: black, count: planeWidth)
                    }
                }
                targets.append(bytes + (placement.y >> shift) * planeStride + (placement.x >> shift))
                strides.append(Int32(planeStride))
            }
        }
        var source: [UnsafePointer<UInt8>?] = [UnsafePointer(pixels)]
        var sourceStrides: [Int32] = [Int32(stride)]
        let rows = sws_scale(context, &source, &sourceStrides, 0, Int32(height), &targets, &strides)
        try check(rows, "sws_scale")
    }

    deinit {
        sws_freeContext(context)
    }
}
