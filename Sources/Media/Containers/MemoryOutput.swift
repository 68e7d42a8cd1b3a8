internal import CFFmpeg

/// An AVIOContext that appends whatever the muxer writes to a byte array, taken in pieces
/// with `take()`. Owns the AVIOContext and its buffer.
final class MemoryOutput {
    private(set) var context: UnsafeMutablePointer<AVIOContext>
    private var bytes: [UInt8] = []

    /// Wraps `avio_alloc_context` with a write callback.
    init() throws(LibavError) {
        let size: Int32 = 64 * 1024
        let buffer = try checkAllocation(av_malloc(Int(size)), "av_malloc")
        // The callback's opaque pointer is this object, which outlives the context it frees.
        var allocated: UnsafeMutablePointer<AVIOContext>?
        allocated = avio_alloc_context(
            buffer.assumingMemoryBound(to: UInt8.self), size, 1, nil, nil,
            { opaque, data, count in
                let output = Unmanaged<MemoryOutput>.fromOpaque(opaque!).takeUnretainedValue()
                output.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(count)))
                return count
            }, nil)
        guard let allocated else {
            av_free(buffer)
            throw LibavError(code: -ENOMEM, operation: "avio_alloc_context")
        }
        context = allocated
        context.pointee.opaque = Unmanaged.passUnretained(self).toOpaque()
    }

    /// Flushes the context and hands over everything written since the last take, in an array of
    /// its exact size (a fragment may be held for as long as it is downloadable); the growing
    /// buffer is kept for the next one.
    func take() -> [UInt8] {
        avio_flush(context)
        defer { bytes.removeAll(keepingCapacity: true) }
        return bytes.withUnsafeBufferPointer { Array($0) }
    }

    deinit {
        av_freep(&context.pointee.buffer)
        var context: UnsafeMutablePointer<AVIOContext>? = context
        avio_context_free(&context)
    }
}
