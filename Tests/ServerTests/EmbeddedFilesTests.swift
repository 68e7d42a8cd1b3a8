import Testing

@testable import Server

/// The pages as the binary serves them: a page with a player preloads every module of the player.
@Suite struct EmbeddedFilesTests {
    @Test func pagesWithAPlayerPreloadEachOfItsModulesAndNoOtherPageDoes() {
        let files = EmbeddedFiles(files: [
            "watch.html": Array("<html><head><title>w</title></head></html>".utf8),
            "index.html": Array("<html><head></head></html>".utf8),
            "player/units.js": [], "player/onair-player.js": [], "player.js": [], "page.js": [],
        ])
        let preloads =
            "<link rel=\"modulepreload\" href=\"/web/player/onair-player.js\">\n"
            + "<link rel=\"modulepreload\" href=\"/web/player/units.js\">\n"
        #expect(
            String(decoding: files.html(of: "watch.html", head: "<meta x>"), as: UTF8.self)
                == "<html><head><title>w</title>" + preloads + "<meta x></head></html>")
        #expect(String(decoding: files.html(of: "index.html"), as: UTF8.self) == "<html><head></head></html>")
    }
}
