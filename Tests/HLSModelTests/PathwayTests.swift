import Testing

@testable import HLSModel

/// Twin origins offered to players: `--pathway` checked, the multivariant playlist listing every
/// pathway, and the steering manifest, with exact values.
@Suite struct PathwayTests {
    @Test func aPathwayIsANameAndAServersAddress() throws {
        #expect(
            try Pathway.parse("a=http://origin-a.example:8080/")
                == Pathway(id: "a", base: "http://origin-a.example:8080"))
        #expect(try Pathway.parse("eu-1=HTTPS://example.com/a//") == Pathway(id: "eu-1", base: "https://example.com/a"))
        #expect(try Pathway.parse("v6=http://[::1]:8081") == Pathway(id: "v6", base: "http://[::1]:8081"))
        #expect(try Pathway.parse("b=https://b.example").origin == "https://b.example")
        #expect(try Pathway.parse("b=https://b.example/x").server == "https://b.example:443")
    }

    @Test func whatAPathwayCannotBe() {
        #expect(throws: SettingError.pathwayNotNameAndURL("http://a")) { try Pathway.parse("http://a") }
        #expect(throws: SettingError.pathwayBadName("a b")) { try Pathway.parse("a b=http://a") }
        #expect(throws: SettingError.pathwayBadName("")) { try Pathway.parse("=http://a") }
        #expect(throws: SettingError.pathwayBadURL("ftp://a")) { try Pathway.parse("a=ftp://a") }
        #expect(throws: SettingError.pathwayBadURL("http://a/?x=1")) { try Pathway.parse("a=http://a/?x=1") }
        #expect(throws: SettingError.pathwayBadURL("http://a:0")) { try Pathway.parse("a=http://a:0") }
        #expect(throws: SettingError.pathwayBadURL("http://")) { try Pathway.parse("a=http://") }
    }

    @Test func aListNamesTwoServersOrMore() throws {
        let a = Pathway(id: "a", base: "http://a.example:8080")
        #expect(throws: SettingError.pathwayAlone) { try Pathway.check([a]) }
        #expect(throws: SettingError.pathwayRepeatedName("a")) {
            try Pathway.check([a, Pathway(id: "a", base: "http://b.example")])
        }
        // The same server, however its address is spelled.
        #expect(throws: SettingError.pathwaySameServer("a", "b")) {
            try Pathway.check([a, Pathway(id: "b", base: "http://A.example:8080/other")])
        }
        #expect(throws: SettingError.pathwaySameServer("a", "b")) {
            try Pathway.check([
                Pathway(id: "a", base: "http://a.example"), Pathway(id: "b", base: "http://a.example:80"),
            ])
        }
        try Pathway.check([a, Pathway(id: "b", base: "http://a.example:8081")])
    }

    @Test func aLadderOnTwoPathways() {
        let ladder = MultivariantPlaylist(
            version: 9,
            variants: [
                .init(
                    uri: "360p/media.m3u8?session=s1", bandwidth: 900_000, averageBandwidth: 800_000,
                    codecs: ["avc1.64001e", "mp4a.40.2"], width: 640, height: 360, frameRate: 30, audioGroup: "audio",
                    subtitlesGroup: "subs"),
                .init(
                    uri: "180p/media.m3u8?session=s1", bandwidth: 300_000, averageBandwidth: 250_000,
                    codecs: ["avc1.64000d", "mp4a.40.2"], width: 320, height: 180, frameRate: 30, audioGroup: "audio",
                    subtitlesGroup: "subs"),
            ],
            audio: [.init(groupID: "audio", name: "Sound", uri: "audio/media.m3u8?session=s1", channels: 2)],
            subtitles: [.init(groupID: "subs", name: "English", language: "en", uri: "captions/media.m3u8?session=s1")])
        let pathways = [
            Pathway(id: "a", base: "http://a.example:8080"), Pathway(id: "b", base: "https://b.example/mirror"),
        ]
        let text = ladder.steered(over: pathways, channelPath: "/live/demo/", steeringURI: "/steering/demo").render()
        #expect(
            text == """
                #EXTM3U
                #EXT-X-VERSION:9
                #EXT-X-INDEPENDENT-SEGMENTS
                #EXT-X-CONTENT-STEERING:SERVER-URI="/steering/demo",PATHWAY-ID="a"
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio-a",NAME="Sound",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="http://a.example:8080/live/demo/audio/media.m3u8?session=s1"
                #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="audio-b",NAME="Sound",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="2",URI="https://b.example/mirror/live/demo/audio/media.m3u8?session=s1"
                #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs-a",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,FORCED=NO,URI="http://a.example:8080/live/demo/captions/media.m3u8?session=s1"
                #EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID="subs-b",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,FORCED=NO,URI="https://b.example/mirror/live/demo/captions/media.m3u8?session=s1"
                #EXT-X-STREAM-INF:BANDWIDTH=900000,AVERAGE-BANDWIDTH=800000,CODECS="avc1.64001e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=30.000,AUDIO="audio-a",SUBTITLES="subs-a",PATHWAY-ID="a"
                http://a.example:8080/live/demo/360p/media.m3u8?session=s1
                #EXT-X-STREAM-INF:BANDWIDTH=300000,AVERAGE-BANDWIDTH=250000,CODECS="avc1.64000d,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=30.000,AUDIO="audio-a",SUBTITLES="subs-a",PATHWAY-ID="a"
                http://a.example:8080/live/demo/180p/media.m3u8?session=s1
                #EXT-X-STREAM-INF:BANDWIDTH=900000,AVERAGE-BANDWIDTH=800000,CODECS="avc1.64001e,mp4a.40.2",RESOLUTION=640x360,FRAME-RATE=30.000,AUDIO="audio-b",SUBTITLES="subs-b",PATHWAY-ID="b"
                https://b.example/mirror/live/demo/360p/media.m3u8?session=s1
                #EXT-X-STREAM-INF:BANDWIDTH=300000,AVERAGE-BANDWIDTH=250000,CODECS="avc1.64000d,mp4a.40.2",RESOLUTION=320x180,FRAME-RATE=30.000,AUDIO="audio-b",SUBTITLES="subs-b",PATHWAY-ID="b"
                https://b.example/mirror/live/demo/180p/media.m3u8?session=s1

                """)
        // Read back as a player or an origin reads it: every variant, each with its pathway.
        let read = MultivariantPlaylist.parse(text)
        #expect(read?.variants.map(\.pathwayID) == ["a", "a", "b", "b"])
        #expect(read?.audio.map(\.groupID) == ["audio-a", "audio-b"])
        #expect(read?.subtitles.map(\.groupID) == ["subs-a", "subs-b"])
        #expect(read?.variants.map(\.subtitlesGroup) == ["subs-a", "subs-a", "subs-b", "subs-b"])
    }

    @Test func noPathwaysLeavesThePlaylistAsItIs() {
        let single = MultivariantPlaylist(
            version: 6,
            variants: [
                .init(
                    uri: "media.m3u8", bandwidth: 1, averageBandwidth: 1, codecs: [], width: 0, height: 0, frameRate: 0)
            ])
        #expect(single.steered(over: [], channelPath: "/live/demo/", steeringURI: "/steering/demo") == single)
    }

    @Test func whereAConnectionToAPathwaysServerGoes() throws {
        #expect(try Pathway.parse("a=http://a.example:8080/tv").hostAndPort == ("a.example", 8080))
        #expect(try Pathway.parse("a=https://A.example").hostAndPort == ("a.example", 443))
        #expect(try Pathway.parse("a=http://127.0.0.2").hostAndPort == ("127.0.0.2", 80))
        #expect(try Pathway.parse("a=http://[::1]:9000/").hostAndPort == ("::1", 9000))
        #expect(try Pathway.parse("a=https://[::1]").hostAndPort == ("::1", 443))
    }

    @Test func theSteeringManifestKeepsAPlayerOnItsPathwayAndSendsItsNextReloadToATwin() throws {
        let pathways = [
            try Pathway.parse("a=http://a.example:8080"), try Pathway.parse("b=https://b.example/tv"),
            try Pathway.parse("c=http://c.example"),
        ]
        let path = "/steering/demo"
        #expect(
            SteeringManifest.answer(pathways: pathways, current: nil, path: path)
                == "{\"VERSION\":1,\"TTL\":1,\"RELOAD-URI\":\"https://b.example/tv/steering/demo\","
                + "\"PATHWAY-PRIORITY\":[\"a\",\"b\",\"c\"]}\n")
        #expect(
            SteeringManifest.answer(pathways: pathways, current: "b", path: path)
                == "{\"VERSION\":1,\"TTL\":1,\"RELOAD-URI\":\"http://a.example:8080/steering/demo\","
                + "\"PATHWAY-PRIORITY\":[\"b\",\"a\",\"c\"]}\n")
        #expect(
            SteeringManifest.answer(pathways: pathways, current: "c", path: path)
                == "{\"VERSION\":1,\"TTL\":1,\"RELOAD-URI\":\"http://a.example:8080/steering/demo\","
                + "\"PATHWAY-PRIORITY\":[\"c\",\"a\",\"b\"]}\n")
        // A name it does not know is a player that has not said.
        #expect(
            SteeringManifest.answer(pathways: pathways, current: "z", path: path)
                == SteeringManifest.answer(pathways: pathways, current: nil, path: path))
        // A pathway down goes last, and is where no reload is sent while a twin is up.
        #expect(
            SteeringManifest.answer(pathways: pathways, current: "a", down: ["a"], path: path)
                == "{\"VERSION\":1,\"TTL\":1,\"RELOAD-URI\":\"https://b.example/tv/steering/demo\","
                + "\"PATHWAY-PRIORITY\":[\"b\",\"c\",\"a\"]}\n")
        #expect(
            SteeringManifest.answer(pathways: pathways, current: "a", down: ["b"], path: path)
                == "{\"VERSION\":1,\"TTL\":1,\"RELOAD-URI\":\"http://c.example/steering/demo\","
                + "\"PATHWAY-PRIORITY\":[\"a\",\"c\",\"b\"]}\n")
        // Its twins down, a player on a pathway that is up reads the next manifest there: once a
        // twin answers again, that manifest sends the reload back to it.
        #expect(
            SteeringManifest.answer(pathways: pathways, current: "b", down: ["a", "c"], path: path)
                == "{\"VERSION\":1,\"TTL\":1,\"RELOAD-URI\":\"https://b.example/tv/steering/demo\","
                + "\"PATHWAY-PRIORITY\":[\"b\",\"a\",\"c\"]}\n")
        #expect(
            SteeringManifest.answer(pathways: Array(pathways.prefix(2)), current: "b", down: ["a"], path: path)
                == "{\"VERSION\":1,\"TTL\":1,\"RELOAD-URI\":\"https://b.example/tv/steering/demo\","
                + "\"PATHWAY-PRIORITY\":[\"b\",\"a\"]}\n")
        #expect(
            SteeringManifest.answer(pathways: pathways, current: nil, down: ["a", "b", "c"], path: path)
                == "{\"VERSION\":1,\"TTL\":1,\"RELOAD-URI\":\"https://b.example/tv/steering/demo\","
                + "\"PATHWAY-PRIORITY\":[\"a\",\"b\",\"c\"]}\n")
        #expect(
            SteeringManifest.render(priority: [], reloadURI: nil)
                == "{\"VERSION\":1,\"TTL\":1,\"PATHWAY-PRIORITY\":[]}\n")
    }
}
