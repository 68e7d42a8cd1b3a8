import Runtime
import Media

/// What changed on screen between two frames, as a few boxes: the rectangles XDamage reports
/// (often hundreds of small ones while text is typed) merged so that each box costs one read and
/// one conversion, and the whole area once most of it changed.
enum DamageRegions {
    /// The most boxes one frame is redrawn in.
    static let limit = 6
    /// Two boxes are merged when their bounding box adds no more than this many pixels to what
    /// they cover: a read and a conversion have a fixed cost worth about that much.
    static let mergeSlack = 64 * 64

    /// `changes` clipped to `area` and merged; `[area]` when the boxes would cover half of it or
    /// more; empty when nothing inside it changed.
    static func merge(_ changes: [PixelRect], within area: PixelRect) -> [PixelRect] {
        var boxes: [PixelRect] = []
        for change in changes {
            guard var box = change.clipped(to: area) else { continue }
            // Fold in every box it merges with cheaply, until none is left to fold.
            var folded = true
            while folded {
                folded = false
                for index in boxes.indices.reversed() where cheap(box, boxes[index]) {
                    box = union(box, boxes.remove(at: index))
                    folded = true
                }
            }
            boxes.append(box)
        }
        while boxes.count > limit {
            // The pair whose union wastes the least.
            var best = (0, 1, Int.max)
            for i in boxes.indices {
                for j in boxes.indices where j > i {
                    let waste = wasted(boxes[i], boxes[j])
                    if waste < best.2 { best = (i, j, waste) }
                }
            }
            let merged = union(boxes[best.0], boxes[best.1])
            boxes.remove(at: best.1)
            boxes[best.0] = merged
        }
        let covered = boxes.reduce(0) { $0 + $1.width * $1.height }
        return covered * 2 >= area.width * area.height ? [area] : boxes
    }

    static func union(_ a: PixelRect, _ b: PixelRect) -> PixelRect {
        let left = min(a.x, b.x), top = min(a.y, b.y)
        let right = max(a.x + a.width, b.x + b.width), bottom = max(a.y + a.height, b.y + b.height)
        return PixelRect(x: left, y: top, width: right - left, height: bottom - top)
    }

    /// Pixels the union of two boxes covers beyond the two (an overlap counted once).
    static func wasted(_ a: PixelRect, _ b: PixelRect) -> Int {
        let whole = union(a, b)
        let overlap = a.clipped(to: b).map { $0.width * $0.height } ?? 0
        return whole.width * whole.height - (a.width * a.height + b.width * b.height - overlap)
    }

    private static func cheap(_ a: PixelRect, _ b: PixelRect) -> Bool {
        wasted(a, b) <= mergeSlack
    }
}
