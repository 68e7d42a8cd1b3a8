import Runtime
import Foundation
import Media
import Testing

@testable import Capture

/// The pieces the damage path converts, put into the picture before, give what a conversion of
/// the whole new picture gives: with the real scaler, on a textured picture whose every pixel
/// differs from its neighbours, so a seam (a piece converted without its margin, or out of the
/// scaler's phase) or a stale part shows.
struct PictureFitterTests {
    /// A BGRX picture of fine coloured stripes; `seed` changes every pixel.
    final class Picture {
        let width: Int
        let height: Int
        let pixels: UnsafeMutablePointer<UInt8>

        init(width: Int, height: Int, seed: Int) {
            self.width = width
            self.height = height
            pixels = .allocate(capacity: width * height * 4)
            paint(PixelRect(x: 0, y: 0, width: width, height: height), seed: seed)
        }

        func paint(_ box: PixelRect, seed: Int) {
            for y in box.y..<box.y + box.height {
                for x in box.x..<box.x + box.width {
                    let at = (y * width + x) * 4
                    pixels[at] = UInt8(127 + 120 * sin(Double(x + 2 * y + seed * 13) / 3.1))
                    pixels[at + 1] = UInt8(127 + 120 * sin(Double(2 * x - y + seed * 7) / 4.3))
                    pixels[at + 2] = (x + seed) % 37 < 2 || (y + seed) % 29 < 2 ? 255 : UInt8((x * y + seed) % 251)
                    pixels[at + 3] = 0
                }
            }
        }

        /// The source pixels of `box`, copied out as the grabber hands them (their own buffer).
        func read(_ box: PixelRect) -> UnsafeMutablePointer<UInt8> {
            let piece = UnsafeMutablePointer<UInt8>.allocate(capacity: box.width * box.height * 4)
            for line in 0..<box.height {
                (piece + line * box.width * 4).update(
                    from: pixels + ((box.y + line) * width + box.x) * 4, count: box.width * 4)
            }
            return piece
        }

        deinit { pixels.deallocate() }
    }

    /// The largest difference of any sample between two frames, over the three planes.
    func largestDifference(_ a: VideoFrame, _ b: VideoFrame) -> Int {
        var largest = 0
        for plane in 0..<3 {
            a.withPlane(plane) { p, pStride, width, height in
                b.withPlane(plane) { q, qStride, _, _ in
                    for y in 0..<height {
                        for x in 0..<width {
                            largest = max(largest, abs(Int(p[y * pStride + x]) - Int(q[y * qStride + x])))
                        }
                    }
                }
            }
        }
        return largest
    }

    /// Converts the picture whole, changes `boxes` in it, redraws only their pieces, and returns
    /// the largest difference from the changed picture converted whole.
    func redrawInPieces(
        source: (Int, Int), output: (Int, Int), boxes: [PixelRect], bandBytes: Int = PictureFitter.defaultBandBytes
    ) throws -> Int {
        let picture = Picture(width: source.0, height: source.1, seed: 0)
        let fitter = PictureFitter(outputWidth: output.0, outputHeight: output.1, bandBytes: bandBytes)
        let redrawn = try VideoFrame(width: output.0, height: output.1, index: 0)
        try fitter.fit(picture.pixels, stride: source.0 * 4, width: source.0, height: source.1, into: redrawn)
        for (number, box) in boxes.enumerated() { picture.paint(box, seed: number + 1) }
        let mapping = fitter.mapping(width: source.0, height: source.1)
        for box in boxes {
            let piece = mapping.piece(for: box)
            var read: [PixelRect] = []
            try fitter.fit(piece: piece, of: mapping, into: redrawn) { band, convert in
                read.append(band)
                let pixels = picture.read(band)
                defer { pixels.deallocate() }
                try convert(pixels, band.width * 4)
            }
            // The piece was read whole, in bands of its full rows.
            #expect(read == fitter.bands(of: piece.source))
            #expect(read.map(\.height).reduce(0, +) == piece.source.height)
        }
        let whole = try VideoFrame(width: output.0, height: output.1, index: 0)
        try PictureFitter(outputWidth: output.0, outputHeight: output.1).fit(
            picture.pixels, stride: source.0 * 4, width: source.0, height: source.1, into: whole)
        return largestDifference(redrawn, whole)
    }

    @Test(
        arguments: [
            ((1280, 720), (1280, 720)), ((2560, 1440), (1280, 720)), ((1280, 1024), (1280, 720)),
        ] as [((Int, Int), (Int, Int))])
    func piecesReadInBandsOfAFewRowsEqualTheWhole(source: (Int, Int), output: (Int, Int)) throws {
        // Bands of 22,400 bytes, a few rows of every piece (7 of an 800-pixel-wide one): each is read in many.
        let bandBytes = 7 * 400 * 2 * 4
        #expect(
            try redrawInPieces(
                source: source, output: output, boxes: boxes(scale: source.0 / 1280), bandBytes: bandBytes) == 0)
    }

    /// Converts the picture whole, in one read and in bands of `rows` rows, and returns the
    /// largest difference between the two, and how many bands were read.
    func convertInBands(source: (Int, Int), output: (Int, Int), rows: Int) throws -> (difference: Int, bands: Int) {
        let picture = Picture(width: source.0, height: source.1, seed: 3)
        let whole = try VideoFrame(width: output.0, height: output.1, index: 0)
        try PictureFitter(outputWidth: output.0, outputHeight: output.1, bandBytes: .max).fit(
            picture.pixels, stride: source.0 * 4, width: source.0, height: source.1, into: whole)
        let banded = try VideoFrame(width: output.0, height: output.1, index: 0)
        var bands: [PixelRect] = []
        try PictureFitter(outputWidth: output.0, outputHeight: output.1, bandBytes: rows * source.0 * 4).fit(
            width: source.0, height: source.1, into: banded
        ) { band, convert in
            bands.append(band)
            let pixels = picture.read(band)  // a buffer of the band's own, as the grabber's
            defer { pixels.deallocate() }
            try convert(pixels, band.width * 4)
        }
        // The bands tile the picture, top to bottom.
        var next = 0
        for band in bands {
            #expect(band == PixelRect(x: 0, y: next, width: source.0, height: min(rows, source.1 - next)))
            next += band.height
        }
        #expect(next == source.1)
        return (largestDifference(banded, whole), bands.count)
    }

    @Test(
        arguments: [
            ((1280, 720), (1280, 720), 100, 8), ((2560, 1440), (1280, 720), 37, 39),
            ((2560, 1440), (1920, 1080), 300, 5),
            // Between bars, where the fitter also keeps a copy for redrawing rows.
            ((1280, 1024), (1280, 720), 256, 4), ((1017, 763), (1280, 720), 1, 763),
        ] as [((Int, Int), (Int, Int), Int, Int)])
    func aPictureReadInBandsEqualsOneReadBitForBit(source: (Int, Int), output: (Int, Int), rows: Int, bands: Int)
        throws
    {
        let converted = try convertInBands(source: source, output: output, rows: rows)
        #expect(converted.difference == 0)
        #expect(converted.bands == bands)
    }

    @Test func aScreenOf4KIsReadInBandsOfAtMost2MiB() throws {
        let frame = try VideoFrame(width: 1920, height: 1080, index: 0)
        let pixels = UnsafeMutablePointer<UInt8>.allocate(capacity: 2 << 20)
        defer { pixels.deallocate() }
        pixels.initialize(repeating: 90, count: 2 << 20)
        var bands: [Int] = []
        try PictureFitter(outputWidth: 1920, outputHeight: 1080).fit(width: 3840, height: 2160, into: frame) {
            band, convert in
            bands.append(band.height)
            try convert(pixels, 3840 * 4)
        }
        // 136 rows of 15360 bytes fit in 2 MiB: 15 bands of 136 rows and one of the 120 left.
        #expect(bands == Array(repeating: 136, count: 15) + [120])
    }

    /// Changed boxes off any grid, overlapping, and at the picture's edges (on a 1280x720 screen;
    /// scaled with the screen).
    func boxes(scale: Int) -> [PixelRect] {
        [
            PixelRect(x: 301, y: 151, width: 400, height: 300), PixelRect(x: 557, y: 251, width: 37, height: 19),
            PixelRect(x: 600, y: 300, width: 320, height: 240), PixelRect(x: 0, y: 0, width: 5, height: 3),
            PixelRect(x: 1270, y: 711, width: 10, height: 9), PixelRect(x: 99, y: 601, width: 211, height: 23),
        ].map { PixelRect(x: $0.x * scale, y: $0.y * scale, width: $0.width * scale, height: $0.height * scale) }
    }

    @Test func oneToOnePiecesEqualTheWholeBitForBit() throws {
        #expect(try redrawInPieces(source: (1280, 720), output: (1280, 720), boxes: boxes(scale: 1)) == 0)
    }

    @Test func halvedPiecesEqualTheWholeBitForBit() throws {
        #expect(try redrawInPieces(source: (2560, 1440), output: (1280, 720), boxes: boxes(scale: 2)) == 0)
    }

    @Test func piecesOnTheFourToThreeGridStayWithinOneStep() throws {
        // Three output pixels are four source pixels; the scaler's fixed-point positions round
        // a little differently from a piece's corner than from the picture's.
        #expect(try redrawInPieces(source: (2560, 1440), output: (1920, 1080), boxes: boxes(scale: 2)) <= 1)
    }

    @Test func rowsBetweenBarsEqualTheWholeBitForBit() throws {
        // 1280x1024 into 1280x720: 900x720 between bars, no small whole step.
        #expect(try redrawInPieces(source: (1280, 1024), output: (1280, 720), boxes: boxes(scale: 1)) == 0)
    }

    @Test func rowsOfAnOddSizedWindowEqualTheWholeBitForBit() throws {
        // A 1017x763 window into 1280x720: enlarged across, shrunk down, no whole step either way.
        let boxes = boxes(scale: 1).map { $0.clipped(to: PixelRect(x: 0, y: 0, width: 1017, height: 763)) }
        #expect(try redrawInPieces(source: (1017, 763), output: (1280, 720), boxes: boxes.compactMap { $0 }) == 0)
    }
}
