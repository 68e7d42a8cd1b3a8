import Testing
import HLSModel

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

    @Test func aFloodOfDistinctKeysKeepsOnlyWhatFitsTheLimit() throws {
        let cache = BodyCache(limit: 4000)
        let body: [UInt8] = Array(repeating: 65, count: 100)
        for session in 0..<10_000 {
            _ = try cache.body(for: BodyKey(channel: "demo", file: "index.m3u8?s\(session)"), bytes: body, gzip: false)
        }
        #expect(cache.count == 40)
    }
}
