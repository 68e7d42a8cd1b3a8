import Testing
import HLSModel
import NIOCore

@testable import Server

/// The body cache's order of use: O(1) look-ups, insertions and evictions, exact order kept.
@Suite struct RecencyListTests {
    @Test func theLeastRecentlyUsedGoesFirst() {
        var list = RecencyList<String, Int>()
        list.insert(1, for: "a", size: 10)
        list.insert(2, for: "b", size: 20)
        list.insert(3, for: "c", size: 30)
        #expect(list.keys == ["c", "b", "a"] && list.bytes == 60)
        #expect(list.use("a") == 1)
        #expect(list.keys == ["a", "c", "b"])
        let removed = list.removeLeastRecent()
        #expect(removed)
        #expect(list.keys == ["a", "c"] && list.bytes == 40 && list.use("b") == nil)
        // Replacing a value counts its new size and makes it the newest.
        list.insert(4, for: "c", size: 5)
        #expect(list.keys == ["c", "a"] && list.bytes == 15 && list.count == 2)
        // A freed slot is reused.
        list.insert(5, for: "d", size: 1)
        #expect(list.keys == ["d", "c", "a"] && list.bytes == 16)
        let three = (0..<4).map { _ in list.removeLeastRecent() }
        #expect(three == [true, true, true, false])
        #expect(list.keys == [] && list.bytes == 0 && list.count == 0)
    }

    @Test func aDecoratedBodyIsRenderedOncePerChangeOfItsSource() throws {
        let cache = BodyCache()
        var renders = 0
        func serve(_ source: [UInt8], token: String) throws -> String {
            var key = BodyKey(channel: "demo", file: "index.m3u8")
            key.token = token
            let body = try cache.body(for: key, source: source, gzip: false) {
                renders += 1
                return source + Array("?token=\(token)".utf8)
            }
            return String(buffer: body)
        }
        let first: [UInt8] = Array("a.m3u8".utf8)
        #expect(try serve(first, token: "x") == "a.m3u8?token=x")
        #expect(try serve(first, token: "x") == "a.m3u8?token=x")
        #expect(renders == 1)
        // Another decoration is another body; a changed source is rendered again.
        #expect(try serve(first, token: "y") == "a.m3u8?token=y")
        #expect(try serve(Array("b.m3u8".utf8), token: "x") == "b.m3u8?token=x")
        #expect(renders == 3)
    }

    @Test func aFloodOfDistinctKeysKeepsOnlyWhatFitsTheLimit() throws {
        let cache = BodyCache(limit: 4000)
        let body: [UInt8] = Array(repeating: 65, count: 100)
        for session in 0..<10_000 {
            _ = try cache.body(for: BodyKey(channel: "demo", file: "index.m3u8?s\(session)"), source: body, gzip: false)
        }
        #expect(cache.count == 40)
    }
}
