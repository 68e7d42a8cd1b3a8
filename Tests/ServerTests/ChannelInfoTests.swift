import HLSModel
import HLS
import Testing

@testable import Server

@Suite struct ChannelInfoTests {
    @Test func jsonNamesEveryFigureWithSortedKeys() throws {
        let summary = ChannelSummary(
            name: "demo", state: .live, startedAt: 1_795_320_000_250, width: 1280, height: 720, fps: 30,
            format: .fmp4, videoBitrate: 2_500_000, audioBitrate: 128_000, measuredBitrate: 2_345_678, segments: 12)
        let info = ChannelInfo(summary: summary, viewers: 3, nowMilliseconds: 1_795_320_065_000)
        let json = String(decoding: try ChannelInfo.json([info]), as: UTF8.self)
        #expect(
            json
                == #"[{"audioBitrate":128000,"embed":"/embed/demo","format":"fmp4","fps":30,"height":720,"#
                + #""measuredBitrate":2345678,"name":"demo","playlist":"/live/demo/index.m3u8","segments":12,"#
                + #""startedAt":"2026-11-22T04:00:00.250Z","state":"live","uptimeSeconds":64,"#
                + #""videoBitrate":2500000,"viewers":3,"watch":"/watch/demo","width":1280}]"#)
    }

    @Test func noChannelsIsAnEmptyList() throws {
        #expect(try ChannelInfo.json([ChannelInfo]()) == Array("[]".utf8))
    }
}
