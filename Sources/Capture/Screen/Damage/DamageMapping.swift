import Runtime
import Media

/// Where a changed box of the captured area lands in the output picture, and what to read and
/// convert so that the redrawn part is what a conversion of the whole picture gives.
///
/// Where the scale has a small whole step (1:1, 2:1, 3:2, 4:3, …), a box becomes a piece: the
/// scaler's output near a piece's edge differs from the whole picture's (it repeats the edge
/// pixel where the whole picture has neighbours), so a piece is converted with a margin that is
/// then thrown away, and pieces start on a grid of output pixels whose step is a whole number of
/// source pixels, so that the scaler's filter phases line up with the whole picture's. The
/// redrawn part is then the same, bit for bit at 1:1 and 2:1, and within one step where the
/// scaler's fixed-point positions round differently (4:3).
///
/// Any other scale (a window of any size, a 5:4 screen between bars) has no such grid: a piece
/// would sample the source up to a pixel away from where the whole picture does, which shows on
/// fine detail. There only the box is read, into a copy of the captured area, and the rows of
/// the picture it reaches are converted from that copy by the whole picture's own scaler (only
/// those rows), so they are the whole conversion's rows exactly.
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
        /// `source` is only the box, and `kept` (= `output`) whole rows of the picture, converted
        /// by the whole picture's scaler from the copy of the area; else a piece on its own.
        var wholeRows = false
    }

    /// Output pixels of margin around a kept part, at least as many as the scaler's edge effect
    /// reaches (a few pixels), on the grid.
    static let margin = 16

    /// The piece that redraws a changed box (relative to the captured area).
    /// Whether boxes become whole rows (no small whole step across or down).
    var redrawsRows: Bool {
        Axis(source: sourceWidth, output: placement.width).grid == nil
            || Axis(source: sourceHeight, output: placement.height).grid == nil
    }

    func piece(for box: PixelRect) -> Piece {
        let across = Axis(source: sourceWidth, output: placement.width)
        let down = Axis(source: sourceHeight, output: placement.height)
        guard !redrawsRows else {
            let keptY = down.rows(from: box.y, to: box.y + box.height)
            let rows = PixelRect(
                x: placement.x, y: placement.y + keptY.lowerBound, width: placement.width, height: keptY.count)
            return Piece(source: box, output: rows, kept: rows, wholeRows: true)
        }
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

        /// The output step whose source length is whole (the reduced ratio's output side, on a
        /// 16-pixel grid), when it is small enough to snap to; nil when there is none.
        var grid: Int? {
            let step = output / gcd(source, output)
            let exact = 16 / gcd(16, step) * step
            return exact <= 64 ? exact : nil
        }

        /// Source pixels a bicubic tap reaches on either side: two samples of the coarser grid,
        /// and chroma's grid (half the output's) is the coarser one unless the picture shrinks
        /// more than twice; one more for rounding.
        private var reach: Double { 4 * max(1, Double(source) / Double(output)) + 1 }

        /// The output rows (on the 16-pixel grid) that the source range `from..<to` reaches.
        func rows(from: Int, to: Int) -> Range<Int> {
            let scale = Double(output) / Double(source)
            let first = max(0, Int(((Double(from) - reach) * scale).rounded(.down)))
            let last = min(output, Int(((Double(to) + reach) * scale).rounded(.up)))
            return first / 16 * 16..<min(output, (last + 15) / 16 * 16)
        }

        /// For the source range `from..<to`: the source range to read, the output range to
        /// convert, and the output range to keep (all relative to the picture's corner).
        func piece(from: Int, to: Int) -> (source: Range<Int>, output: Range<Int>, kept: Range<Int>) {
            let scale = Double(output) / Double(source)
            let first = max(0, Int(((Double(from) - reach) * scale).rounded(.down)))
            let last = min(output, Int(((Double(to) + reach) * scale).rounded(.up)))
            let grid = self.grid ?? 16
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
