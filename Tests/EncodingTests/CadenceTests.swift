import Testing

@testable import Encoding

/// Which frame slots reach the encoder, with exact slot numbers: 30 fps, segments of 2 s (an IDR
/// every 60 slots), parts of 0.2 s (6 slots), a heartbeat every second.
@Suite struct CadenceTests {
    static func encoded(
        _ mode: Cadence.Mode = .followsScreen, parts: Int? = nil, changes: Set<Int64>, slots: Int64 = 130
    ) -> [Int64] {
        var cadence = Cadence(
            configuration: .init(mode: mode, keyframeInterval: 60, partSlots: parts, heartbeat: 30))
        return (0..<slots).filter { cadence.decide(slot: $0, changed: changes.contains($0)) != nil }
    }

    @Test func aStillScreenIsEncodedAtSegmentStartsAndOnceASecond() {
        // The first picture (slot 0) is the only change: its top-off, then a heartbeat every 30 slots
        // counted from the last frame, and every segment's first slot.
        #expect(Self.encoded(changes: [0]) == [0, 1, 2, 4, 8, 38, 60, 90, 120])
    }

    @Test func aChangeIsEncodedAtOnceAndToppedOff() {
        #expect(Self.encoded(changes: [0, 45], slots: 60) == [0, 1, 2, 4, 8, 38, 45, 46, 47, 49, 53])
        // Typing: each key a change; the top-off follows the last one.
        #expect(Self.encoded(changes: [0, 10, 12, 20], slots: 40) == [0, 1, 2, 4, 8, 10, 11, 12, 13, 14, 16, 20, 21, 22, 24, 28])
    }

    @Test func withPartsEveryPartStartsWithAFrameAndThereIsNoHeartbeat() {
        #expect(
            Self.encoded(parts: 6, changes: [0], slots: 70)
                == [0, 1, 2, 4, 6, 8, 12, 18, 24, 30, 36, 42, 48, 54, 60, 66])
        // A change between part starts does not move the part grid.
        #expect(Self.encoded(parts: 6, changes: [0, 15], slots: 30) == [0, 1, 2, 4, 6, 8, 12, 15, 16, 17, 18, 19, 23, 24])
    }

    @Test func theConstantModeEncodesEverySlot() {
        #expect(Self.encoded(.constant, changes: [0], slots: 70) == Array(0..<70))
    }

    @Test func eachSlotSaysWhyItIsEncoded() {
        var cadence = Cadence(configuration: .init(mode: .followsScreen, keyframeInterval: 60, partSlots: 6, heartbeat: 30))
        let reasons = (0..<13).map { cadence.decide(slot: $0, changed: $0 == 0 || $0 == 9) }
        #expect(
            reasons == [
                .segmentStart, .topOff, .topOff, nil, .topOff, nil, .partStart, nil, .topOff, .newPicture, .topOff,
                .topOff, .partStart,
            ])
    }
}
