import Testing
import HLSModel

@testable import Server

@Suite struct ViewerRegistryTests {
    @Test func countsDistinctPlayersWithinTheWindow() {
        let registry = ViewerRegistry()
        registry.playlistRequested(channel: "a", by: "s:one", at: 10, window: 6)
        registry.playlistRequested(channel: "a", by: "s:two", at: 12, window: 6)
        registry.playlistRequested(channel: "a", by: "s:one", at: 14, window: 6)
        registry.playlistRequested(channel: "b", by: "s:three", at: 14, window: 6)
        #expect(registry.count(channel: "a", at: 14, window: 6) == 2)
        #expect(registry.count(channel: "a", at: 17.5, window: 6) == 2)
        #expect(registry.count(channel: "a", at: 18, window: 6) == 1)
        #expect(registry.count(channel: "a", at: 20, window: 6) == 0)
        #expect(registry.count(channel: "b", at: 14, window: 6) == 1)
        #expect(registry.count(channel: "none", at: 14, window: 6) == 0)
    }

    @Test func idleTimeFollowsAnyMediaRequest() {
        let registry = ViewerRegistry()
        #expect(registry.idleTime(channel: "a", at: 5) == nil)
        registry.playlistRequested(channel: "a", by: "s:one", at: 10, window: 6)
        registry.mediaRequested(channel: "a", at: 11.5)
        #expect(registry.idleTime(channel: "a", at: 12) == 0.5)
    }

    @Test func keysPreferAPlausibleSession() {
        #expect(ViewerRegistry.viewerKey(session: "Ab-9_z", address: "10.0.0.1", userAgent: "VLC") == "s:Ab-9_z")
        #expect(ViewerRegistry.viewerKey(session: nil, address: "10.0.0.1", userAgent: "VLC") == "a:10.0.0.1 VLC")
        #expect(ViewerRegistry.viewerKey(session: "a b", address: "10.0.0.1", userAgent: nil) == "a:10.0.0.1 ")
        #expect(ViewerRegistry.viewerKey(session: "", address: nil, userAgent: nil) == "a:? ")
        #expect(!ViewerRegistry.isSession(String(repeating: "x", count: 65)))
        #expect(ViewerRegistry.isSession(String(repeating: "x", count: 64)))
        #expect(!ViewerRegistry.isSession("é"))
        #expect(!ViewerRegistry.isSession("a\n"))
    }

    @Test func madeUpSessionsCannotGrowMemoryBeyondTheCapacity() {
        let registry = ViewerRegistry()
        for index in 0..<ViewerRegistry.capacity + 5 {
            registry.playlistRequested(channel: "a", by: "s:\(index)", at: 1, window: 6)
        }
        #expect(registry.count(channel: "a", at: 1, window: 6) == ViewerRegistry.capacity)
        // Once the old ones are stale they make room for new players.
        registry.playlistRequested(channel: "a", by: "s:late", at: 20, window: 6)
        #expect(registry.count(channel: "a", at: 20, window: 6) == 1)
    }

    /// A registry of channel `a` with as many players as it holds, all seen at `time`.
    static func full(at time: Double) -> ViewerRegistry {
        let registry = ViewerRegistry()
        for index in 0..<ViewerRegistry.capacity {
            registry.playlistRequested(channel: "a", by: "s:\(index)", at: time, window: 6)
        }
        return registry
    }

    @Test func aFullTableIsSweptAtMostOnceAWindow() {
        let registry = Self.full(at: 1)
        // Full: this newcomer's sweep finds no one gone, so it is not counted ...
        registry.playlistRequested(channel: "a", by: "s:new1", at: 3, window: 6)
        #expect(registry.count(channel: "a", at: 3, window: 6) == ViewerRegistry.capacity)
        // ... and no sweep is made again for a window, though everyone has gone by then.
        registry.playlistRequested(channel: "a", by: "s:new2", at: 7.5, window: 6)
        #expect(registry.count(channel: "a", at: 7.5, window: 6) == 0)
        // A window after the last sweep, the gone are swept and the newcomer counted.
        registry.playlistRequested(channel: "a", by: "s:new3", at: 9.5, window: 6)
        #expect(registry.count(channel: "a", at: 9.5, window: 6) == 1)
    }

    @Test func aKnownPlayerIsAlwaysCountedAgain() {
        let registry = Self.full(at: 1)
        registry.playlistRequested(channel: "a", by: "s:0", at: 5, window: 6)
        #expect(registry.count(channel: "a", at: 7.5, window: 6) == 1, "only s:0 reloaded within the window")
    }
}
