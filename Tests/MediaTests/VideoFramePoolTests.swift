import Foundation
import Runtime
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

    /// The process's anonymous resident memory, in bytes.
    private func residentAnonymousBytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") })
        return try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])) * 1024
    }

    /// Forty 1080p pictures in flight at once (an overloaded machine's queues), then let go.
    private func burst(_ pool: VideoFramePool) throws {
        let frames = try (0..<40).map { index in
            let frame = try pool.makeFrame(index: Int64(index))
            frame.withPlane(0) { bytes, stride, _, height in bytes.update(repeating: 1, count: stride * height) }
            return frame
        }
        #expect(frames.count == 40)
    }

    /// A pool keeps what a burst made until it is renewed; renewed, it hands it back.
    @Test func aRenewedPoolLetsABurstGo() async throws {
        let kept = try VideoFramePool(width: 1920, height: 1080, renewal: .seconds(3600))
        let renewed = try VideoFramePool(width: 1920, height: 1080, renewal: .zero)
        let before = try residentAnonymousBytes()
        try burst(kept)
        _ = Heap.giveBackFreePages()
        let afterKept = try residentAnonymousBytes()
        try burst(renewed)
        _ = try renewed.makeFrame(index: 40)
        // 40 pictures of 2 MiB of luma each (79 MiB): the kept pool holds them, the renewed one does
        // not. Other tests run meanwhile and allocate too (a real encoder takes tens of MiB), so the
        // margins are wide, and what the renewed pool let go is looked for until theirs has been
        // given back as well (up to 30 s; the pool's own never would be).
        let bound = afterKept + 25 * 1024 * 1024
        let deadline = ContinuousClock.now + .seconds(30)
        var afterRenewed = Int.max
        while afterRenewed >= bound, ContinuousClock.now < deadline {
            if afterRenewed != Int.max { try await Task.sleep(for: .milliseconds(100)) }
            _ = Heap.giveBackFreePages()
            afterRenewed = try residentAnonymousBytes()
        }
        #expect(afterKept - before > 40 * 1024 * 1024, "\(before) then \(afterKept)")
        #expect(afterRenewed < bound, "\(afterKept) then \(afterRenewed)")
    }
}
