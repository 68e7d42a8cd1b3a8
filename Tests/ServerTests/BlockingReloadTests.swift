import HLSModel
import HLS
import Hummingbird
import Testing

@testable import Server

@Suite struct BlockingReloadTests {
    static func store() -> LiveStore {
        var timeline = Timeline(
            configuration: .init(
                channel: "demo",
                rendition: Rendition(
                    width: 640, height: 360, fps: 30, videoBitrate: 1_000_000, audioBitrate: 0,
                    codecs: ["avc1.64001f"]),
                format: .fmp4, segmentDuration: 1, playlistSize: 3, partDuration: 0.2))
        let store = LiveStore(timeline: timeline, startedAt: 0)
        _ = timeline.appendPart([1], duration: 1, independent: true)
        store.receive(timeline.closeSegment(programDateTime: 0))
        return store
    }

    static func request(_ query: String) throws -> LiveRequest {
        try LiveRequest.parse(channel: "demo", file: "media.m3u8", query: query)
    }

    static func status(of error: any Error) -> HTTPResponse.Status? {
        (error as? HTTPError)?.status
    }

    @Test func aPartThatDoesNotComeInThreeTargetDurationsIs503() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        await #expect {
            _ = try await LiveRoutes.file(for: Self.request("_HLS_msn=2&_HLS_part=0"), in: Self.store())
        } throws: { Self.status(of: $0) == .serviceUnavailable }
        // Held the three target durations first (an upper bound would measure the test machine).
        #expect(clock.now - start >= .seconds(3))
    }

    @Test func aSegmentTooFarAheadIs400AtOnce() async throws {
        await #expect {
            _ = try await LiveRoutes.file(for: Self.request("_HLS_msn=9"), in: Self.store())
        } throws: { Self.status(of: $0) == .badRequest }
    }

    @Test func aSegmentAlreadyListedIsAnsweredAtOnce() async throws {
        let file = try await LiveRoutes.file(for: Self.request("_HLS_msn=0"), in: Self.store())
        #expect(file.map { String(decoding: $0.bytes, as: UTF8.self) }?.contains("seg0.m4s") == true)
    }
}
