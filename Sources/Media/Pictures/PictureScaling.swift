internal import CFFmpeg

/// Scales (and converts) one whole picture into another with a SwsContext made for their sizes and
/// formats: what the picture scaler and the JPEG encoder share. Wraps `sws_scale`.
func scalePicture(
    _ context: OpaquePointer, from source: UnsafeMutablePointer<AVFrame>, into target: UnsafeMutablePointer<AVFrame>
) throws {
    let rows = withUnsafePointer(to: source.pointee.data) { sourceData in
        withUnsafePointer(to: source.pointee.linesize) { sourceStrides in
            withUnsafePointer(to: target.pointee.data) { targetData in
                withUnsafePointer(to: target.pointee.linesize) { targetStrides in
                    sws_scale(
                        context, UnsafeRawPointer(sourceData).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                        UnsafeRawPointer(sourceStrides).assumingMemoryBound(to: Int32.self), 0, source.pointee.height,
                        UnsafeRawPointer(targetData).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                        UnsafeRawPointer(targetStrides).assumingMemoryBound(to: Int32.self))
                }
            }
        }
    }
    try check(rows, "sws_scale")
}
