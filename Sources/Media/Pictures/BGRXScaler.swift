public import Runtime
internal import CFFmpeg

/// Converts captured BGRX pixels (a screen, a window) of one size into yuv420p of another, bicubic,
/// into a rectangle of a frame: fed a band of rows at a time, or asked for some output rows of a
/// whole picture. Owns a SwsContext.
public final class BGRXScaler {
    public let sourceWidth: Int
    public let sourceHeight: Int
    public let outputWidth: Int
    public let outputHeight: Int
    private let context: OpaquePointer

    /// Bicubic, with the colour taken from every pixel of the screen and then scaled to half
    /// width like the rest (`SWS_FULL_CHR_H_INP`). libswscale's default first averages each pair
    /// of pixels' colour, in a path that costs more: a 1920x1080 screen converts in 5.0 ms rather
    /// than 8.2, a 3840x2160 one scaled to 1920x1080 in 19 rather than 24 (BENCHMARKS.md,
    /// "Converting the screen's colours").
    private static let flags = SWS_BICUBIC | SWS_FULL_CHR_H_INP

    /// `threads`: 2 where ``scaleRows(of:stride:into:at:rows:)`` is used (libswscale asked for
    /// some rows puts the luma rows at half their place unless it is threaded; its threads then
    /// share the rows asked for). Wraps `sws_alloc_context` and `sws_init_context`.
    public init(
        sourceWidth: Int, sourceHeight: Int, outputWidth: Int, outputHeight: Int, threads: Int = 1
    ) throws(LibavError) {
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        guard let made = sws_alloc_context() else { throw LibavError(code: -ENOMEM, operation: "sws_alloc_context") }
        let options: [(String, Int64)] = [
            ("srcw", Int64(sourceWidth)), ("srch", Int64(sourceHeight)),
            ("src_format", Int64(AV_PIX_FMT_BGR0.rawValue)),
            ("dstw", Int64(outputWidth)), ("dsth", Int64(outputHeight)),
            ("dst_format", Int64(AV_PIX_FMT_YUV420P.rawValue)), ("sws_flags", Int64(Self.flags)),
            ("threads", Int64(threads)),
        ]
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
    }

    /// Converts one band of source rows (`firstRow` on, `pixels` with `stride` bytes a row), the
    /// bands of one picture given top to bottom, into `frame` with the output's top left at
    /// `origin` (even). Wraps `sws_scale`.
    public func scale(
        band pixels: UnsafePointer<UInt8>, stride: Int, firstRow: Int, rows: Int, into frame: VideoFrame,
        at origin: (x: Int, y: Int)
    ) throws(LibavError) {
        var targets: [UnsafeMutablePointer<UInt8>?] = []
        var strides: [Int32] = []
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            frame.withPlane(plane) { bytes, planeStride, _, _ in
                targets.append(bytes + (origin.y >> shift) * planeStride + (origin.x >> shift))
                strides.append(Int32(planeStride))
            }
        }
        var source: [UnsafePointer<UInt8>?] = [pixels]
        var sourceStrides: [Int32] = [Int32(stride)]
        try check(
            sws_scale(context, &source, &sourceStrides, Int32(firstRow), Int32(rows), &targets, &strides), "sws_scale")
    }

    /// Converts the whole source picture `pixels` but writes only the output `rows` into `frame`,
    /// the output's top left at `origin` (even). Wraps `sws_frame_start`, `sws_send_slice` and
    /// `sws_receive_slice`.
    public func scaleRows(
        of pixels: UnsafeMutablePointer<UInt8>, stride: Int, into frame: VideoFrame, at origin: (x: Int, y: Int),
        rows: Range<Int>
    ) throws(LibavError) {
        // The scaler keeps a reference to its source, so the pixels go in a buffer that frees nothing.
        let source = try LibavAllocation(av_frame_alloc(), "av_frame_alloc") { av_frame_free(&$0) }
        source.pointer.pointee.width = Int32(sourceWidth)
        source.pointer.pointee.height = Int32(sourceHeight)
        source.pointer.pointee.format = AV_PIX_FMT_BGR0.rawValue
        source.pointer.pointee.data.0 = pixels
        source.pointer.pointee.linesize.0 = Int32(stride)
        let buffer = av_buffer_create(pixels, stride * sourceHeight, { _, _ in }, nil, 0)
        source.pointer.pointee.buf.0 = try checkAllocation(buffer, "av_buffer_create")
        // The target: the frame's pixels from `origin`, the output's size.
        let target = try LibavAllocation(av_frame_alloc(), "av_frame_alloc") { av_frame_free(&$0) }
        try check(av_frame_ref(target.pointer, frame.frame), "av_frame_ref")
        target.pointer.pointee.width = Int32(outputWidth)
        target.pointer.pointee.height = Int32(outputHeight)
        var starts: [UnsafeMutablePointer<UInt8>] = []
        for plane in 0..<3 {
            let shift = plane == 0 ? 0 : 1
            let (bytes, planeStride) = frame.withPlane(plane) { bytes, planeStride, _, _ in (bytes, planeStride) }
            starts.append(bytes + (origin.y >> shift) * planeStride + (origin.x >> shift))
        }
        target.pointer.pointee.data.0 = starts[0]
        target.pointer.pointee.data.1 = starts[1]
        target.pointer.pointee.data.2 = starts[2]
        try check(sws_frame_start(context, target.pointer, source.pointer), "sws_frame_start")
        defer { sws_frame_end(context) }
        try check(sws_send_slice(context, 0, UInt32(sourceHeight)), "sws_send_slice")
        try check(sws_receive_slice(context, UInt32(rows.lowerBound), UInt32(rows.count)), "sws_receive_slice")
    }

    deinit {
        sws_freeContext(context)
    }
}
