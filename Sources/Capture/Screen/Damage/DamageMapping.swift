import Media

/// Where a changed box of the captured area lands in the output picture, and what to read and
/// convert so that the redrawn part is what a conversion of the whole picture gives.
///
/// The scaler's output near a piece's edge differs from the whole picture's (it repeats the
/// edge pixel where the whole picture has neighbours), so a piece is converted with a margin
/// that is then thrown away. Pieces start on a grid of output pixels, counted from the picture's
/// corner, so that the scaler's filter phases and its 8×8 dither pattern line up with the whole
/// picture's: where the scale has an exact ratio (1:1, 2:1, 3:2, …) a piece's grid step maps to
/// a whole number of source pixels and the redrawn part is the same, bit for bit.
struct DamageMapping: Equatable {
    /// The captured area's size, in source pixels.
    let sourceWidth: Int
    let sourceHeight: Int
    /// Where the scaled picture sits in the output (letterboxed).
    let placement: PixelRect

    struct Piece: Equatable {
        /// The source pixels to read, relative to the captured area.
        var source: PixelRect
        /// What they are converted to, in output pixels (margins included).
        var output: PixelRect
        /// The part of `output` that replaces the frame's pixels: everything the change reaches.
        var kept: PixelRect
    }

    /// Output pixels of margin around a kept part, at least as many as the scaler's edge effect
    /// reaches (a few pixels), on the grid.
    static let margin = 16

    /// The piece that redraws a changed box (relative to the captured area).
    func piece(for box: PixelRect) -> Piece {
        let across = Axis(source: sourceWidth, output: placement.width)
        let down = Axis(source: sourceHeight, output: placement.height)
        let (sourceX, outputX, keptX) = across.piece(from: box.x, to: box.x + box.width)
        let (sourceY, outputY, keptY) = down.piece(from: box.y, to: box.y + box.height)
        return Piece(
            source: PixelRect(
                x: sourceX.lowerBound, y: sourceY.lowerBound, width: sourceX.count, height: sourceY.count),
            output: PixelRect(
                x: placement.x + outputX.lowerBound, y: placement.y + outputY.lowerBound, width: outputX.count,
                height: outputY.count),
            kept: PixelRect(
                x: placement.x + keptX.lowerBound, y: placement.y + keptY.lowerBound, width: keptX.count,
                height: keptY.count))
    }

    /// One direction: `source` pixels scaled to `output` pixels.
    struct Axis {
        let source: Int
        let output: Int

        /// The output step whose source length is whole (the reduced ratio's output side), when it
        /// is small enough to snap to; else pieces take the plain grid and the phase is only close.
        var grid: Int {
            let step = output / gcd(source, output)
            let exact = 16 / gcd(16, step) * step
            return exact <= 64 ? exact : 16
        }

        /// For the source range `from..<to`: the source range to read, the output range to
        /// convert, and the output range to keep (all relative to the picture's corner).
        func piece(from: Int, to: Int) -> (source: Range<Int>, output: Range<Int>, kept: Range<Int>) {
            let scale = Double(output) / Double(source)
            // Source pixels a bicubic tap reaches on either side: two samples of the coarser grid,
            // and chroma's grid (half the output's) is the coarser one unless the picture shrinks
            // more than twice; one more for rounding.
            let reach = 4 * max(1, Double(source) / Double(output)) + 1
            let first = max(0, Int(((Double(from) - reach) * scale).rounded(.down)))
            let last = min(output, Int(((Double(to) + reach) * scale).rounded(.up)))
            let grid = self.grid
            let keptStart = first / grid * grid
            let keptEnd = min(output, (last + grid - 1) / grid * grid)
            let margin = (DamageMapping.margin + grid - 1) / grid * grid
            let outputStart = max(0, keptStart - margin)
            let outputEnd = min(output, keptEnd + margin)
            let sourceStart = outputStart * source / output
            let sourceEnd = outputEnd == output ? source : min(source, (outputEnd * source + output - 1) / output)
            return (sourceStart..<sourceEnd, outputStart..<outputEnd, keptStart..<keptEnd)
        }

        private func gcd(_ a: Int, _ b: Int) -> Int { b == 0 ? a : gcd(b, a % b) }
    }
}
