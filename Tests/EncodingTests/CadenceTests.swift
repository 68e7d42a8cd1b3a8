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
        // The first picture (slot 0) is the only change: its top-off (8 and 20 slots on), then
        // every segment's first slot and a heartbeat 30 slots after the last frame. The heartbeat
        // due at 50 is left out: it would leave the IDR at 60 a third of a second's budget.
        #expect(Self.encoded(changes: [0]) == [0, 8, 20, 60, 90, 120])
    }

    @Test func nothingButANewPictureIsEncodedJustBeforeASegmentStarts() {
        // A heartbeat at 30; a change at 40, its top-off at 48 left out (12 slots before the IDR),
        // the one at 60 is the IDR. A change at 50 is encoded at once; its top-off at 58 is left
        // out, the one at 70 is not.
        #expect(Self.encoded(changes: [40], slots: 80) == [0, 30, 40, 60])
        #expect(Self.encoded(changes: [40, 50], slots: 80) == [0, 30, 40, 50, 60, 70])
        // Quiet for 15 slots by default (half the heartbeat, at most a quarter of a segment).
        var cadence = Cadence(configuration: .init(mode: .followsScreen, keyframeInterval: 20, heartbeat: 30))
        #expect(cadence.configuration.quietBeforeKey == 5)
        #expect((0..<40).filter { cadence.decide(slot: $0, changed: $0 == 0) != nil } == [0, 8, 20])
    }

    @Test func aChangeIsEncodedAtOnceAndToppedOff() {
        #expect(Self.encoded(changes: [0, 25], slots: 45) == [0, 8, 20, 25, 33])
        // Typing: each key a change; the top-off follows the last one, once the keys pause.
        #expect(Self.encoded(changes: [0, 10, 12, 20], slots: 40) == [0, 8, 10, 12, 20, 28])
        // Five keys a second (every 6 slots): the keys alone, no top-off between them.
        #expect(
            Self.encoded(changes: Set(stride(from: 0, to: 60, by: 6)), slots: 60)
                == Array(stride(from: 0, to: 60, by: 6)))
    }

    @Test func withPartsEveryPartStartsWithAFrameAndThereIsNoHeartbeat() {
        #expect(
            Self.encoded(parts: 6, changes: [0], slots: 70)
                == [0, 6, 8, 12, 18, 20, 24, 30, 36, 42, 48, 54, 60, 66])
        // A change between part starts does not move the part grid.
        #expect(Self.encoded(parts: 6, changes: [0, 15], slots: 30) == [0, 6, 8, 12, 15, 18, 23, 24])
    }

    @Test func theConstantModeEncodesEverySlot() {
        #expect(Self.encoded(.constant, changes: [0], slots: 70) == Array(0..<70))
    }

    @Test func eachSlotSaysWhyItIsEncoded() {
        var cadence = Cadence(
            configuration: .init(mode: .followsScreen, keyframeInterval: 60, partSlots: 6, heartbeat: 30))
        let reasons = (0..<13).map { cadence.decide(slot: $0, changed: $0 == 0 || $0 == 9) }
        #expect(
            reasons == [
                .segmentStart, nil, nil, nil, nil, nil, .partStart, nil, .topOff, .newPicture, nil, nil, .partStart,
            ])
    }

    /// The frames a full queue never drops: those that start a segment, and with Low-Latency HLS
    /// a part (a part whose first frame went would last a frame longer than PART-TARGET).
    @Test func framesThatStartASegmentOrAPartAreKept() {
        let kept = (0..<13).filter { Pacer.startsSegmentOrPart(Int64($0), keyframeInterval: 12, partSlots: 4) }
        #expect(kept == [0, 4, 8, 12])
        let plain = (0..<13).filter { Pacer.startsSegmentOrPart(Int64($0), keyframeInterval: 12, partSlots: nil) }
        #expect(plain == [0, 12])
    }
}
