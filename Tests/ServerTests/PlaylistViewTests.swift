import HLS
import HLSModel
import Testing

@testable import Server

/// What a request adds to the channel's multivariant playlist, rendered from the channel's value.
@Suite struct PlaylistViewTests {
    static func served(_ query: String?, pathways: [Pathway] = [], token: String? = nil) async throws -> String {
        let store = BlockingReloadTests.store()
        let request = try LiveRequest.parse(channel: "demo", file: "index.m3u8", query: query)
        let file = try #require(try await store.file(for: request))
        let view = PlaylistView(request: request, pathways: pathways, token: token)
        return String(decoding: view.render(file, of: store), as: UTF8.self)
    }

    @Test func theChannelsOwnPlaylistIsServedAsItIs() async throws {
        let plain = try await Self.served(nil)
        #expect(plain.hasSuffix("\nmedia.m3u8\n"))
        #expect(!plain.contains("session=") && !plain.contains("PATHWAY"))
    }

    @Test func aSessionIsCarriedIntoTheVariantsURI() async throws {
        #expect(try await Self.served("session=abc").hasSuffix("\nmedia.m3u8?session=abc\n"))
    }

    @Test func twinsAreOfferedAsPathwaysAndATokenGoesIntoEveryURI() async throws {
        let pathways = [
            Pathway(id: "a", base: "http://a.example:8080"), Pathway(id: "b", base: "http://b.example:8080"),
        ]
        let steered = try await Self.served("session=abc", pathways: pathways, token: "t1")
        let lines = steered.split(separator: "\n")
        #expect(lines.contains("#EXT-X-CONTENT-STEERING:SERVER-URI=\"/steering/demo\",PATHWAY-ID=\"a\""))
        let uris = lines.filter { !$0.hasPrefix("#") }
        #expect(
            uris == [
                "http://a.example:8080/live/demo/media.m3u8?session=abc&token=t1",
                "http://b.example:8080/live/demo/media.m3u8?session=abc&token=t1",
            ])
    }
}
