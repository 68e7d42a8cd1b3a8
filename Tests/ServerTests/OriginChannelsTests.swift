import Testing

@testable import HLS
@testable import Server

/// The origin's channels over time: live from the first playlist, ended when the publisher goes
/// silent, and nothing held for a publisher that never pushed a playlist.
@Suite struct OriginChannelsTests {
    static func playlist(segments: Int) -> [UInt8] {
        var text =
            "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-MAP:URI=\"init.mp4\"\n"
        for index in 0..<segments { text += "#EXTINF:1.000,\nseg\(index).m4s\n" }
        return Array(text.utf8)
    }

    @Test func aChannelGoesLiveEndsWhenSilentAndLeavesAfterItsRetention() throws {
        let registry = ChannelRegistry()
        let changes = ChangeLog()
        let origin = OriginChannels(
            settings: .init(publisherTimeout: 10, retention: 100), registry: registry, changed: changes.add)
        try origin.put(channel: "demo", file: .initSegment(continuing: nil), bytes: [1], now: 0, wallMilliseconds: 0)
        try origin.put(channel: "demo", file: .segment(0, .fmp4), bytes: [2], now: 0, wallMilliseconds: 0)
        #expect(registry.entry(named: "demo") == nil)
        try origin.put(
            channel: "demo", file: .mediaPlaylist, bytes: Self.playlist(segments: 1), now: 1, wallMilliseconds: 0)
        #expect(registry.entry(named: "demo")?.channel.summary().state == .live)
        origin.sweep(now: 10.5)
        #expect(changes.all == [.live("demo")])
        origin.sweep(now: 11)
        #expect(changes.all == [.live("demo"), .ended("demo", silentFor: 10)])
        #expect(registry.entry(named: "demo")?.channel.summary().state == .ended)
        origin.sweep(now: 101)
        #expect(registry.entry(named: "demo") == nil)
        #expect(origin.counts.channels == 0)
    }

    @Test func filesNoPlaylistListedAreLetGoWhenTheirPublisherFallsSilent() throws {
        let origin = OriginChannels(settings: .init(publisherTimeout: 10), registry: ChannelRegistry())
        try origin.put(
            channel: "x", file: .segment(0, .fmp4), bytes: [UInt8](repeating: 0, count: 1000), now: 0,
            wallMilliseconds: 0)
        #expect(origin.counts == (1, 1000))
        origin.sweep(now: 10)
        #expect(origin.counts == (0, 0))
    }

    @Test func theNumberOfChannelsIsBounded() throws {
        let origin = OriginChannels(settings: .init(maximum: 2), registry: ChannelRegistry())
        for name in ["a", "b"] {
            try origin.put(channel: name, file: .segment(0, .fmp4), bytes: [1], now: 0, wallMilliseconds: 0)
        }
        #expect(throws: IngestAssembler.Refusal.full("this origin hosts 2 channels already")) {
            try origin.put(channel: "c", file: .segment(0, .fmp4), bytes: [1], now: 0, wallMilliseconds: 0)
        }
    }
}

final class ChangeLog: @unchecked Sendable {
    private var changes: [OriginChannels.Change] = []
    var all: [OriginChannels.Change] { changes }
    func add(_ change: OriginChannels.Change) { changes.append(change) }
}

@Suite struct IngestTokensTests {
    @Test func aTokensFileGivesEachChannelItsOwnAndNamesItsFirstBadLine() throws {
        let text = "# channel token\n\nalpha alpha-token-0123456789\nbeta\tbeta#token-0123456789\r\n"
        let tokens = try IngestTokens.parse(file: text, isChannelName: LiveRequest.isChannelName)
        #expect(tokens == ["alpha": "alpha-token-0123456789", "beta": "beta#token-0123456789"])
        let rules = IngestTokens(byChannel: tokens)
        #expect(rules.allows(channel: "beta", authorization: "Bearer beta#token-0123456789"))
        #expect(!rules.allows(channel: "alpha", authorization: "Bearer beta#token-0123456789"))
        #expect(throws: IngestTokens.Problem(line: 2, reason: "channel alpha is given twice")) {
            try IngestTokens.parse(
                file: "alpha a-token-0123456789abc\nalpha b-token-0123456789abc",
                isChannelName: LiveRequest.isChannelName)
        }
        #expect(throws: IngestTokens.Problem.self) {
            try IngestTokens.parse(file: "../x token-0123456789abcdef", isChannelName: LiveRequest.isChannelName)
        }
    }
}
