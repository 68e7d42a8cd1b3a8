import Testing

@testable import HLSModel

/// A live channel belongs to the run that made it live: another is refused until it ends or is silent.
@Suite struct ChannelOwnerTests {
    let a = ChannelOwner.Run("run-a-0123456789")!
    let b = ChannelOwner.Run("run-b-0123456789")!

    @Test func aRunIdIsEightToSixtyFourPlainCharacters() {
        #expect(ChannelOwner.Run("0123abcd")?.text == "0123abcd")
        #expect(ChannelOwner.Run("short") == nil)
        #expect(ChannelOwner.Run(String(repeating: "a", count: 65)) == nil)
        #expect(ChannelOwner.Run("has space1") == nil)
        #expect(ChannelOwner.Run("dots.are.out") == nil)
    }

    @Test func anotherRunIsRefusedWhileTheOwnerIsLiveAndPushing() throws {
        var owner = ChannelOwner()
        try owner.admit(a, now: 0, live: false, hold: 4, channel: "demo")
        try owner.admit(a, now: 1, live: true, hold: 4, channel: "demo")
        for intruder in [b, nil] {
            #expect(throws: IngestAssembler.Refusal.self) {
                try owner.admit(intruder, now: 4.9, live: true, hold: 4, channel: "demo")
            }
        }
        #expect(owner.run == a && owner.lastPush == 1)
        // Silent for the hold time: the next run takes the channel, and holds it in turn.
        try owner.admit(b, now: 5, live: true, hold: 4, channel: "demo")
        #expect(owner.run == b && owner.lastPush == 5)
        #expect(throws: IngestAssembler.Refusal.self) {
            try owner.admit(a, now: 6, live: true, hold: 4, channel: "demo")
        }
    }

    @Test func anEndedChannelIsTheNextRunsAtOnce() throws {
        var owner = ChannelOwner()
        try owner.admit(a, now: 0, live: true, hold: 4, channel: "demo")
        try owner.admit(b, now: 0.5, live: false, hold: 4, channel: "demo")
        #expect(owner.run == b)
    }

    @Test func unnamedPublishersShareTheOldRuleAndNamedOnesAreApart() throws {
        var owner = ChannelOwner()
        try owner.admit(nil, now: 0, live: true, hold: 4, channel: "demo")
        try owner.admit(nil, now: 1, live: true, hold: 4, channel: "demo")
        do {
            try owner.admit(a, now: 2, live: true, hold: 4, channel: "demo")
            Issue.record("a named run took an unnamed one's live channel")
        } catch {
            #expect(error.status == 409)
            #expect(error.description.contains("channel demo is live from another publisher (another Onair-Run)"))
        }
    }
}
