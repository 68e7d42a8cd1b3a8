import Logging
import Media
import Testing
import Encoding
import HLSModel

@testable import Publisher
import Runtime

@Suite struct EventHubTests {
    let hub = EventHub(channel: "demo", logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))

    @Test func aStreamGetsTheEventsSoFarThenNewOnesUntilTheEnd() async {
        hub.report(.started, "publishing")
        hub.report(.paused, "paused")
        let stream = hub.stream()
        hub.report(.resumed, "resumed")
        hub.finish()
        hub.report(.stopped, "stopped after the end")
        var received: [BroadcastEvent] = []
        for await event in stream { received.append(event) }
        #expect(received.map(\.code) == [.started, .paused, .resumed])
        #expect(received.map(\.sequence) == [1, 2, 3])
        #expect(received.map(\.message) == ["publishing", "paused", "resumed"])
    }

    @Test func aStreamOpenedAfterTheEndGetsTheHistoryAndEnds() async {
        hub.report(.started, "publishing")
        hub.finish()
        var received: [BroadcastEvent.Code] = []
        for await event in hub.stream() { received.append(event.code) }
        #expect(received == [.started])
    }

    @Test func theLastHundredAreKept() {
        for index in 0..<150 { hub.report(.encoderOverloaded, "\(index)") }
        #expect(hub.events.count == 100)
        #expect(hub.events.first?.sequence == 51)
        #expect(hub.events.last?.sequence == 150)
    }
}
