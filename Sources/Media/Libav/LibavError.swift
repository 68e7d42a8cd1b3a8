internal import CFFmpeg

/// A failed libav call: the code, what was attempted, and libav's own message.
public struct LibavError: Error, CustomStringConvertible, Equatable {
    public let code: Int32
    public let operation: String

    public init(code: Int32, operation: String) {
        self.code = code
        self.operation = operation
    }

    /// libav's text for the code. Wraps `av_strerror`.
    public var message: String {
        var buffer = [CChar](repeating: 0, count: 128)
        av_strerror(code, &buffer, buffer.count)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public var description: String { "\(operation) failed: \(message) (\(code))" }

    package static let endOfFile = CFFmpeg_AVERROR_EOF
    package static let tryAgain = CFFmpeg_AVERROR_EAGAIN
    package static let invalidData = CFFmpeg_AVERROR_INVALIDDATA
}

/// Throws a `LibavError` when a libav call returns a negative code; returns the code otherwise.
@discardableResult
package func check(_ code: Int32, _ operation: @autoclosure () -> String) throws(LibavError) -> Int32 {
    guard code >= 0 else { throw LibavError(code: code, operation: operation()) }
    return code
}

/// Throws when a libav allocator returns nil.
package func checkAllocation<T>(_ pointer: T?, _ operation: @autoclosure () -> String) throws(LibavError) -> T {
    guard let pointer else { throw LibavError(code: -ENOMEM, operation: operation()) }
    return pointer
}
