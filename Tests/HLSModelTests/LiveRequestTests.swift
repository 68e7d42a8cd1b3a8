import Testing

@testable import HLSModel

@Suite struct LiveRequestTests {
    func parse(_ file: String, _ query: String? = nil, channel: String = "demo") throws(LiveRequest.Problem)
        -> LiveRequest
    {
        try LiveRequest.parse(channel: channel, file: file, query: query)
    }

    @Test func aPlainRequestNamesAChannelAndAFile() throws {
        let request = try parse("seg12.m4s")
        #expect(request.channel == "demo" && request.file == "seg12.m4s")
        #expect(request.msn == nil && request.part == nil && request.skip == nil && request.session == nil)
    }

    @Test func lowLatencyDirectivesAndTheSessionAreRead() throws {
        let request = try parse("media.m3u8", "_HLS_msn=12&_HLS_part=3&_HLS_skip=YES&session=ab-C_9&x=1")
        #expect(request.msn == 12 && request.part == 3 && request.skip == .yes && request.session == "ab-C_9")
        #expect(try parse("media.m3u8", "_HLS_skip=v2").skip == .v2)
        #expect(try parse("media.m3u8", "_HLS_m%73n=4").msn == 4, "keys are percent-decoded")
        #expect(try parse("media.m3u8", "_HLS_msn=1764153566&_HLS_part=0").msn == 1_764_153_566, "an epoch number")
        #expect(try parse("media.m3u8", "session=not%20ours").session == nil, "an odd session is not echoed")
        #expect(try parse("media.m3u8", "&&_HLS_later=1&").msn == nil, "unknown directives are ignored")
        #expect(try parse("seg1.m4s", "token=1795456800.ab-C_9").token == "1795456800.ab-C_9")
        #expect(try parse("seg1.m4s", "token=a%20b").token == nil, "not a token of ours: refused as none")
    }

    @Test(arguments: [
        "_HLS_msn=x", "_HLS_msn=-1", "_HLS_msn=+1", "_HLS_msn=", "_HLS_msn=1e3", "_HLS_msn=1234567890123456789",
        "_HLS_msn=1&_HLS_part=-2", "_HLS_part=0", "_HLS_skip=NO", "_HLS_skip=yes", "_HLS_msn=1&_HLS_msn=2",
        "_HLS_msn=%3", "_HLS_msn=%zz", "session=%C0%AF", "_HLS_msn=%00", "x=%zz", "%=1", "token=a&token=b",
    ])
    func malformedQueriesAreRefused(query: String) {
        #expect {
            try parse("media.m3u8", query)
        } throws: { error in
            guard case .badQuery = error as? LiveRequest.Problem else { return false }
            return true
        }
    }

    @Test func numbersAreBoundedWhereTheyEnter() throws {
        #expect(try parse("dvr-media.m3u8", "delay=604800").delay == 604_800, "a week, the longest window")
        #expect(try parse("dvr-media.m3u8", "from=1125899906842623").from == 1_125_899_906_842_623, "2^50 - 1")
        #expect(try parse("media.m3u8", "_HLS_msn=1&_HLS_part=600").part == 600)
        let refused: [(String, String)] = [
            ("delay=9300000000000000", "delay must be at most 604800"),
            ("delay=604801", "delay must be at most 604800"),
            ("from=1125899906842624", "from must be at most 1125899906842623"),
            ("_HLS_msn=999999999999999999", "_HLS_msn must be at most 1125899906842623"),
            ("_HLS_msn=1&_HLS_part=601", "_HLS_part must be at most 600"),
        ]
        for (query, reason) in refused {
            #expect(throws: LiveRequest.Problem.badQuery(reason)) { try parse("dvr-media.m3u8", query) }
        }
    }

    @Test(arguments: [
        "..", "../media.m3u8", "..%2Fmedia.m3u8", ".hidden", "a/b", "a\\b", "seg0.m4s\u{0}.txt", "%2e%2e", "", "é.m4s",
        String(repeating: "a", count: 129),
    ])
    func namesThatAreNotPlainTokensAreNotFound(file: String) {
        #expect(throws: LiveRequest.Problem.notFound) { try parse(file) }
    }

    @Test func channelsAreTokensToo() {
        #expect(throws: LiveRequest.Problem.notFound) { try parse("media.m3u8", channel: "..") }
        #expect(throws: LiveRequest.Problem.notFound) { try parse("media.m3u8", channel: "a.b") }
        #expect(throws: LiveRequest.Problem.notFound) {
            try parse("media.m3u8", channel: String(repeating: "c", count: 65))
        }
    }

    @Test func aChannelNameIsOneToSixtyFourLettersDigitsDashesOrUnderscores() {
        // Through a String: `ChannelName("…")` with a literal is the literal's coercion, not the check.
        func name(_ text: String) -> ChannelName? { ChannelName(text) }
        #expect(name("Demo_2-b")?.text == "Demo_2-b")
        #expect(name(String(repeating: "c", count: 64))?.text.count == 64)
        for bad in ["", String(repeating: "c", count: 65), "..", "a.b", "a/b", "a b", "é", "a%2F"] {
            #expect(name(bad) == nil, "\(bad)")
        }
        let a: ChannelName = "a"
        #expect(name("b")! > a)
        #expect("\(a)" == "a")
    }
}
