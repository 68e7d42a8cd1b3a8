#if canImport(Glibc)
    import Glibc
#endif

/// Writes `text` to standard error at once, whole (a status line redrawn in place, a message
/// before exiting), without Foundation's `FileHandle`, which would link full Foundation.
public func writeToStandardError(_ text: String) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}
