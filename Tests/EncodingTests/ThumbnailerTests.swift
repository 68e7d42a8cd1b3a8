import Media
import Testing

@testable import Encoding

@Suite struct ThumbnailerTests {
    @Test func theThumbnailIsAtMost640WideInTheSameShapeBothEven() {
        #expect(Thumbnailer.size(width: 1280, height: 720) == (640, 360))
        #expect(Thumbnailer.size(width: 1920, height: 1200) == (640, 400))
        #expect(Thumbnailer.size(width: 3840, height: 2160) == (640, 360))
        #expect(Thumbnailer.size(width: 320, height: 180) == (320, 180))
        // 1000x562 at 640 wide is 359.68 high: rounded to 360.
        #expect(Thumbnailer.size(width: 1000, height: 562) == (640, 360))
        #expect(Thumbnailer.size(width: 642, height: 10) == (640, 10))
    }

    @Test func aPictureIsKeptEveryIntervalAndEncodedOnceAsAJPEG() throws {
        let thumbnailer = Thumbnailer(fps: 30, seconds: 2)
        #expect(thumbnailer.interval == 60)
        #expect(try thumbnailer.jpeg() == nil && !thumbnailer.hasPicture)
        let frames = try (0..<121).map { try VideoFrame(width: 320, height: 180, index: Int64($0)) }
        for frame in frames {
            for plane in 0..<3 {
                frame.withPlane(plane) { bytes, stride, _, height in
                    for index in 0..<(stride * height) { bytes[index] = 128 }
                }
            }
        }
        for frame in frames[0..<60] { thumbnailer.offer(frame) }
        #expect(try thumbnailer.jpeg()?.index == 0)
        thumbnailer.offer(frames[60])
        let jpeg = try #require(try thumbnailer.jpeg())
        #expect(jpeg.index == 60)
        // A JPEG: SOI, then EOI at the end.
        #expect(jpeg.bytes.prefix(2) == [0xFF, 0xD8] && jpeg.bytes.suffix(2) == [0xFF, 0xD9])
        for frame in frames[61..<120] { thumbnailer.offer(frame) }
        #expect(try thumbnailer.jpeg()?.bytes == jpeg.bytes, "kept and not made again")
        thumbnailer.offer(frames[120])
        #expect(try thumbnailer.jpeg()?.index == 120)
        // A broadcast that starts over (indices from 0 again) is followed at once.
        thumbnailer.offer(frames[3])
        #expect(try thumbnailer.jpeg()?.index == 3)
    }
}
