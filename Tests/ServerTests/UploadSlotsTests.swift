import Testing

@testable import Server

/// Pushes take at most their share of the connections; a slot given back is taken again.
@Suite struct UploadSlotsTests {
    @Test func halfTheConnectionsAndNoMore() {
        let slots = UploadSlots(sharingConnections: 64)
        #expect(slots.limit == 32)
        #expect((0..<33).map { _ in slots.enter() } == Array(repeating: true, count: 32) + [false])
        slots.leave()
        #expect(slots.enter() && !slots.enter())
        #expect(UploadSlots(sharingConnections: 1).limit == 1, "always at least one")
    }
}
