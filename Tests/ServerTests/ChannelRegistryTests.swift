import HLSModel
import HLS
import Testing

@testable import Server

@Suite struct ChannelRegistryTests {
    static func store(_ name: ChannelName) -> LiveStore {
        LiveStore(
            timeline: Timeline(
                configuration: .init(
                    channel: name,
                    rendition: Rendition(
                        width: 640, height: 360, fps: 30, videoBitrate: 1_000_000, audioBitrate: 0,
                        codecs: ["avc1.64001f"]),
                    format: .fmp4, segmentDuration: 2, playlistSize: 3)),
            startedAt: 0)
    }

    @Test func channelsComeAndGoWhileItIsInUse() {
        let registry = ChannelRegistry()
        registry.add(Self.store("zeta"))
        registry.add(Self.store("alpha"))
        #expect(registry.all().map(\.channel.name) == ["alpha", "zeta"])
        #expect(registry.entry(named: "alpha")?.control == nil, "a channel it only serves has no control")
        registry.remove(named: "zeta")
        #expect(registry.all().map(\.channel.name) == ["alpha"])
        #expect(registry.entry(named: "zeta") == nil)
        let replacement = Self.store("alpha")
        registry.add(replacement)
        #expect(registry.all().count == 1 && registry.entry(named: "alpha")?.channel === replacement)
    }
}
