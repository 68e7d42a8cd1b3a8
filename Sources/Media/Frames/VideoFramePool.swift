internal import CFFmpeg
import Runtime

/// Recycles yuv420p pictures of one size: a frame's memory returns to the pool when the last
/// stage holding it lets go, so a running pipeline allocates almost nothing per frame. Owns an
/// AVBufferPool (freed once every frame from it is gone).
///
/// An AVBufferPool keeps every buffer it ever made: after a burst (an overloaded machine queues
/// frames) it would hold its high-water mark for good, a step in the process's memory that never
/// comes down. So the pool is renewed now and then: the old one frees each of its buffers as it
/// comes back, the new one makes only what the pipeline uses now.
// Unchecked Sendable: a C handle (AVBufferPool), which is thread-safe; `makeFrame`, which renews
// it, is called by one thread only (the source's, or the rung scaler's).
public final class VideoFramePool: @unchecked Sendable {
    public let width: Int
    public let height: Int
    private var pool: OpaquePointer
    private let size: Int
    private let renewal: UInt64
    private var renewsAt: UInt64
    private static let alignment: Int32 = 32

    /// A pool renewed every `renewal` (half a minute). Wraps `av_buffer_pool_init`.
    public init(width: Int, height: Int, renewal: Duration = .seconds(30)) throws(LibavError) {
        self.width = width
        self.height = height
        size = Int(
            try check(
                av_image_get_buffer_size(AV_PIX_FMT_YUV420P, Int32(width), Int32(height), Self.alignment),
                "av_image_get_buffer_size"))
        pool = try checkAllocation(av_buffer_pool_init(size, nil), "av_buffer_pool_init")
        let (seconds, attoseconds) = renewal.components
        self.renewal = UInt64(seconds) * 1_000_000_000 + UInt64(attoseconds / 1_000_000_000)
        renewsAt = MediaClock.monotonicNanoseconds() + self.renewal
    }

    /// A writable picture from the pool. Wraps `av_buffer_pool_get` and `av_image_fill_arrays`.
    public func makeFrame(index: Int64) throws(LibavError) -> VideoFrame {
        let now = MediaClock.monotonicNanoseconds()
        if now >= renewsAt, let fresh = av_buffer_pool_init(size, nil) {
            var old: OpaquePointer? = pool
            av_buffer_pool_uninit(&old)
            pool = fresh
            renewsAt = now + renewal
        }
        let buffer = try checkAllocation(av_buffer_pool_get(pool), "av_buffer_pool_get")
        return try VideoFrame(
            takingOwnership: buffer, width: width, height: height, alignment: Self.alignment, index: index)
    }

    deinit {
        var pool: OpaquePointer? = pool
        av_buffer_pool_uninit(&pool)
    }
}
