import Runtime
internal import CFFmpeg
import Media

/// Converts captured BGRX pixels into a yuv420p frame of the output size, scaled with the
/// source's aspect ratio kept and black bars around it: the whole picture, or only the pieces a
/// change reaches (`DamageMapping`), either read in bands of full rows. Owns a SwsContext, made
/// again when the captured size changes (a resized window, a new screen resolution), a few more
/// for pieces, by size, the scratch picture pieces are converted into, and, where changes are
/// redrawn as whole rows, a copy of the captured area.
final class PictureFitter {
    let outputWidth: Int
    let outputHeight: Int
    private var context: OpaquePointer?
    private var sourceSize = (width: 0, height: 0)
    private var placement = PixelRect(x: 0, y: 0, width: 0, height: 0)
    /// Contexts for pieces, by source and output size; dropped all at once when full.
    private var pieceContexts: [PieceSize: OpaquePointer] = [:]
    private static let pieceContextLimit = 32
    /// Bicubic, with the colour taken from every pixel of the screen and then scaled to half
    /// width like the rest (`SWS_FULL_CHR_H_INP`), for the whole picture and its pieces alike.
    /// libswscale's default first averages each pair of pixels' colour, in a path that costs more:
    /// a 1920x1080 screen converts in 5.0 ms rather than 8.2, a 3840x2160 one scaled to 1920x1080
    /// in 19 rather than 24 (BENCHMARKS.md, "Converting the screen's colours").
    static let scalerFlags = SWS_BICUBIC | SWS_FULL_CHR_H_INP
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

    /// Hands what `read` reads and converts: the pixels of a rectangle of the captured area, and
    /// their stride, as read for it.
    typealias Read = (PixelRect, (UnsafeMutablePointer<UInt8>, Int) throws -> Void) throws -> Void

    /// `rect` in bands of full rows (of `rect`), at most `bandBytes` of BGRX each, top to bottom.
    func bands(of rect: PixelRect) -> [PixelRect] {
        let rows = max(1, min(rect.height, bandBytes / max(1, rect.width * 4)))
        return Swift.stride(from: 0, to: rect.height, by: rows).map {
            PixelRect(x: rect.x, y: rect.y + $0, width: rect.width, height: min(rows, rect.height - $0))
        }
    }

    /// Converts one piece of `mapping`, its source pixels read in bands by `read`, and copies its
    /// kept part into `frame`, whose other pixels stay as they are. Wraps `sws_scale`.
    func fit(piece: DamageMapping.Piece, of mapping: DamageMapping, into frame: VideoFrame, read: Read) throws {
        if piece.wholeRows {
            return try fit(rows: piece, of: mapping, into: frame, read: read)
        }
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
        for band in bands(of: piece.source) {
            try read(band) { pixels, stride in
                var source: [UnsafePointer<UInt8>?] = [UnsafePointer(pixels)]
                var sourceStrides: [Int32] = [Int32(stride)]
                let rows = sws_scale(
                    context, &source, &sourceStrides, Int32(band.y - piece.source.y), Int32(band.height), &targets,
                    &strides)
                try check(rows, "sws_scale")
            }
        }
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

    /// Puts the box read into the copy of the area, then converts the rows it reaches with the
    /// whole picture's scaler, asking it for those output rows only. Wraps `sws_frame_start`,
    /// `sws_send_slice` and `sws_receive_slice`.
    private func fit(rows piece: DamageMapping.Piece, of mapping: DamageMapping, into frame: VideoFrame, read: Read)
        throws
    {
        let context = try wholeContext(width: mapping.sourceWidth, height: mapping.sourceHeight)
        guard let copy, copy.width == mapping.sourceWidth, copy.height == mapping.sourceHeight else {
            throw LibavError(code: -EINVAL, operation: "a redraw of rows before the whole area was read")
        }
        for band in bands(of: piece.source) {
            try read(band) { pixels, stride in copy.put(band, from: pixels, stride: stride) }
        }
        // The scaler keeps a reference to its source, so the copy goes in a buffer that frees nothing.
        let source = try LibavAllocation(av_frame_alloc(), "av_frame_alloc") { av_frame_free(&$0) }
        source.pointer.pointee.width = Int32(copy.width)
        source.pointer.pointee.height = Int32(copy.height)
        source.pointer.pointee.format = AV_PIX_FMT_BGR0.rawValue
        source.pointer.pointee.data.0 = copy.pixels
        source.pointer.pointee.linesize.0 = Int32(copy.stride)
        let size = copy.stride * copy.height
        let buffer: UnsafeMutablePointer<AVBufferRef>? = av_buffer_create(copy.pixels, size, { _, _ in }, nil, 0)
        source.pointer.pointee.buf.0 = try checkAllocation(buffer, "av_buffer_create")
        // The target: the frame's picture between its bars.
        let target = try LibavAllocation(av_frame_alloc(), "av_frame_alloc") { av_frame_free(&$0) }
        try check(av_frame_ref(target.pointer, frame.frame), "av_frame_ref")
        target.pointer.pointee.width = Int32(placement.width)
        target.pointer.pointee.height = Int32(placement.height)
        var starts: [UnsafeMutablePointer<UInt8>] = []
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let (bytes, planeStride) = frame.withPlane(plane) { bytes, planeStride, _, _ in (bytes, planeStride) }
            let offset: Int = (placement.y >> shift) * planeStride + (placement.x >> shift)
            starts.append(bytes + offset)
        }
        target.pointer.pointee.data.0 = starts[0]
        target.pointer.pointee.data.1 = starts[1]
        target.pointer.pointee.data.2 = starts[2]
        try check(sws_frame_start(context, target.pointer, source.pointer), "sws_frame_start")
        defer { sws_frame_end(context) }
        try check(sws_send_slice(context, 0, UInt32(copy.height)), "sws_send_slice")
        let first = UInt32(piece.kept.y - placement.y), count = UInt32(piece.kept.height)
        try check(sws_receive_slice(context, first, count), "sws_receive_slice")
    }

    /// The captured area as last read, in BGRX, kept where changes are redrawn as whole rows.
    private final class AreaCopy {
        let width: Int
        let height: Int
        let stride: Int
        let pixels: UnsafeMutablePointer<UInt8>

        init(width: Int, height: Int) {
            self.width = width
            self.height = height
            stride = width * 4
            pixels = .allocate(capacity: stride * height)
        }

        /// Copies `box` (area coordinates) from pixels read for it.
        func put(_ box: PixelRect, from read: UnsafeMutablePointer<UInt8>, stride readStride: Int) {
            for line in 0..<box.height {
                let to: UnsafeMutablePointer<UInt8> = pixels + (box.y + line) * stride + box.x * 4
                to.update(from: read + line * readStride, count: box.width * 4)
            }
        }

        deinit { pixels.deallocate() }
    }

    private var copy: AreaCopy?

    private func pieceContext(_ size: PieceSize) throws -> OpaquePointer {
        if let context = pieceContexts[size] { return context }
        if pieceContexts.count >= Self.pieceContextLimit {
            pieceContexts.values.forEach { sws_freeContext($0) }
            pieceContexts = [:]
        }
        guard
            let context = sws_getContext(
                Int32(size.sourceWidth), Int32(size.sourceHeight), AV_PIX_FMT_BGR0, Int32(size.outputWidth),
                Int32(size.outputHeight), AV_PIX_FMT_YUV420P, Self.scalerFlags, nil, nil, nil)
        else { throw LibavError(code: -EINVAL, operation: "sws_getContext") }
        pieceContexts[size] = context
        return context
    }

    /// The most BGRX read at once: a whole picture, or a piece, larger than that is read in bands
    /// (`bands(of:)`, `fit(width:height:into:read:)`).
    let bandBytes: Int
    static let defaultBandBytes = 2 << 20

    init(outputWidth: Int, outputHeight: Int, bandBytes: Int = PictureFitter.defaultBandBytes) {
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.bandBytes = bandBytes
    }

    /// Redraws the changed `boxes` of a `width`×`height` capture into `frame`, a copy of the
    /// `previous` picture: each box's piece (`DamageMapping`, area coordinates) is read by `read`,
    /// band by band, which hands their pixels and stride to the conversion. Returns the pixels read
    /// and converted, and the frame's changed areas.
    func redraw(
        _ boxes: [PixelRect], width: Int, height: Int, over previous: VideoFrame, into frame: VideoFrame, read: Read
    ) throws -> (read: Int, converted: Int, areas: [PixelRect]) {
        frame.copyPicture(from: previous)
        let mapping = mapping(width: width, height: height)
        var counts = (read: 0, converted: 0, areas: [PixelRect]())
        for box in boxes {
            let piece = mapping.piece(for: box)
            try fit(piece: piece, of: mapping, into: frame, read: read)
            counts.read += piece.source.width * piece.source.height
            counts.converted += piece.output.width * piece.output.height
            counts.areas.append(piece.kept)
        }
        return counts
    }

    /// Fills `frame` with the picture, in hand whole.
    func fit(_ pixels: UnsafeMutablePointer<UInt8>, stride: Int, width: Int, height: Int, into frame: VideoFrame) throws
    {
        try fit(width: width, height: height, into: frame) { band, convert in
            try convert(pixels + band.y * stride, stride)
        }
    }

    /// Fills `frame` with a `width`×`height` picture that `read` hands over band by band, top
    /// to bottom: full-width rows, at most `bandBytes` of BGRX each, so whoever reads the screen
    /// needs room for a band, not for the whole screen (a 3840x2160 screen is 33 MB). The scaler
    /// takes the bands as slices of one picture, so the frame is the same as from one read.
    /// Wraps `sws_scale`.
    func fit(width: Int, height: Int, into frame: VideoFrame, read: Read) throws {
        let context = try wholeContext(width: width, height: height)
        if mapping(width: width, height: height).redrawsRows {
            if copy?.width != width || copy?.height != height { copy = AreaCopy(width: width, height: height) }
        } else {
            copy = nil
        }
        // The bars: the picture is painted over the rest.
        if placement.width < outputWidth || placement.height < outputHeight { frame.paintBlack() }
        var targets: [UnsafeMutablePointer<UInt8>?] = []
        var strides: [Int32] = []
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            frame.withPlane(plane) { bytes, planeStride, _, _ in
                targets.append(bytes + (placement.y >> shift) * planeStride + (placement.x >> shift))
                strides.append(Int32(planeStride))
            }
        }
        for band in bands(of: PixelRect(x: 0, y: 0, width: width, height: height)) {
            try read(band) { pixels, stride in
                copy?.put(band, from: pixels, stride: stride)
                var source: [UnsafePointer<UInt8>?] = [UnsafePointer(pixels)]
                var sourceStrides: [Int32] = [Int32(stride)]
                let rows = sws_scale(
                    context, &source, &sourceStrides, Int32(band.y), Int32(band.height), &targets, &strides)
                try check(rows, "sws_scale")
            }
        }
    }

    /// The whole picture's scaler for a `width`×`height` capture, made again when the size changes.
    /// Where changes are redrawn as whole rows it runs on two threads: libswscale asked for some
    /// rows puts the luma rows at half their place unless it is threaded (its threads then share
    /// the rows asked for). Wraps `sws_alloc_context` and `sws_init_context`.
    private func wholeContext(width: Int, height: Int) throws -> OpaquePointer {
        if let context, sourceSize == (width, height) { return context }
        sws_freeContext(context)
        context = nil
        placement = FrameGeometry.letterbox(
            sourceWidth: width, sourceHeight: height, targetWidth: outputWidth, targetHeight: outputHeight)
        guard let made = sws_alloc_context() else { throw LibavError(code: -ENOMEM, operation: "sws_alloc_context") }
        let threads: Int64 = mapping(width: width, height: height).redrawsRows ? 2 : 1
        var options: [(String, Int64)] = []
        options.append(("srcw", Int64(width)))
        options.append(("srch", Int64(height)))
        options.append(("src_format", Int64(AV_PIX_FMT_BGR0.rawValue)))
        options.append(("dstw", Int64(placement.width)))
        options.append(("dsth", Int64(placement.height)))
        options.append(("dst_format", Int64(AV_PIX_FMT_YUV420P.rawValue)))
        options.append(("sws_flags", Int64(Self.scalerFlags)))
        options.append(("threads", threads))
        for (name, value) in options {
            let set = av_opt_set_int(UnsafeMutableRawPointer(made), name, value, 0)
            guard set >= 0 else {
                sws_freeContext(made)
                throw LibavError(code: set, operation: "av_opt_set_int(\(name))")
            }
        }
        let initialised = sws_init_context(made, nil, nil)
        guard initialised >= 0 else {
            sws_freeContext(made)
            throw LibavError(code: initialised, operation: "sws_init_context")
        }
        context = made
        sourceSize = (width, height)
        return made
    }

    deinit {
        sws_freeContext(context)
        pieceContexts.values.forEach { sws_freeContext($0) }
    }
}
