import Testing

@testable import Encoding
@testable import Media
import Runtime

@Suite struct WatermarkOverlayTests {
    /// A 64x36 frame of one colour.
    static func frame(y: UInt8 = 100, cb: UInt8 = 128, cr: UInt8 = 128) throws -> VideoFrame {
        let frame = try VideoFrame(width: 64, height: 36, index: 0)
        for (plane, value) in [(0, y), (1, cb), (2, cr)] {
            frame.withPlane(plane) { bytes, stride, width, height in
                for row in 0..<height { (bytes + row * stride).update(repeating: value, count: width) }
            }
        }
        return frame
    }

    static func sample(_ frame: VideoFrame, plane: Int, x: Int, y: Int) -> UInt8 {
        frame.withPlane(plane) { bytes, stride, _, _ in bytes[y * stride + x] }
    }

    /// A solid image of straight (not premultiplied) RGBA in 0…1.
    static func solid(width: Int, height: Int, _ rgba: SIMD4<Float>) -> WatermarkImage {
        let premultiplied = SIMD4<Float>(rgba.x * rgba.w, rgba.y * rgba.w, rgba.z * rgba.w, rgba.w)
        return WatermarkImage(
            width: width, height: height, pixels: Array(repeating: premultiplied, count: width * height))
    }

    @Test func halfTransparentRedBlendsExactlyInsideAndNowhereElse() throws {
        var placement = WatermarkPlacement()
        placement.position = .topLeft
        placement.margin = 4
        let overlay = WatermarkOverlay(
            image: Self.solid(width: 8, height: 6, [1, 0, 0, 0.5]), placement: placement, frameWidth: 64,
            frameHeight: 36)
        #expect([overlay.x, overlay.y, overlay.width, overlay.height] == [4, 4, 8, 6])
        let frame = try Self.frame()
        overlay.apply(to: CapturedPicture(frame))
        // Red is Y 81.481, Cb 90.203, Cr 240 in limited BT.601: half of each, half of the frame.
        #expect(Self.sample(frame, plane: 0, x: 4, y: 4) == 91)  // 0.5 × 100 + 0.5 × 81.481 = 90.74
        #expect(Self.sample(frame, plane: 0, x: 11, y: 9) == 91)
        #expect(Self.sample(frame, plane: 1, x: 2, y: 2) == 109)  // 0.5 × 128 + 0.5 × 90.203 = 109.10
        #expect(Self.sample(frame, plane: 2, x: 5, y: 4) == 184)  // 0.5 × 128 + 0.5 × 240 = 184
        #expect(Self.sample(frame, plane: 0, x: 3, y: 4) == 100)
        #expect(Self.sample(frame, plane: 0, x: 12, y: 4) == 100)
        #expect(Self.sample(frame, plane: 0, x: 4, y: 10) == 100)
        #expect(Self.sample(frame, plane: 1, x: 6, y: 2) == 128)
    }

    @Test func opaqueWhiteReplacesThePictureAndOpacityScalesIt() throws {
        var placement = WatermarkPlacement()
        placement.position = .center
        let white = Self.solid(width: 10, height: 10, [1, 1, 1, 1])
        let opaque = try Self.frame(y: 16)
        WatermarkOverlay(image: white, placement: placement, frameWidth: 64, frameHeight: 36).apply(
            to: CapturedPicture(opaque))
        #expect(Self.sample(opaque, plane: 0, x: 32, y: 18) == 235)
        placement.opacity = 0.25
        let faint = try Self.frame(y: 16)
        WatermarkOverlay(image: white, placement: placement, frameWidth: 64, frameHeight: 36).apply(
            to: CapturedPicture(faint))
        #expect(Self.sample(faint, plane: 0, x: 32, y: 18) == 71)  // 16 + 0.25 × 219 = 70.75
    }

    @Test func transparentPixelsLeaveThePictureUntouched() throws {
        let frame = try Self.frame(y: 77)
        WatermarkOverlay(
            image: Self.solid(width: 20, height: 20, [1, 0, 1, 0]), placement: .init(), frameWidth: 64, frameHeight: 36
        )
        .apply(to: CapturedPicture(frame))
        #expect(Self.sample(frame, plane: 0, x: 40, y: 10) == 77)
    }

    @Test func aRedrawnPictureIsStampedOnlyWhereItChanged() throws {
        var placement = WatermarkPlacement()
        placement.position = .point(x: 0, y: 0)
        placement.margin = 0
        let overlay = WatermarkOverlay(
            image: Self.solid(width: 8, height: 8, [1, 1, 1, 1]), placement: placement, frameWidth: 64, frameHeight: 36)
        #expect([overlay.x, overlay.y, overlay.width, overlay.height] == [0, 0, 8, 8])
        // Away from the watermark: nothing is blended.
        let away = try Self.frame(y: 16)
        overlay.apply(to: CapturedPicture(away, changedAreas: [PixelRect(x: 20, y: 20, width: 8, height: 8)]))
        #expect(Self.sample(away, plane: 0, x: 2, y: 2) == 16)
        // Over its right half: only that half is blended.
        let half = try Self.frame(y: 16)
        overlay.apply(to: CapturedPicture(half, changedAreas: [PixelRect(x: 4, y: 0, width: 20, height: 20)]))
        #expect(Self.sample(half, plane: 0, x: 2, y: 2) == 16)
        #expect(Self.sample(half, plane: 0, x: 6, y: 2) == 235)
    }

    @Test func positionsSitAgainstTheirEdgesOnEvenPixels() {
        var placement = WatermarkPlacement()
        placement.margin = 16
        let cases: [(WatermarkPlacement.Position, Int, Int)] = [
            (.topLeft, 16, 16), (.topRight, 1280 - 200 - 16, 16), (.bottomLeft, 16, 720 - 50 - 16),
            (.bottomRight, 1064, 654), (.center, 540, 334), (.point(x: 101, y: 33), 100, 32),
            (.point(x: -16, y: -16), 1064, 654), (.point(x: 5000, y: -5000), 1080, 0),
        ]
        for (position, x, y) in cases {
            placement.position = position
            let origin = placement.origin(width: 200, height: 50, frameWidth: 1280, frameHeight: 720)
            #expect(origin.x == x && origin.y == y, "\(position)")
        }
    }

    @Test func sizeFollowsScaleOrWidthAndShrinksToFit() {
        var placement = WatermarkPlacement()
        placement.size = .scale(0.5)
        #expect(
            placement.drawnSize(imageWidth: 252, imageHeight: 72, frameWidth: 1280, frameHeight: 720) == (
                126, 36, false
            ))
        placement.size = .width(100)
        #expect(
            placement.drawnSize(imageWidth: 252, imageHeight: 72, frameWidth: 1280, frameHeight: 720) == (
                100, 29, false
            ))
        placement.size = .scale(1)
        #expect(
            placement.drawnSize(imageWidth: 2000, imageHeight: 500, frameWidth: 640, frameHeight: 360) == (
                640, 160, true
            ))
    }

    @Test func shrinkingAveragesAndKeepsASolidColourSolid() {
        let pixels: [SIMD4<Float>] = [[1, 1, 1, 1], [0, 0, 0, 0], [1, 1, 1, 1], [0, 0, 0, 0]]
        let halved = ImageResizer.tent(pixels, width: 4, height: 1, toWidth: 2, toHeight: 1)
        #expect(halved.allSatisfy { abs($0.w - 0.5) < 0.2 })
        let solid = [SIMD4<Float>](repeating: [0.2, 0.4, 0.6, 1], count: 30 * 10)
        for resized in [
            ImageResizer.tent(solid, width: 30, height: 10, toWidth: 7, toHeight: 3),
            ImageResizer.tent(solid, width: 30, height: 10, toWidth: 61, toHeight: 21),
        ] {
            #expect(resized.allSatisfy { abs($0.x - 0.2) < 1e-5 && abs($0.w - 1) < 1e-5 })
        }
    }
}
