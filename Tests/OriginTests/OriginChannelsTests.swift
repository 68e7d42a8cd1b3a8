import Synchronization
import HLSModel
import Testing

@testable import HLS
@testable import Origin

/// The origin's channels over time: live from the first playlist, ended when the publisher goes
/// silent, and nothing held for a publisher that never pushed a playlist.
@Suite struct OriginChannelsTests {
    static func playlist(segments: Int) -> [UInt8] {
        var text =
            "#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:1\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-MAP:URI=\"init.mp4\"\n"
        for index in 0..<segments { text += "#EXTINF:1.000,\nseg\(index).m4s\n" }
        return Array(text.utf8)
    }

    @Test func aChannelGoesLiveEndsWhenSilentAndLeavesAfterItsRetention() throws {
        let registry = Listing()
        let changes = ChangeLog()
        let origin = OriginChannels(
            settings: .init(publisherTimeout: 10, retention: 100), listing: registry, changed: changes.add)
        try origin.put(channel: "demo", file: .initSegment(continuing: nil), bytes: [1], now: 0, wallMilliseconds: 0)
        try origin.put(channel: "demo", file: .segment(0, .fmp4), bytes: [2], now: 0, wallMilliseconds: 0)
        #expect(registry.entry(named: "demo") == nil)
        try origin.put(
            channel: "demo", file: .mediaPlaylist, bytes: Self.playlist(segments: 1), now: 1, wallMilliseconds: 0)
        #expect(registry.entry(named: "demo")?.channel.summary().state == .live)
        origin.sweep(now: 10.5)
        #expect(changes.all == [.live("demo")])
        origin.sweep(now: 11)
        #expect(changes.all == [.live("demo"), .ended("demo", silentFor: 10)])
        #expect(registry.entry(named: "demo")?.channel.summary().state == .ended)
        origin.sweep(now: 101)
        #expect(registry.entry(named: "demo") == nil)
        #expect(origin.counts.channels == 0)
    }

    @Test func filesNoPlaylistListedAreLetGoWhenTheirPublisherFallsSilent() throws {
        let origin = OriginChannels(settings: .init(publisherTimeout: 10), listing: Listing())
        try origin.put(
            channel: "x", file: .segment(0, .fmp4), bytes: [UInt8](repeating: 0, count: 1000), now: 0,
            wallMilliseconds: 0)
        #expect(origin.counts == (1, 1000))
        origin.sweep(now: 10)
        #expect(origin.counts == (0, 0))
    }

    @Test func theNumberOfChannelsIsBounded() throws {
        let origin = OriginChannels(settings: .init(maximum: 2), listing: Listing())
        for name: ChannelName in ["a", "b"] {
            try origin.put(channel: name, file: .initSegment(continuing: nil), bytes: [1], now: 0, wallMilliseconds: 0)
            try origin.put(channel: name, file: .segment(0, .fmp4), bytes: [1], now: 0, wallMilliseconds: 0)
            try origin.put(
                channel: name, file: .mediaPlaylist, bytes: Self.playlist(segments: 1), now: 0, wallMilliseconds: 0)
        }
        #expect(throws: IngestAssembler.Refusal.full("this origin hosts 2 channels already")) {
            try origin.put(channel: "c", file: .segment(0, .fmp4), bytes: [1], now: 0, wallMilliseconds: 0)
        }
    }

    /// Files pushed to made-up names take no slot for good: a channel's first playlist that lists
    /// media does. Until then the one pushed to longest ago makes room for a new channel.
    @Test func channelsWithoutAPlaylistMakeRoomForNewOnes() throws {
        let changes = ChangeLog()
        let origin = OriginChannels(settings: .init(maximum: 2), listing: Listing(), changed: changes.add)
        for (name, now) in [("x", 0.0), ("y", 1.0)] as [(ChannelName, Double)] {
            try origin.put(channel: name, file: .segment(0, .fmp4), bytes: [1], now: now, wallMilliseconds: 0)
        }
        try origin.put(channel: "real", file: .initSegment(continuing: nil), bytes: [1], now: 2, wallMilliseconds: 0)
        #expect(changes.all == [.evicted("x")])
        try origin.put(channel: "real", file: .segment(0, .fmp4), bytes: [1], now: 2, wallMilliseconds: 0)
        try origin.put(
            channel: "real", file: .mediaPlaylist, bytes: Self.playlist(segments: 1), now: 2, wallMilliseconds: 0)
        #expect(origin.counts.channels == 2)
    }

    /// After a clean stop, a new stream may bring other settings (ffmpeg in TS with 2 s segments
    /// after onair in fMP4 with 1 s): a store of its own, numbered on from the stream before.
    @Test func anEndedChannelTakesAStreamOfOtherSettings() throws {
        let registry = Listing()
        let origin = OriginChannels(settings: .init(), listing: registry)
        try origin.put(channel: "demo", file: .initSegment(continuing: nil), bytes: [1], now: 0, wallMilliseconds: 0)
        try origin.put(channel: "demo", file: .segment(0, .fmp4), bytes: [2], now: 0, wallMilliseconds: 0)
        let ending = Self.playlist(segments: 1) + Array("#EXT-X-ENDLIST\n".utf8)
        try origin.put(channel: "demo", file: .mediaPlaylist, bytes: ending, now: 0, wallMilliseconds: 0)
        try origin.put(channel: "demo", file: .segment(0, .ts), bytes: [3], now: 1, wallMilliseconds: 1000)
        let ts = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:0\n#EXTINF:2.000,\nseg0.ts\n"
        try origin.put(channel: "demo", file: .mediaPlaylist, bytes: Array(ts.utf8), now: 1, wallMilliseconds: 1000)
        let store = try #require(registry.entry(named: "demo")?.channel as? LiveStore)
        let playlist = try #require(
            MediaPlaylist.parse(String(decoding: store.mediaPlaylist(skip: nil), as: UTF8.self)))
        #expect(playlist.targetDuration == 2 && !playlist.ended)
        #expect(playlist.segments.map(\.uri) == ["seg1.ts"])
        #expect(playlist.segments.map(\.discontinuity) == [true])
        #expect(store.file(named: "seg1.ts")?.bytes == [3])
    }

    /// A live channel belongs to its publisher's run: another run's playlists and deletions are
    /// refused (409) and change nothing, until the run ends.
    @Test func aLiveChannelTakesPushesFromItsOwnRunOnly() throws {
        let registry = Listing()
        let origin = OriginChannels(settings: .init(), listing: registry)
        let own = ChannelOwner.Run("own-run-0123")!
        let other = ChannelOwner.Run("other-run-0123")!
        try origin.put(
            channel: "demo", file: .initSegment(continuing: nil), bytes: [1], run: own, now: 0, wallMilliseconds: 0)
        try origin.put(channel: "demo", file: .segment(0, .fmp4), bytes: [2], run: own, now: 0, wallMilliseconds: 0)
        try origin.put(
            channel: "demo", file: .mediaPlaylist, bytes: Self.playlist(segments: 1), run: own, now: 0,
            wallMilliseconds: 0)
        let ending = Self.playlist(segments: 1) + Array("#EXT-X-ENDLIST\n".utf8)
        for run in [other, nil] {
            #expect(throws: IngestAssembler.Refusal.self) {
                try origin.put(
                    channel: "demo", file: .mediaPlaylist, bytes: ending, run: run, now: 1, wallMilliseconds: 0)
            }
            #expect(throws: IngestAssembler.Refusal.self) {
                try origin.delete(channel: "demo", file: .initSegment(continuing: nil), run: run, now: 1)
            }
        }
        let live = try #require(registry.entry(named: "demo")?.channel as? LiveStore)
        #expect(!String(decoding: live.mediaPlaylist(skip: nil), as: UTF8.self).contains("ENDLIST"))
        // The owner ends it; then another run may start the channel again.
        try origin.put(channel: "demo", file: .mediaPlaylist, bytes: ending, run: own, now: 2, wallMilliseconds: 0)
        try origin.put(channel: "demo", file: .segment(1, .fmp4), bytes: [3], run: other, now: 3, wallMilliseconds: 0)
    }

    /// A full origin lets go of the ended channel pushed to longest ago for a new one, never a live one.
    @Test func endedChannelsMakeRoomForNewOnes() throws {
        let registry = Listing()
        let changes = ChangeLog()
        let origin = OriginChannels(
            settings: .init(publisherTimeout: 10, retention: 600, maximum: 2), listing: registry,
            changed: changes.add)
        for (name, now) in [("a", 0.0), ("b", 1.0)] as [(ChannelName, Double)] {
            try origin.put(
                channel: name, file: .initSegment(continuing: nil), bytes: [1], now: now, wallMilliseconds: 0)
            try origin.put(channel: name, file: .segment(0, .fmp4), bytes: [2], now: now, wallMilliseconds: 0)
            try origin.put(
                channel: name, file: .mediaPlaylist, bytes: Self.playlist(segments: 1), now: now, wallMilliseconds: 0)
        }
        origin.sweep(now: 10.5)
        // "a" ended, "b" is live: "c" takes the place of "a".
        try origin.put(channel: "c", file: .segment(0, .fmp4), bytes: [1], now: 10.5, wallMilliseconds: 0)
        #expect(changes.all.contains(.evicted("a")))
        #expect(registry.entry(named: "a") == nil)
        #expect(registry.entry(named: "b") != nil)
        #expect(origin.counts.channels == 2)
        // "b" live, "c" without a playlist: "c" makes room for "d"; "b" is never let go.
        try origin.put(channel: "d", file: .segment(0, .fmp4), bytes: [1], now: 11, wallMilliseconds: 0)
        #expect(changes.all.contains(.evicted("c")))
        #expect(registry.entry(named: "b") != nil)
    }

    /// What a channel holds is bounded across all its renditions, and what the origin holds across channels.
    @Test func memoryIsBoundedPerChannelAndForTheOrigin() throws {
        let origin = OriginChannels(
            settings: .init(channelMemory: 1000, originMemory: 1500), listing: Listing())
        let piece = [UInt8](repeating: 7, count: 300)
        for rendition in ["r0", "r1", "r2"] {
            try origin.put(
                channel: "a", rendition: rendition, file: .segment(0, .fmp4), bytes: piece, now: 0, wallMilliseconds: 0)
        }
        #expect(
            throws: IngestAssembler.Refusal.full(
                "channel a holds 0.0 MB and may hold 0.0 MB (--channel-memory): push the playlist that lists its files, or fewer renditions"
            )
        ) {
            try origin.put(
                channel: "a", rendition: "r3", file: .segment(0, .fmp4), bytes: piece, now: 0, wallMilliseconds: 0)
        }
        #expect(origin.memory == 900)
        for rendition in ["r0", "r1"] {
            try origin.put(
                channel: "b", rendition: rendition, file: .segment(0, .fmp4), bytes: piece, now: 0, wallMilliseconds: 0)
        }
        #expect(throws: IngestAssembler.Refusal.self) {
            try origin.put(
                channel: "b", rendition: "r2", file: .segment(0, .fmp4), bytes: piece, now: 0, wallMilliseconds: 0)
        }
        #expect(origin.memory == 1500)
        // Deleted files give their room back.
        try origin.delete(channel: "b", rendition: "r1", file: .segment(0, .fmp4), now: 0)
        #expect(origin.memory == 1200)
    }

    static func ladderIndex(_ ids: [String]) -> [UInt8] {
        var text = "#EXTM3U\n#EXT-X-VERSION:6\n"
        for id in ids { text += "#EXT-X-STREAM-INF:BANDWIDTH=1000,RESOLUTION=640x360\n\(id)/media.m3u8\n" }
        return Array(text.utf8)
    }

    /// Pushes one rendition's init segment, first segment and playlist into its folder.
    static func pushRendition(_ id: String, channel: ChannelName = "demo", into origin: OriginChannels, now: Double)
        throws
    {
        for (file, bytes) in [
            (MediaFileName.initSegment(continuing: nil), [UInt8(1)]), (.segment(0, .fmp4), [2]),
            (.mediaPlaylist, playlist(segments: 1)),
        ] {
            try origin.put(channel: channel, rendition: id, file: file, bytes: bytes, now: now, wallMilliseconds: 0)
        }
    }

    @Test func aLadderIsShownOnceItsIndexHasComeAndEveryRenditionListsMedia() throws {
        let registry = Listing()
        let changes = ChangeLog()
        let origin = OriginChannels(settings: .init(publisherTimeout: 10), listing: registry, changed: changes.add)
        try Self.pushRendition("720p", into: origin, now: 0)
        #expect(registry.entry(named: "demo") == nil, "no index yet")
        try origin.put(
            channel: "demo", file: .multivariantPlaylist, bytes: Self.ladderIndex(["720p", "360p"]), now: 1,
            wallMilliseconds: 0)
        #expect(registry.entry(named: "demo") == nil, "360p lists nothing yet")
        try Self.pushRendition("360p", into: origin, now: 2)
        let ladder = try #require(registry.entry(named: "demo")?.channel as? LiveLadder)
        #expect(ladder.stores.map(\.timeline.rendition.id) == ["720p", "360p"])
        #expect(ladder.summary().renditions.map(\.id) == ["720p", "360p"])
        #expect(changes.all == [.live("demo")])
        origin.sweep(now: 12)
        #expect(changes.all == [.live("demo"), .ended("demo", silentFor: 10)])
        #expect(ladder.stores.allSatisfy { $0.timeline.ended })
    }

    @Test func aLaddersSoundInARenditionOfItsOwnIsTakenAsOne() throws {
        let registry = Listing()
        let origin = OriginChannels(settings: .init(), listing: registry)
        for id in ["720p", "audio"] { try Self.pushRendition(id, into: origin, now: 0) }
        let index = """
            #EXTM3U
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="Sound",CHANNELS="2",URI="audio/media.m3u8"
            #EXT-X-STREAM-INF:BANDWIDTH=1000,CODECS="avc1.64001f,mp4a.40.2",RESOLUTION=1280x720,AUDIO="a"
            720p/media.m3u8

            """
        try origin.put(
            channel: "demo", file: .multivariantPlaylist, bytes: Array(index.utf8), now: 0, wallMilliseconds: 0)
        let ladder = try #require(registry.entry(named: "demo")?.channel as? LiveLadder)
        #expect(ladder.stores.map(\.timeline.rendition.id) == ["720p", "audio"])
        #expect(ladder.stores.map(\.timeline.rendition.codecs) == [["avc1.64001f"], ["mp4a.40.2"]])
        #expect(ladder.stores[1].timeline.rendition.audioChannels == 2)
        #expect(ladder.summary().renditions.map(\.id) == ["720p"], "the API lists video renditions")
        let served = ladder.multivariantPlaylist(session: nil).render()
        #expect(
            served.contains(
                "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\",NAME=\"Sound\",DEFAULT=YES,AUTOSELECT=YES,CHANNELS=\"2\",URI=\"audio/media.m3u8\""
            ))
        #expect(
            served.contains("CODECS=\"avc1.64001f,mp4a.40.2\",RESOLUTION=1280x720,AUDIO=\"audio\"\n720p/media.m3u8"))
    }

    @Test func aLiveChannelCannotChangeShapeButAnEndedOneCan() throws {
        let registry = Listing()
        let origin = OriginChannels(settings: .init(publisherTimeout: 10), listing: registry)
        try Self.pushRendition("720p", into: origin, now: 0)
        try origin.put(
            channel: "demo", file: .multivariantPlaylist, bytes: Self.ladderIndex(["720p"]), now: 0,
            wallMilliseconds: 0)
        #expect(registry.entry(named: "demo")?.channel is LiveLadder)
        let conflict = IngestAssembler.Refusal.conflict(
            "channel demo is live with other renditions; stop its publisher first")
        #expect(throws: conflict) {
            try origin.put(
                channel: "demo", file: .mediaPlaylist, bytes: Self.playlist(segments: 1), now: 1, wallMilliseconds: 0)
        }
        #expect(throws: conflict) {
            try origin.put(
                channel: "demo", file: .multivariantPlaylist, bytes: Self.ladderIndex(["360p"]), now: 1,
                wallMilliseconds: 0)
        }
        origin.sweep(now: 11)
        // Its publisher came back as one rendition: the ended ladder makes way.
        for (file, bytes) in [
            (MediaFileName.initSegment(continuing: nil), [UInt8(1)]), (.segment(0, .fmp4), [2]),
            (.mediaPlaylist, Self.playlist(segments: 1)),
        ] {
            try origin.put(channel: "demo", file: file, bytes: bytes, now: 12, wallMilliseconds: 0)
        }
        let store = try #require(registry.entry(named: "demo")?.channel as? LiveStore)
        #expect(store.summary().state == .live)
    }

    @Test func aLaddersRenditionsAreNamedAndBounded() throws {
        let origin = OriginChannels(settings: .init(), listing: Listing())
        func index(_ text: String) throws {
            try origin.put(
                channel: "demo", file: .multivariantPlaylist, bytes: Array(text.utf8), now: 0, wallMilliseconds: 0)
        }
        #expect(
            throws: IngestAssembler.Refusal.badRequest(
                "index.m3u8 lists a/b/media.m3u8: a rendition is media.m3u8 or <rendition>/media.m3u8, one folder deep")
        ) { try index("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\na/b/media.m3u8\n") }
        #expect(
            throws: IngestAssembler.Refusal.badRequest(
                "index.m3u8 lists ../media.m3u8: a rendition is media.m3u8 or <rendition>/media.m3u8, one folder deep")
        ) { try index("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n../media.m3u8\n") }
        #expect(throws: IngestAssembler.Refusal.badRequest("index.m3u8 lists a rendition twice")) {
            try origin.put(
                channel: "demo", file: .multivariantPlaylist, bytes: Self.ladderIndex(["a", "a"]), now: 0,
                wallMilliseconds: 0)
        }
        let nine = (1...9).map { "r\($0)" }
        #expect(throws: IngestAssembler.Refusal.full("index.m3u8 lists 9 renditions; an origin takes 8")) {
            try origin.put(
                channel: "demo", file: .multivariantPlaylist, bytes: Self.ladderIndex(nine), now: 0,
                wallMilliseconds: 0)
        }
        for id in nine.prefix(8) {
            try origin.put(
                channel: "demo", rendition: id, file: .segment(0, .fmp4), bytes: [1], now: 0, wallMilliseconds: 0)
        }
        #expect(throws: IngestAssembler.Refusal.full("channel demo has 8 renditions already")) {
            try origin.put(
                channel: "demo", rendition: "r9", file: .segment(0, .fmp4), bytes: [1], now: 0, wallMilliseconds: 0)
        }
    }

    @Test func aHostedChannelsSinksAreMadeOnceAndOneRenditionWritesTheLaddersIndex() throws {
        let outputs = OutputsLog()
        let origin = OriginChannels(
            settings: .init(publisherTimeout: 10), listing: Listing(), outputs: outputs)
        // One rendition: its sinks with its first publication, then no more; recorded run by run.
        try origin.put(channel: "one", file: .initSegment(continuing: nil), bytes: [1], now: 0, wallMilliseconds: 0)
        try origin.put(channel: "one", file: .segment(0, .fmp4), bytes: [2], now: 0, wallMilliseconds: 0)
        try origin.put(
            channel: "one", file: .mediaPlaylist, bytes: Self.playlist(segments: 1), now: 0, wallMilliseconds: 0)
        try origin.put(channel: "one", file: .segment(1, .fmp4), bytes: [3], now: 1, wallMilliseconds: 0)
        try origin.put(
            channel: "one", file: .mediaPlaylist, bytes: Self.playlist(segments: 2), now: 1, wallMilliseconds: 0)
        #expect(outputs.lasting == ["one nil index"])
        #expect(outputs.runs == ["one [nil]"])
        // A ladder whose renditions' media come before its index: their sinks wait for it, and
        // exactly the first rendition it lists writes the index onward.
        try Self.pushRendition("360p", channel: "ladder", into: origin, now: 2)
        try Self.pushRendition("180p", channel: "ladder", into: origin, now: 2)
        #expect(outputs.lasting == ["one nil index"])
        // The index made them, in its order, with what their renditions had: the rewind window
        // and the recording begin with the ladder, not at each rendition's next playlist.
        try origin.put(
            channel: "ladder", file: .multivariantPlaylist, bytes: Self.ladderIndex(["360p", "180p"]), now: 3,
            wallMilliseconds: 0)
        #expect(outputs.lasting == ["one nil index", "ladder 360p index", "ladder 180p"])
        #expect(outputs.runs == ["one [nil]", "ladder [360p, 180p]"])
        for id in ["180p", "360p"] {
            try origin.put(
                channel: "ladder", rendition: id, file: .segment(1, .fmp4), bytes: [3], now: 4, wallMilliseconds: 0)
            try origin.put(
                channel: "ladder", rendition: id, file: .mediaPlaylist, bytes: Self.playlist(segments: 2), now: 4,
                wallMilliseconds: 0)
        }
        #expect(outputs.lasting == ["one nil index", "ladder 360p index", "ladder 180p"])
        #expect(outputs.runs == ["one [nil]", "ladder [360p, 180p]"])
    }
}

/// What an origin asked of its ``ChannelOutputs``: the lasting sinks of each rendition (and
/// whether they write the index), and each run's recordings. It makes no sink.
final class OutputsLog: ChannelOutputs {
    private let calls = Mutex((lasting: [String](), runs: [String]()))
    var lasting: [String] { calls.withLock { $0.lasting } }
    var runs: [String] { calls.withLock { $0.runs } }

    func rewindWindow(of channel: ChannelName) -> DVRFolder? { nil }

    func lastingSinks(of channel: ChannelName, rendition: String?, writesIndex: Bool) -> [SinkRunner] {
        calls.withLock { $0.lasting.append("\(channel) \(rendition ?? "nil")\(writesIndex ? " index" : "")") }
        return []
    }

    func recordings(of channel: ChannelName, renditions: [String?], format: ContainerFormat, startedAt: Int64)
        -> (any ChannelRecordings)?
    {
        calls.withLock { $0.runs.append("\(channel) [\(renditions.map { $0 ?? "nil" }.joined(separator: ", "))]") }
        return NoRecorders()
    }

    struct NoRecorders: ChannelRecordings {
        func sinks(rendition: String?, writesIndex: Bool, after: Int?) -> [SinkRunner] { [] }
    }
}

final class ChangeLog: Sendable {
    private let changes = Mutex<[OriginChannels.Change]>([])
    var all: [OriginChannels.Change] { changes.withLock { $0 } }
    func add(_ change: OriginChannels.Change) { changes.withLock { $0.append(change) } }
}

/// What the origin shows viewers, as the server's channel registry would hold it.
final class Listing: ChannelListing {
    struct Entry {
        var channel: any LiveChannel
        var dvr: DVRFolder?
    }

    private let entries = Mutex<[ChannelName: Entry]>([:])

    func show(_ channel: any LiveChannel, dvr: DVRFolder?) {
        entries.withLock { $0[channel.name] = Entry(channel: channel, dvr: dvr) }
    }

    func hide(named name: ChannelName) { _ = entries.withLock { $0.removeValue(forKey: name) } }

    func entry(named name: ChannelName) -> Entry? { entries.withLock { $0[name] } }
}
