/// What stops the encoding stages: a watermark that cannot be used (each message says what to do),
/// a source that gives no picture. The one error family of `Encoding`.
public enum EncodingError: Error, CustomStringConvertible, Equatable {
    /// Errors compare by kind and file: the decoder's detail is for logs, not for tests.
    public static func == (lhs: EncodingError, rhs: EncodingError) -> Bool {
        switch (lhs, rhs) {
        case (.unreadable(let a), .unreadable(let b)), (.notPNG(let a), .notPNG(let b)), (.empty(let a), .empty(let b)):
            a == b
        case (.corrupt(let a, _), .corrupt(let b, _)), (.unsupported(let a, _), .unsupported(let b, _)): a == b
        case (.notRegularFile(let a), .notRegularFile(let b)), (.fileTooLarge(let a), .fileTooLarge(let b)): a == b
        case (.tooLarge(let a, let aWidth, let aHeight), .tooLarge(let b, let bWidth, let bHeight)):
            (a, aWidth, aHeight) == (b, bWidth, bHeight)
        case (.noFirstPicture, .noFirstPicture): true
        default: false
        }
    }

    case unreadable(String)
    case notRegularFile(String)
    case fileTooLarge(String)
    case tooLarge(String, Int, Int)
    case notPNG(String)
    case corrupt(String, String)
    case empty(String)
    case unsupported(String, String)
    /// The video source gave no first picture.
    case noFirstPicture

    public var description: String {
        switch self {
        case .unreadable(let path): "--watermark \(path) cannot be read; check the path"
        case .notRegularFile(let path): "--watermark \(path) is not a regular file"
        case .fileTooLarge(let path):
            "--watermark \(path) is larger than \(WatermarkImage.fileLimit >> 20) MiB; a watermark is a small PNG"
        case .tooLarge(let path, let width, let height):
            "--watermark \(path) at \(width)x\(height) is too large: at most \(WatermarkImage.sideLimit)x\(WatermarkImage.sideLimit) pixels; scale it down"
        case .notPNG(let path): "--watermark \(path) is not a PNG file; convert it to PNG"
        case .corrupt(let path, _): "--watermark \(path) is a damaged or truncated PNG; export it again"
        case .empty(let path): "--watermark \(path) has no pixels (zero width or height)"
        case .unsupported(let path, let format): "--watermark \(path) uses an unsupported PNG layout (\(format))"
        case .noFirstPicture: "the video source gave no first picture"
        }
    }
}
