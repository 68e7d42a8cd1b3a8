internal import CFFmpeg
import Media

/// Converts captured BGRX pixels into a yuv420p frame of the output size, scaled with the
/// source's aspect ratio kept and black bars around it: the whole picture, or only the pieces
/// a change reaches (`DamageMapping`). Owns a SwsContext, made again when the captured size
/// changes (a resized window, a new screen resolution), a few more for pieces, by size, and
/// the scratch picture pieces are converted into.
final class PictureFitter {
    let outputWidth: Int
    let outputHeight: Int
    private var context: OpaquePointer?
    private var sourceSize = (width: 0, height: 0)
    private var placement = PixelRect(x: 0, y: 0, width: 0, height: 0)
    /// Contexts for pieces, by source and output size; dropped all at once when full.
    private var pieceContexts: [PieceSize: OpaquePointer] = [:]
    private static let pieceContextLimit = 32
    private var scratch: VideoFrame?

    private struct PieceSize: Hashable {
        var sourceWidth, sourceHeight, outputWidth, outputHeight: Int
    }

    /// How pieces of a `width`×`height` capture map into the output.
    func mapping(width: Int, height: Int) -> DamageMapping {
        DamageMapping(
            sourceWidth: width, sourceHeight: height,
            placement: FrameGeometry.letterbox(
                sourceWidth: width, sourceHeight: height, targetWidth: outputWidth, targetHeight: outputHeight))
    }

    /// Converts one piece (its source pixels, as read) and copies its kept part into `frame`,
    /// whose other pixels stay as they are. Wraps `sws_scale`.
    func fit(
        piece: DamageMapping.Piece, _ pixels: UnsafeMutablePointer<UInt8>, stride: Int, into frame: VideoFrame
    ) throws {
        let size = PieceSize(
            sourceWidth: piece.source.width, sourceHeight: piece.source.height, outputWidth: piece.output.width,
            outputHeight: piece.output.height)
        let context = try pieceContext(size)
        if scratch == nil || scratch!.width < size.outputWidth || scratch!.height < size.outputHeight {
            scratch = try VideoFrame(
                width: max(size.outputWidth, scratch?.width ?? 0), height: max(size.outputHeight, scratch?.height ?? 0),
                index: 0)
        }
        let scratch = scratch!
        var targets: [UnsafeMutablePointer<UInt8>?] = []
        var strides: [Int32] = []
        for plane in 0..<3 {
            scratch.withPlane(plane) { bytes, planeStride, _, _ in
                targets.append(bytes)
                strides.append(Int32(planeStride))
            }
        }
        var source: [UnsafePointer<UInt8>?] = [UnsafePointer(pixels)]
        var sourceStrides: [Int32] = [Int32(stride)]
        let rows = sws_scale(context, &source, &sourceStrides, 0, Int32(size.sourceHeight), &targets, &strides)
        try check(rows, "sws_scale")
        // The kept part, plane by plane (chroma at half size: pieces sit on an even grid).
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let columns = (piece.kept.width + shift) >> shift, lines = (piece.kept.height + shift) >> shift
            let fromX = (piece.kept.x - piece.output.x) >> shift, fromY = (piece.kept.y - piece.output.y) >> shift
            scratch.withPlane(plane) { from, fromStride, _, _ in
                frame.withPlane(plane) { to, toStride, _, _ in
                    for line in 0..<lines {
                        (to + ((piece.kept.y >> shift) + line) * toStride + (piece.kept.x >> shift)).update(
                            from: from + (fromY + line) * fromStride + fromX, count: columns)
                    }
                }
            }
        }
    }

    private func pieceContext(_ size: PieceSize) throws -> OpaquePointer {
        if let context = pieceContexts[size] { return context }
        if pieceContexts.count >= Self.pieceContextLimit {
            pieceContexts.values.forEach { sws_freeContext($0) }
            pieceContexts = [:]
        }
        guard
            let context = sws_getContext(
                Int32(size.sourceWidth), Int32(size.sourceHeight), AV_PIX_FMT_BGR0, Int32(size.outputWidth),
                Int32(size.outputHeight), AV_PIX_FMT_YUV420P, SWS_BICUBIC, nil, nil, nil)
        else { throw LibavError(code: -EINVAL, operation: "sws_getContext") }
        pieceContexts[size] = context
        return context
    }

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
        pieceContexts.values.forEach { sws_freeContext($0) }
    }
}
