import Testing

@testable import Encoding
@testable import Media

@Suite struct StandbyCardTests {
    /// A frame of one flat colour.
    func flat(y: UInt8, cb: UInt8, cr: UInt8) throws -> VideoFrame {
        let frame = try VideoFrame(width: 320, height: 180, index: 0)
        for (plane, value) in [(0, y), (1, cb), (2, cr)] {
            frame.withPlane(plane) { bytes, stride, width, height in
                for row in 0..<height { (bytes + row * stride).update(repeating: value, count: width) }
            }
        }
        return frame
    }

    func sample(_ frame: VideoFrame, plane: Int, x: Int, y: Int) -> UInt8 {
        frame.withPlane(plane) { bytes, stride, _, _ in bytes[y * stride + x] }
    }

    @Test func theLastPictureIsDimmedToFortyPercentAroundTheCard() throws {
        let card = try StandbyCard.paused.render(
            over: try flat(y: 216, cb: 28, cr: 228), width: 320, height: 180, index: 9)
        #expect(card.index == 9)
        #expect(sample(card, plane: 0, x: 2, y: 2) == 16 + 200 * 2 / 5)
        #expect(sample(card, plane: 1, x: 1, y: 1) == 128 - 100 * 2 / 5)
        #expect(sample(card, plane: 2, x: 1, y: 1) == 128 + 100 * 2 / 5)
    }

    @Test func theCardIsADarkBoxWithWhiteLettersInTheMiddle() throws {
        let card = try StandbyCard.unavailable.render(over: nil, width: 320, height: 180, index: 0)
        // scale 2: 18 letters of 12 px less 2, 10 px padding each side.
        let boxWidth = 18 * 12 - 2 + 20, boxHeight = 14 + 20
        let left = (320 - boxWidth) / 2 & ~1, top = (180 - boxHeight) / 2 & ~1
        #expect(sample(card, plane: 0, x: 0, y: 0) == 16, "no picture: black")
        let box = YUVColor(red: 20, green: 20, blue: 24).y
        #expect(sample(card, plane: 0, x: left + 1, y: top + 1) == box)
        #expect(sample(card, plane: 0, x: left + boxWidth - 1, y: top + boxHeight - 1) == box)
        #expect(sample(card, plane: 0, x: left - 1, y: top) == 16)
        let letters = (top + 10..<top + 24).flatMap { y in (left + 10..<left + boxWidth - 10).map { (x: $0, y: y) } }
        #expect(letters.contains { sample(card, plane: 0, x: $0.x, y: $0.y) == YUVColor.white.y })
    }
}
