import Runtime
import Media
import Testing

@testable import Capture

struct DamageRegionsTests {
    let screen = PixelRect(x: 0, y: 0, width: 1280, height: 720)

    @Test func nothingChangedIsNoBox() {
        #expect(DamageRegions.merge([], within: screen) == [])
        #expect(DamageRegions.merge([PixelRect(x: 2000, y: 0, width: 10, height: 10)], within: screen) == [])
    }

    @Test func changesAreClippedToTheArea() {
        let boxes = DamageRegions.merge([PixelRect(x: 1270, y: -5, width: 40, height: 20)], within: screen)
        #expect(boxes == [PixelRect(x: 1270, y: 0, width: 10, height: 15)])
    }

    @Test func neighboursMergeAndDistantBoxesDoNot() {
        let near = DamageRegions.merge(
            [PixelRect(x: 0, y: 0, width: 10, height: 10), PixelRect(x: 20, y: 0, width: 10, height: 10)],
            within: screen)
        #expect(near == [PixelRect(x: 0, y: 0, width: 30, height: 10)])
        let far = DamageRegions.merge(
            [PixelRect(x: 0, y: 0, width: 10, height: 10), PixelRect(x: 1000, y: 600, width: 10, height: 10)],
            within: screen)
        #expect(
            far == [PixelRect(x: 0, y: 0, width: 10, height: 10), PixelRect(x: 1000, y: 600, width: 10, height: 10)])
    }

    @Test func typedCharactersBecomeOneLine() {
        // A 16x24 glyph every 18 pixels: each merges with the line so far.
        let glyphs = (0..<40).map { PixelRect(x: 100 + $0 * 18, y: 300, width: 16, height: 24) }
        #expect(DamageRegions.merge(glyphs, within: screen) == [PixelRect(x: 100, y: 300, width: 718, height: 24)])
    }

    @Test func scatteredChangesAreHeldToTheLimit() {
        // A grid of 40x40 changes 150 pixels apart: too far to merge cheaply (4400 pixels wasted
        // by the closest pair), too many to keep.
        var changes: [PixelRect] = []
        for row in 0..<4 {
            for column in 0..<8 { changes.append(PixelRect(x: column * 150, y: row * 150, width: 40, height: 40)) }
        }
        #expect(DamageRegions.merge(Array(changes[0..<2]), within: screen).count == 2)
        let boxes = DamageRegions.merge(changes, within: screen)
        #expect(boxes.count == DamageRegions.limit)
        // Every change is inside a box.
        for change in changes {
            #expect(boxes.contains { change.clipped(to: $0) == change })
        }
    }

    @Test func mostOfTheAreaIsTheWholeArea() {
        let half = PixelRect(x: 0, y: 0, width: 1280, height: 360)
        #expect(DamageRegions.merge([half], within: screen) == [screen])
        let less = PixelRect(x: 0, y: 0, width: 1280, height: 350)
        #expect(DamageRegions.merge([less], within: screen) == [less])
    }

    @Test func wasteCountsAnOverlapOnce() {
        let a = PixelRect(x: 0, y: 0, width: 10, height: 10), b = PixelRect(x: 5, y: 0, width: 10, height: 10)
        #expect(DamageRegions.wasted(a, b) == 0)
        #expect(DamageRegions.wasted(a, PixelRect(x: 0, y: 20, width: 10, height: 10)) == 100)
    }
}

struct DamageMappingTests {
    @Test func oneToOnePiecesSitOnTheGridWithTheirMargins() {
        let mapping = DamageMapping(
            sourceWidth: 1280, sourceHeight: 720, placement: PixelRect(x: 0, y: 0, width: 1280, height: 720))
        let piece = mapping.piece(for: PixelRect(x: 600, y: 300, width: 320, height: 240))
        // Reached: 595..<925 across, 295..<545 down (5 pixels of filter reach); kept on the
        // 16-pixel grid; converted with 16 more on each side; read as converted (1:1).
        #expect(piece.kept == PixelRect(x: 592, y: 288, width: 336, height: 272))
        #expect(piece.output == PixelRect(x: 576, y: 272, width: 368, height: 304))
        #expect(piece.source == piece.output)
    }

    @Test func halvingReadsTwiceTheOutputAndStaysInPhase() {
        let mapping = DamageMapping(
            sourceWidth: 3840, sourceHeight: 2160, placement: PixelRect(x: 0, y: 0, width: 1920, height: 1080))
        let piece = mapping.piece(for: PixelRect(x: 1800, y: 900, width: 640, height: 480))
        // Across: reach 9 source pixels, so 895..<1225 in the output; kept 880..<1232.
        #expect(piece.kept == PixelRect(x: 880, y: 432, width: 352, height: 272))
        #expect(piece.output == PixelRect(x: 864, y: 416, width: 384, height: 304))
        #expect(piece.source == PixelRect(x: 1728, y: 832, width: 768, height: 608))
    }

    @Test func piecesStopAtThePictureEdges() {
        let mapping = DamageMapping(
            sourceWidth: 1280, sourceHeight: 720, placement: PixelRect(x: 0, y: 0, width: 1280, height: 720))
        let piece = mapping.piece(for: PixelRect(x: 1275, y: 0, width: 5, height: 4))
        #expect(piece.kept == PixelRect(x: 1264, y: 0, width: 16, height: 16))
        #expect(piece.output == PixelRect(x: 1248, y: 0, width: 32, height: 32))
        #expect(piece.source == PixelRect(x: 1248, y: 0, width: 32, height: 32))
    }

    @Test func withNoWholeStepABoxBecomesWholeRowsBetweenTheBars() {
        // 1280x1024 into 1280x720: a 900x720 picture 190 pixels from the left; 900/1280 has no
        // small whole step, so the box is read as it is and redrawn as whole rows of the picture.
        let mapping = DamageMapping(
            sourceWidth: 1280, sourceHeight: 1024, placement: PixelRect(x: 190, y: 0, width: 900, height: 720))
        #expect(mapping.redrawsRows)
        let box = PixelRect(x: 100, y: 100, width: 10, height: 10)
        let piece = mapping.piece(for: box)
        // Reached: 100 - 6.69 .. 110 + 6.69 source rows, so 65.6 ..< 82.1 output rows.
        #expect(piece.source == box)
        #expect(piece.kept == PixelRect(x: 190, y: 64, width: 900, height: 32))
        #expect(piece.output == piece.kept)
        #expect(piece.wholeRows)
    }

    @Test func exactRatiosSnapToAGridWithAWholeSourceStep() {
        // 2560 → 1920 is 4:3: three output pixels are four source pixels, so the grid is 48.
        #expect(DamageMapping.Axis(source: 2560, output: 1920).grid == 48)
        #expect(DamageMapping.Axis(source: 3840, output: 1920).grid == 16)
        #expect(DamageMapping.Axis(source: 1280, output: 900).grid == nil)
    }
}
