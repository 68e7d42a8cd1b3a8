package import CFFmpeg

/// One libav allocation, owned until it is handed over: freed if whatever sets it up throws first.
/// The one place that pattern lives, for frames, packets, codec contexts, parameters and muxers.
///
///     var frame = try LibavAllocation(av_frame_alloc(), "av_frame_alloc") { av_frame_free(&$0) }
///     try check(av_frame_get_buffer(frame.pointer, 0), "av_frame_get_buffer")
///     self.frame = frame.handOver()
package struct LibavAllocation<Pointee>: ~Copyable {
    private var owned: UnsafeMutablePointer<Pointee>?
    private let free: (inout UnsafeMutablePointer<Pointee>?) -> Void

    /// Takes what an allocator returned; throws when it returned nil.
    package init(
        _ allocated: UnsafeMutablePointer<Pointee>?, _ operation: @autoclosure () -> String,
        free: @escaping (inout UnsafeMutablePointer<Pointee>?) -> Void
    ) throws(LibavError) {
        owned = try checkAllocation(allocated, operation())
        self.free = free
    }

    /// The allocation, to set up while it is still owned here.
    package var pointer: UnsafeMutablePointer<Pointee> { owned! }

    /// Ends the ownership here: the caller frees it from now on.
    package consuming func handOver() -> UnsafeMutablePointer<Pointee> {
        let pointer = owned!
        owned = nil
        return pointer
    }

    deinit {
        var owned = owned
        if owned != nil { free(&owned) }
    }
}
