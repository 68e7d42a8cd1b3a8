public import Media

/// What viewers see while there is nothing to show: the last picture dimmed, with a card saying why.
public enum StandbyCard: String, Sendable {
    case paused = "PAUSED"
    case unavailable = "SCREEN UNAVAILABLE"

    /// A new picture: `picture` (or black) at 40 % brightness and colour, the card in its middle.
    public func render(over picture: VideoFrame?, width: Int, height: Int, index: Int64) throws -> VideoFrame {
        let frame = try VideoFrame(width: width, height: height, index: index)
        for plane in 0..<3 {
            let base: Int = plane == 0 ? 16 : 128
            frame.withPlane(plane) { target, targetStride, planeWidth, planeHeight in
                guard let picture, picture.width == width, picture.height == height else {
                    for row in 0..<planeHeight {
                        (target + row * targetStride).update(repeating: UInt8(base), count: planeWidth)
                    }
                    return
                }
                picture.withPlane(plane) { source, sourceStride, _, _ in
                    for row in 0..<planeHeight {
                        let from = source + row * sourceStride, to = target + row * targetStride
                        for column in 0..<planeWidth {
                            to[column] = UInt8(base + (Int(from[column]) - base) * 2 / 5)
                        }
                    }
                }
            }
        }
        let scale = max(1, height / 90)
        let textWidth = rawValue.count * 6 * scale - scale
        let padding = 5 * scale
        let canvas = Canvas(frame: frame)
        let boxWidth = (textWidth + 2 * padding + 1) & ~1, boxHeight = (7 * scale + 2 * padding + 1) & ~1
        let left = ((width - boxWidth) / 2) & ~1, top = ((height - boxHeight) / 2) & ~1
        canvas.fill(x: left, y: top, width: boxWidth, height: boxHeight, color: YUVColor(red: 20, green: 20, blue: 24))
        canvas.text(rawValue, x: left + padding, y: top + padding, scale: scale, color: .white)
        return frame
    }
}
