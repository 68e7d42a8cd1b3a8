import Foundation
import HLS
import HLSModel
import Media
import Synchronization
import Testing

@testable import Push
import Runtime

/// The push sink against a store that keeps what it is sent in memory and refuses on demand: the
/// order in which a destination receives a channel's files, and what a failure does.
@Suite struct PushSinkTests {
    /// A destination in memory: every path tried, in order; what was kept; refusals queued, each
    /// for the next put of its path (of any path when nil).
    final class MemoryStore: FileStore {
        struct State {
            var tried: [String] = []
            var kept: [String: [UInt8]] = [:]
            var refusals: [(path: String?, failure: StoreFailure)] = []
        }
        let state = Mutex(State())

        func put(_ path: String, bytes: [UInt8], timeout: Double) throws(StoreFailure) {
            let refusal: StoreFailure? = state.withLock { state in
                state.tried.append(path)
                if let index = state.refusals.firstIndex(where: { $0.path == nil || $0.path == path }) {
                    return state.refusals.remove(at: index).failure
                }
                state.kept[path] = bytes
                return nil
            }
            if let refusal { throw refusal }
        }

        func delete(_ path: String, timeout: Double) throws(StoreFailure) {
            _ = state.withLock { $0.kept.removeValue(forKey: path) }
        }

        func refuse(next refusals: StoreFailure...) { state.withLock { $0.refusals += refusals.map { (nil, $0) } } }
        func refuse(_ path: String, with failure: StoreFailure) {
            state.withLock { $0.refusals.append((path, failure)) }
        }
        var tried: [String] { state.withLock { $0.tried } }
        var kept: Set<String> { state.withLock { Set($0.kept.keys) } }
        func forgetTries() { state.withLock { $0.tried = [] } }
    }

    /// The events a sink reports, in order.
    final class Events: Sendable {
        let said = Mutex<[BroadcastEvent.Code]>([])
        var codes: [BroadcastEvent.Code] { said.withLock { $0 } }
        var report: EventReporter { { code, _ in self.said.withLock { $0.append(code) } } }
    }

    /// A 2-second fMP4 channel with its init segment and `segments` segments cut just now.
    static func channel(segments: Int) -> Publication {
        var timeline = Timeline(
            configuration: .init(
                channel: "demo",
                rendition: Rendition(
                    width: 1280, height: 720, fps: 30, videoBitrate: 2_500_000, audioBitrate: 128_000,
                    codecs: ["avc1.64001f", "mp4a.40.2"]),
                format: .fmp4, segmentDuration: 2, playlistSize: 6))
        var publication = timeline.setInitSegment([1, 2, 3])!
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        for index in 0..<segments {
            _ = timeline.appendPart([UInt8](repeating: UInt8(index), count: 10), duration: 2, independent: true)
            publication = timeline.closeSegment(programDateTime: now - Int64(2000 * (segments - index)) + 1000)
        }
        return publication
    }

    /// The init segment's and the segments' names, in that order.
    static func files(of publication: Publication) -> [String] {
        [publication.timeline.initSegmentName!.description] + publication.timeline.segments.map(\.name.description)
    }

    /// A backlog in which a newer publication is always waiting: a sink that would wait to try
    /// again returns at once instead, as it does when the stream has moved on.
    static let superseded = SinkBacklog(skipped: 0, waiting: 1, newer: { _ in true })

    static func sink(_ store: MemoryStore, folder: String? = nil, events: Events = Events()) -> PushSink {
        PushSink(
            store: store, destination: "memory", channel: "demo", sendsParts: true, folder: folder,
            report: events.report)
    }

    @Test func mediaGoesBeforeThePlaylistThatNamesItAndTheIndexComesLast() {
        let store = MemoryStore()
        let publication = Self.channel(segments: 2)
        Self.sink(store, folder: "720p").receive(publication, backlog: SinkBacklog(skipped: 0, waiting: 0))
        #expect(store.tried == Self.files(of: publication).map { "720p/" + $0 } + ["720p/media.m3u8", "index.m3u8"])
    }

    @Test func aPlaylistIsSentOnlyWhenItChanged() {
        let store = MemoryStore()
        let sink = Self.sink(store)
        let publication = Self.channel(segments: 1)
        sink.receive(publication, backlog: SinkBacklog(skipped: 0, waiting: 0))
        store.forgetTries()
        sink.receive(publication, backlog: SinkBacklog(skipped: 0, waiting: 0))
        #expect(store.tried == [])
    }

    @Test func aFailureThatMayPassIsTriedAgainAndSaidOnceWithItsRecovery() {
        let store = MemoryStore()
        let events = Events()
        let sink = Self.sink(store, events: events)
        let publication = Self.channel(segments: 1)
        store.refuse(next: .unreachable("connection refused"), .status(503, "busy"))
        // Each pass stops at the failure and gives way to the newer publication, which tries again.
        sink.receive(publication, backlog: Self.superseded)
        sink.receive(publication, backlog: Self.superseded)
        #expect(sink.status.snapshot.state == .failing(StoreFailure.status(503, "busy").description))
        sink.receive(publication, backlog: Self.superseded)
        #expect(events.codes == [.pushFailed, .pushRecovered])
        #expect(store.kept == Set(Self.files(of: publication) + ["media.m3u8", "index.m3u8"]))
        #expect(sink.status.snapshot.state == .upToDate)
    }

    @Test func aRefusalIsSaidOnceAndNotTriedAgainBeforeItsTime() {
        let store = MemoryStore()
        let events = Events()
        let sink = Self.sink(store, events: events)
        let publication = Self.channel(segments: 1)
        store.refuse(next: .status(403, "forbidden"))
        sink.receive(publication, backlog: Self.superseded)
        #expect(store.tried.count == 1)
        // A newer publication within the refusal's ten seconds sends nothing.
        sink.receive(publication, backlog: Self.superseded)
        sink.receive(publication, backlog: Self.superseded)
        #expect(store.tried.count == 1)
        #expect(events.codes == [.pushFailed])
    }

    @Test func anOriginThatLostItsFilesIsSentEverythingAgain() {
        let store = MemoryStore()
        let sink = Self.sink(store)
        sink.receive(Self.channel(segments: 1), backlog: SinkBacklog(skipped: 0, waiting: 0))
        // The origin restarted: the next playlist names files it no longer holds (424).
        let second = Self.channel(segments: 2)
        let files = Self.files(of: second)
        store.forgetTries()
        store.refuse("media.m3u8", with: .status(424, "files named are missing"))
        // The new segment goes, then its playlist is refused; the next pass sends everything again.
        sink.receive(second, backlog: Self.superseded)
        #expect(store.tried == [files[2], "media.m3u8"])
        store.forgetTries()
        sink.receive(second, backlog: Self.superseded)
        #expect(store.tried == files + ["media.m3u8", "index.m3u8"])
    }
}
