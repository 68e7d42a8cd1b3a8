public import Runtime
package import CFFmpeg

/// One picture in yuv420p. Owns its AVFrame; immutable once handed to the next stage.
// Unchecked Sendable: a C handle (AVFrame), immutable once handed on.
public final class VideoFrame: @unchecked Sendable {
    package let frame: UnsafeMutablePointer<AVFrame>

    /// The frame's place in the constant-rate output, in frames since the broadcast began.
    public var index: Int64 { frame.pointee.pts }
    public var width: Int { Int(frame.pointee.width) }
    public var height: Int { Int(frame.pointee.height) }

    /// Allocates a writable yuv420p picture. Wraps `av_frame_get_buffer`.
    public init(width: Int, height: Int, index: Int64) throws(LibavError) {
        let frame = try Self.allocate()
        frame.pointer.pointee.width = Int32(width)
        frame.pointer.pointee.height = Int32(height)
        frame.pointer.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        frame.pointer.pointee.pts = index
        try check(av_frame_get_buffer(frame.pointer, 0), "av_frame_get_buffer")
        self.frame = frame.handOver()
    }

    /// Wraps a pooled buffer holding the three planes; the frame releases it when freed.
    /// Wraps `av_image_fill_arrays`.
    init(
        takingOwnership buffer: UnsafeMutablePointer<AVBufferRef>, width: Int, height: Int, alignment: Int32,
        index: Int64
    ) throws(LibavError) {
        let frame: LibavAllocation<AVFrame>
        do {
            frame = try Self.allocate()
        } catch {
            var buffer: UnsafeMutablePointer<AVBufferRef>? = buffer
            av_buffer_unref(&buffer)
            throw error
        }
        let allocated = frame.pointer
        allocated.pointee.width = Int32(width)
        allocated.pointee.height = Int32(height)
        allocated.pointee.format = AV_PIX_FMT_YUV420P.rawValue
        allocated.pointee.pts = index
        allocated.pointee.buf.0 = buffer
        let filled = withUnsafeMutablePointer(to: &allocated.pointee.data) { data in
            withUnsafeMutablePointer(to: &allocated.pointee.linesize) { linesize in
                data.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 4) { data in
                    linesize.withMemoryRebound(to: Int32.self, capacity: 4) { linesize in
                        av_image_fill_arrays(
                            data, linesize, buffer.pointee.data, AV_PIX_FMT_YUV420P, Int32(width), Int32(height),
                            alignment)
                    }
                }
            }
        }
        try check(filled, "av_image_fill_arrays")
        self.frame = frame.handOver()
    }

    /// A new frame sharing this one's picture (reference counted, no copy). Wraps `av_frame_ref`.
    public func reference(index: Int64) throws(LibavError) -> VideoFrame {
        try VideoFrame(referencing: self, index: index)
    }

    private init(referencing other: VideoFrame, index: Int64) throws(LibavError) {
        let frame = try Self.allocate()
        try check(av_frame_ref(frame.pointer, other.frame), "av_frame_ref")
        frame.pointer.pointee.pts = index
        self.frame = frame.handOver()
    }

    /// True when both frames show one picture in memory (one a reference of the other): what a
    /// repeated frame is. Meaningful while `other` is held, since its buffer cannot be reused then.
    public func samePicture(as other: VideoFrame) -> Bool {
        frame.pointee.buf.0 != nil && frame.pointee.buf.0?.pointee.data == other.frame.pointee.buf.0?.pointee.data
            && frame.pointee.data.0 == other.frame.pointee.data.0
    }

    /// Paints the whole picture black (limited-range YUV: 16, 128, 128).
    public func paintBlack() {
        for (plane, value) in [(0, UInt8(16)), (1, UInt8(128)), (2, UInt8(128))] {
            withPlane(plane) { bytes, stride, columns, rows in
                for row in 0..<rows { (bytes + row * stride).update(repeating: value, count: columns) }
            }
        }
    }

    /// Copies another picture of the same size into this one, plane by plane.
    public func copyPicture(from other: VideoFrame) {
        precondition(other.width == width && other.height == height)
        for plane in 0..<3 {
            other.withPlane(plane) { from, fromStride, columns, rows in
                withPlane(plane) { to, toStride, _, _ in
                    if fromStride == toStride {
                        to.update(from: from, count: toStride * (rows - 1) + columns)
                    } else {
                        for row in 0..<rows {
                            (to + row * toStride).update(from: from + row * fromStride, count: columns)
                        }
                    }
                }
            }
        }
    }

    /// Borrows one plane for writing: its bytes, its stride, and its size in pixels.
    public func withPlane<R>(
        _ plane: Int,
        _ body: (_ bytes: UnsafeMutablePointer<UInt8>, _ stride: Int, _ width: Int, _ height: Int) throws -> R
    ) rethrows -> R {
        let shift = plane == 0 ? 0 : 1
        let data = withUnsafeBytes(of: &frame.pointee.data) {
            $0.load(fromByteOffset: plane * 8, as: UnsafeMutablePointer<UInt8>.self)
        }
        let stride = withUnsafeBytes(of: &frame.pointee.linesize) { $0.load(fromByteOffset: plane * 4, as: Int32.self) }
        return try body(data, Int(stride), (width + shift) >> shift, (height + shift) >> shift)
    }

    private static func allocate() throws(LibavError) -> LibavAllocation<AVFrame> {
        try LibavAllocation(av_frame_alloc(), "av_frame_alloc") { av_frame_free(&$0) }
    }

    deinit {
        var frame: UnsafeMutablePointer<AVFrame>? = frame
        av_frame_free(&frame)
    }
}
