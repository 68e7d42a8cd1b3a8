import Runtime
import ArgumentParser
import Media
import Testing
import Capture
import HLSModel
import Publisher
import Server

@testable import onair

@Suite struct OptionTests {
    static func error(_ arguments: [String]) -> String? {
        do {
            _ = try Publish.parse(arguments)
            return nil
        } catch {
            return Publish.message(for: error)
        }
    }

    @Test func defaultsDescribeA720p30Broadcast() throws {
        let config = try Publish.parse([]).broadcastConfiguration
        #expect(config.channel == "demo")
        #expect(config.width == 1280 && config.height == 720 && config.fps == 30)
        #expect(config.videoBitrate == 2_500_000 && config.audioBitrate == 128_000)
        #expect(config.format == .fmp4 && config.segmentDuration == 2 && config.playlistSize == 6)
        #expect(config.keyframeInterval == 60)
        #expect(config.server.port == 8080 && config.server.host == "0.0.0.0" && config.server.allowOrigin == "*")
    }

    @Test func portalSourcesAreAScreenOrAWindow() {
        #expect(SourceChoice(argument: "portal") == .portal(.monitor))
        #expect(SourceChoice(argument: "portal:screen") == .portal(.monitor))
        #expect(SourceChoice(argument: "portal:window") == .portal(.window))
        #expect(SourceChoice(argument: "portal:region") == nil)
        #expect(
            SourceChoice(argument: "portal:region:200x120+100+80")
                == .portal(.monitor, region: PixelRect(x: 100, y: 80, width: 200, height: 120)))
        #expect(SourceChoice(argument: "portal:region:200x120") == nil)
        #expect(Self.error(["--source", "portal:tab"])?.contains("--source") == true)
    }

    @Test func aWaylandSessionIsToldByItsVariables() {
        #expect(VideoSourceResolver.isWaylandSession(["XDG_SESSION_TYPE": "wayland"]))
        #expect(VideoSourceResolver.isWaylandSession(["WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"]))
        #expect(!VideoSourceResolver.isWaylandSession(["XDG_SESSION_TYPE": "x11", "DISPLAY": ":0"]))
        #expect(!VideoSourceResolver.isWaylandSession(["WAYLAND_DISPLAY": ""]))
    }

    @Test func optionsMapOntoTheConfiguration() throws {
        let config = try Publish.parse([
            "--channel", "Room_2-b", "--size", "640x360", "--fps", "25", "--video-bitrate", "1.2M",
            "--audio-bitrate", "96k", "--format", "ts", "--segment-duration", "4", "--playlist-size", "5",
            "--audio", "none", "--duration", "1.5m", "--port", "9000",
        ]).broadcastConfiguration
        #expect(config.channel == "Room_2-b")
        #expect(config.width == 640 && config.height == 360 && config.fps == 25)
        #expect(config.videoBitrate == 1_200_000 && config.audioBitrate == 96_000)
        #expect(config.format == .ts && config.segmentDuration == 4 && config.playlistSize == 5)
        #expect(config.audio == .none && config.duration == 90 && config.server.port == 9000)
        #expect(config.keyframeInterval == 100)
    }

    @Test(arguments: [
        (["--channel", "bad name"], "channel 'bad name' must be 1 to 64 letters, digits, '-' or '_'"),
        (["--channel", String(repeating: "a", count: 65)], "must be 1 to 64 letters"),
        (["--size", "1281x720"], "--size 1281x720 must have even width and height"),
        (["--size", "8x8"], "--size 8x8 is out of range"),
        (["--size", "wide"], "--size"),
        (["--fps", "0"], "--fps 0 is out of range: 1 to 60"),
        (["--fps", "61"], "--fps 61 is out of range: 1 to 60"),
        (["--segment-duration", "0.5"], "--segment-duration 0.5 is out of range: 1 to 10 seconds"),
        (["--segment-duration", "11"], "--segment-duration 11.0 is out of range"),
        (["--segment-duration", "1.01"], "must hold a whole number of frames at 30 fps"),
        (["--playlist-size", "2"], "--playlist-size 2 is too small"),
        (["--format", "mkv"], "--format"),
        (["--port", "70000"], "--port 70000 is out of range"),
        (["--duration", "0s"], "--duration must be longer than zero"),
    ])
    func badInputIsOneClearLine(arguments: [String], expected: String) throws {
        let message = try #require(Self.error(arguments))
        #expect(message.contains(expected))
        #expect(!message.contains("\n"))
    }

    @Test func helpShowsDefaultsAsTheyAreTyped() {
        let help = Publish.helpMessage(columns: 1000)
        #expect(help.contains("the broadcast ends. (default: 10s)"))
        #expect(help.contains("before the broadcast ends. (default: 30s)"))
        #expect(help.contains("(default: 2500k in h264, 1250k in av1)") && help.contains("(default: 720p)"))
        #expect(!help.contains("Value("), "no default is shown as a Swift value")
    }

    @Test func valuesParse() {
        #expect(Bitrate(argument: "2500k")?.bitsPerSecond == 2_500_000)
        #expect(Bitrate(argument: "2.5M")?.bitsPerSecond == 2_500_000)
        #expect(Bitrate(argument: "800000")?.bitsPerSecond == 800_000)
        #expect(Bitrate(argument: "fast") == nil)
        #expect(FrameSize(argument: "1920X1080") == FrameSize(width: 1920, height: 1080))
        #expect(FrameSize(argument: "1920x") == nil)
        #expect(DurationValue(argument: "30s")?.seconds == 30)
        #expect(DurationValue(argument: "2m")?.seconds == 120)
        #expect(DurationValue(argument: "1h")?.seconds == 3600)
        #expect(DurationValue(argument: "45")?.seconds == 45)
        // Numbers no option takes are held where the range checks can refuse them, never trapping.
        #expect(Bitrate(argument: "9223372036854775807")?.bitsPerSecond == 1_000_000_000_000_000)
        #expect(Bitrate(argument: "100000000000000000000k")?.bitsPerSecond == 1_000_000_000_000_000)
        #expect(DurationValue(argument: "18446744073709551616s")?.seconds == 1e9)
        #expect(DurationValue(argument: "nan") == nil && DurationValue(argument: "-1s") == nil)
        #expect(DurationValue(argument: "inf") == nil)
        #expect(
            ["\(DurationValue(seconds: 10))", "\(DurationValue(seconds: 90))", "\(DurationValue(seconds: 600))"] == [
                "10s", "90s", "10m",
            ])
        #expect(
            ["\(DurationValue(seconds: 7200))", "\(DurationValue(seconds: 2.5))", "\(DurationValue(seconds: 0))"] == [
                "2h", "2.5s", "0s",
            ])
    }

    @Test func sizesAreDecimalWithAnOptionalB() {
        #expect(ByteSize(argument: "500M")?.bytes == 500_000_000)
        #expect(ByteSize(argument: "1.5G")?.bytes == 1_500_000_000)
        #expect(ByteSize(argument: "20gb")?.bytes == 20_000_000_000)
        #expect(ByteSize(argument: "2T")?.bytes == 2_000_000_000_000)
        #expect(ByteSize(argument: "4096")?.bytes == 4096)
        #expect(ByteSize(argument: "0") == nil)
        #expect(ByteSize(argument: "-1G") == nil)
        #expect(ByteSize(argument: "lots") == nil)
        #expect(ByteSize(argument: "9000000T") == nil)
    }
}
