public import Media
import Synchronization

/// The channel's newest picture as a small JPEG: for the index page, the embed's poster and the
/// previews of a shared watch link. The top rendition's encoder thread offers it every frame and
/// it keeps one every ``interval`` frames (a reference, no copy: frames never change once sent);
/// the picture is scaled and encoded only when asked for, on the asking thread, and kept until
/// a newer one is asked for. So it costs the live path a lock held for a pointer swap, once a frame.
public final class Thumbnailer: Sendable {
    /// The width of the JPEG (the picture's own when narrower); the height keeps its shape.
    public static let largestWidth = 640

    /// Frames between the pictures kept: how old a thumbnail may be.
    public let interval: Int64
    private let slot = Mutex<VideoFrame?>(nil)
    private let encoding = Mutex<Encoding>(Encoding())

    /// What the last request made, and the encoder it used.
    private struct Encoding: ~Copyable {
        var index: Int64?
        var jpeg: [UInt8] = []
        let encoder = JPEGEncoder()
    }

    /// `fps` frames a second; a picture kept every `seconds`.
    public init(fps: Int, seconds: Double = 2) {
        interval = max(1, Int64((Double(fps) * seconds).rounded()))
    }

    /// Keeps `frame` when the one kept is `interval` frames old (or none is).
    public func offer(_ frame: VideoFrame) {
        slot.withLock { kept in
            if kept.map({ frame.index >= $0.index + interval || frame.index < $0.index }) ?? true { kept = frame }
        }
    }

    /// True once a picture is kept.
    public var hasPicture: Bool { slot.withLock { $0 != nil } }

    /// The newest kept picture as a JPEG, and its frame index; nil before the first picture.
    public func jpeg() throws -> (bytes: [UInt8], index: Int64)? {
        guard let frame = slot.withLock({ $0 }) else { return nil }
        return try encoding.withLock { state throws -> ([UInt8], Int64) in
            if state.index != frame.index {
                let size = Self.size(width: frame.width, height: frame.height)
                state.jpeg = try state.encoder.encode(frame, width: size.width, height: size.height)
                state.index = frame.index
            }
            return (state.jpeg, frame.index)
        }
    }

    /// The size of a thumbnail of a `width`x`height` picture: at most ``largestWidth`` wide, both even.
    public static func size(width: Int, height: Int) -> (width: Int, height: Int) {
        let targetWidth = min(largestWidth, width) & ~1
        let targetHeight = Int((Double(height) * Double(targetWidth) / Double(width)).rounded()) & ~1
        return (max(2, targetWidth), max(2, targetHeight))
    }
}
