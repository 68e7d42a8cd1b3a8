import Testing

@testable import Media

@Suite struct VideoFramePoolTests {
    private func address(_ frame: VideoFrame) -> UnsafeMutablePointer<UInt8> {
        frame.withPlane(0) { bytes, _, _, _ in bytes }
    }

    @Test func aReleasedPictureIsReused() throws {
        let pool = try VideoFramePool(width: 64, height: 36)
        var first: VideoFrame? = try pool.makeFrame(index: 0)
        let firstAddress = address(first!)
        let held = try pool.makeFrame(index: 1)
        #expect(address(held) != firstAddress)
        first = nil
        let third = try pool.makeFrame(index: 2)
        #expect(address(third) == firstAddress)
        #expect(third.index == 2 && third.width == 64 && third.height == 36)
    }

    @Test func planesAreLaidOutForYUV420() throws {
        let frame = try VideoFramePool(width: 64, height: 36).makeFrame(index: 0)
        let sizes = (0..<3).map { plane in
            frame.withPlane(plane) { _, stride, width, height in [stride, width, height] }
        }
        #expect(sizes == [[64, 64, 36], [32, 32, 18], [32, 32, 18]])
    }

    @Test func aReferenceKeepsThePictureOutOfThePool() throws {
        let pool = try VideoFramePool(width: 64, height: 36)
        var frame: VideoFrame? = try pool.makeFrame(index: 0)
        let repeated = try frame!.reference(index: 1)
        frame = nil
        #expect(try address(pool.makeFrame(index: 2)) != address(repeated))
    }
}
