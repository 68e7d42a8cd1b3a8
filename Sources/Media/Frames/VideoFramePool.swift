internal import CFFmpeg

/// Recycles yuv420p pictures of one size: a frame's memory returns to the pool when the last
/// stage holding it lets go, so a running pipeline allocates nothing per frame. Owns an
/// AVBufferPool (freed once every frame from it is gone).
// Unchecked Sendable: a C handle (AVBufferPool), which is thread-safe.
public final class VideoFramePool: @unchecked Sendable {
    public let width: Int
    public let height: Int
    private let pool: OpaquePointer
    private static let alignment: Int32 = 32

    /// Wraps `av_buffer_pool_init`.
    public init(width: Int, height: Int) throws(LibavError) {
        self.width = width
        self.height = height
        let size = try check(
            av_image_get_buffer_size(AV_PIX_FMT_YUV420P, Int32(width), Int32(height), Self.alignment),
            "av_image_get_buffer_size")
        pool = try checkAllocation(av_buffer_pool_init(Int(size), nil), "av_buffer_pool_init")
    }

    /// A writable picture from the pool. Wraps `av_buffer_pool_get` and `av_image_fill_arrays`.
    public func makeFrame(index: Int64) throws(LibavError) -> VideoFrame {
        let buffer = try checkAllocation(av_buffer_pool_get(pool), "av_buffer_pool_get")
        return try VideoFrame(
            takingOwnership: buffer, width: width, height: height, alignment: Self.alignment, index: index)
    }

    deinit {
        var pool: OpaquePointer? = pool
        av_buffer_pool_uninit(&pool)
    }
}
