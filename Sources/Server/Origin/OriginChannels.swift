import FoundationEssentials
public import HLS
public import HLSModel
import Runtime
import Synchronization

/// The channels an origin (`onair serve`) builds from what its publishers push. A channel pushed as
/// one rendition (`/ingest/<channel>/<file>`) has one ``IngestAssembler`` and one ``LiveStore``; a
/// ladder (`/ingest/<channel>/<rendition>/<file>`, under a multivariant playlist that lists each
/// rendition's folder) has one of each per rendition, shown to viewers as a ``LiveLadder`` with
/// its rendition reports. The channel enters the registry once viewers can play it: from the first
/// playlist that lists media, or for a ladder, once its multivariant playlist has come and every
/// rendition it names lists media.
///
/// A channel whose publisher goes silent is ended for its viewers (EXT-X-ENDLIST) after
/// `publisherTimeout`, and the files it pushed that no playlist listed are let go (a channel
/// that never had a playlist goes altogether); an ended one leaves the registry after `retention`.
/// At most `maximum` channels at once, each with at most ``maximumRenditions``, each within the
/// assembler's limits: memory stays bounded whatever is pushed.
///
/// Beyond its live store, each rendition goes where the origin's ``ChannelOutputs`` say, as a
/// published channel does: pushed onward and kept in a rewind window for as long as the channel is
/// hosted, recorded run by run (a publisher that comes back starts a new recording).
public final class OriginChannels: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Segments listed in each channel's live playlist.
        public var playlistSize: Int
        /// Seconds without a push after which a live channel is ended.
        public var publisherTimeout: Double
        /// Seconds an ended channel stays listed.
        public var retention: Double
        public var maximum: Int
        public var limits: IngestAssembler.Limits
        /// Bytes one channel may hold, every rendition's pushed files and live windows together.
        public var channelMemory: Int
        /// Bytes every channel may hold together.
        public var originMemory: Int

        public init(
            playlistSize: Int = 6, publisherTimeout: Double = 10, retention: Double = 600, maximum: Int = 100,
            limits: IngestAssembler.Limits = .init(), channelMemory: Int = 256_000_000,
            originMemory: Int = 2_000_000_000
        ) {
            self.channelMemory = channelMemory
            self.originMemory = originMemory
            self.playlistSize = playlistSize
            self.publisherTimeout = publisherTimeout
            self.retention = retention
            self.maximum = maximum
            self.limits = limits
        }
    }

    /// What happened to a channel, for the log.
    public enum Change: Sendable, Equatable {
        case live(ChannelName)
        case ended(ChannelName, silentFor: Double)
        case removed(ChannelName)
        /// An ended channel let go before its retention, to make room for a new one.
        case evicted(ChannelName)
        /// A second publisher refused while the channel's own pushes on.
        case refused(ChannelName, reason: String)
    }

    /// The renditions one channel may be pushed in.
    public static let maximumRenditions = 8

    /// One rendition as pushed: its assembler, and its store from its first playlist that lists media.
    private struct Feed {
        var assembler: IngestAssembler
        var store: LiveStore?
        /// Its push destinations and rewind window, each on a thread of its own: made with its first
        /// publication, or a ladder's once the multivariant playlist says which rendition writes it.
        var sinks: [SinkRunner]?
        /// With `--record`: the recordings of this rendition's current run.
        var recorders: [SinkRunner] = []
        /// The timeline's last segment when the run before ended: the next run's recording starts after it.
        var recordedUntil: Int?

        var isLive: Bool { assembler.timeline?.ended == false }
    }

    private struct Channel {
        /// By rendition folder: nil for a channel pushed as one rendition (its files are the channel's own).
        var feeds: [String?: Feed] = [:]
        /// The ladder's renditions, largest first, as its newest multivariant playlist lists them.
        var ladder: [String] = []
        var board: LadderBoard?
        /// The renditions the registry shows (nil, the only one, or the ladder's), once it shows the channel.
        var listed: [String?] = []
        /// Monotonic seconds of the last push.
        var lastPush: Double
        /// With `--record`: the current run's recordings, nil between runs.
        var recordings: (any ChannelRecordings)?
        /// What it holds, as last counted: pushed files waiting for a playlist and its live windows.
        var bytes = 0
        /// Let go by the sweep or to make room: a push that reached it looks the channel up again.
        var removed = false
        /// The sinks of renditions let go by the push being taken, to finish once it is.
        var retiring: [SinkRunner] = []
        /// The publisher's run it belongs to (one publisher at a time).
        var owner = ChannelOwner()

        var isLive: Bool { !listed.isEmpty && listed.contains { feeds[$0]?.isLive == true } }
        var heldBytes: Int { feeds.values.reduce(0) { $0 + $1.assembler.heldBytes } }
        /// Once shown, no rendition live: a channel that may make room for another.
        var hasEnded: Bool {
            feeds.values.contains { $0.assembler.timeline != nil } && !feeds.values.contains(where: \.isLive)
        }
        /// No playlist that lists media yet: pushed files only.
        var neverListed: Bool { feeds.values.allSatisfy { $0.assembler.timeline == nil } }
        /// Some rendition's run goes on: it has not ended, nor been ended for its silence.
        var hasLiveRun: Bool { feeds.values.contains(where: \.isLive) }
        /// How long its publisher's run holds it after its last push: two target durations, at least 4 s.
        var hold: Double {
            let target = feeds.values.compactMap { $0.assembler.timeline?.configuration.targetDuration }.max() ?? 0
            return Double(IngestAssembler.holdMilliseconds(targetDuration: target)) / 1000
        }
        /// Takes a push of `run`, or refuses it while the channel is another run's.
        mutating func admit(_ run: ChannelOwner.Run?, now: Double, name: ChannelName) throws(IngestAssembler.Refusal) {
            try owner.admit(run, now: now, live: hasLiveRun, hold: hold, channel: name)
        }
        /// Counts what it holds.
        func counted() -> Int {
            feeds.values.reduce(0) { $0 + $1.assembler.heldBytes + ($1.assembler.timeline?.heldBytes ?? 0) }
        }
    }

    /// One channel behind a lock of its own: a push to one channel never waits on another's.
    private final class Slot: Sendable {
        let state: Mutex<Channel>
        init(_ channel: Channel) { state = Mutex(channel) }
    }

    public let settings: Settings
    let registry: ChannelRegistry
    private let slots = Mutex<[ChannelName: Slot]>([:])
    /// Bytes every channel holds together, as each last counted, and the bodies on their way in.
    private let heldTotal = Atomic<Int>(0)
    /// Bytes of bodies on their way in, by channel.
    private let inFlight = Mutex<[ChannelName: Int]>([:])
    private let changed: @Sendable (Change) -> Void
    /// Where each channel goes besides its live store.
    private let outputs: (any ChannelOutputs)?

    public init(
        settings: Settings, registry: ChannelRegistry, outputs: (any ChannelOutputs)? = nil,
        changed: @escaping @Sendable (Change) -> Void = { _ in }
    ) {
        self.settings = settings
        self.registry = registry
        self.outputs = outputs
        self.changed = changed
    }

    /// Takes a pushed file: `rendition` is its folder for a ladder's rendition, nil at the channel's
    /// top; `run`, the publisher's run as it names it (``ChannelOwner``). Publications go to the
    /// channel's stores before this returns, in order.
    func put(
        channel name: ChannelName, rendition: String? = nil, file: MediaFileName, bytes: [UInt8],
        run: ChannelOwner.Run? = nil, now: Double, wallMilliseconds: Int64
    ) throws(IngestAssembler.Refusal) {
        var finished: [SinkRunner] = []
        defer { Self.finish(finished) }
        var outcome: (live: Bool, listing: (any LiveChannel)?)?
        while outcome == nil {
            let slot = try self.slot(named: name, now: now)
            do throws(IngestAssembler.Refusal) {
                outcome = try slot.state.withLock {
                    state throws(IngestAssembler.Refusal) -> (live: Bool, listing: (any LiveChannel)?)? in
                    // Let go meanwhile: looked up again (nil), made anew.
                    guard !state.removed else { return nil }
                    // Worked on a copy: a refused push leaves the channel as it was.
                    var channel = state
                    let wasLive = channel.isLive
                    try channel.admit(run, now: now, name: name)
                    try take(
                        file, bytes: bytes, into: &channel, name: name, rendition: rendition,
                        wall: wallMilliseconds, finished: &finished)
                    channel.lastPush = now
                    let listing = Self.list(&channel)
                    recount(&channel)
                    // The sinks of renditions let go, finished once the push is taken.
                    finished += channel.retiring
                    channel.retiring = []
                    state = channel
                    return (!wasLive && channel.isLive, listing)
                }
            } catch {
                if case .conflict(let reason) = error { changed(.refused(name, reason: reason)) }
                throw error
            }
        }
        if let listing = outcome?.listing { registry.add(listing, dvr: outputs?.rewindWindow(of: name)) }
        if outcome?.live == true { changed(.live(name)) }
    }

    /// The channel's slot, made when it is new: an ended channel makes room when the origin is full.
    private func slot(named name: ChannelName, now: Double) throws(IngestAssembler.Refusal) -> Slot {
        var evicted: ChannelName?
        let slot = try slots.withLock { slots throws(IngestAssembler.Refusal) -> Slot in
            if let slot = slots[name] { return slot }
            if slots.count >= settings.maximum {
                // A channel takes a slot for good with its first playlist that lists media: until
                // then (files pushed to a made-up name) it makes room for a new one, and so does an
                // ended channel before its retention is over; the one pushed to longest ago goes.
                let idle = slots.compactMap { key, slot in
                    slot.state.withLock { $0.hasEnded || $0.neverListed ? (key, $0.lastPush) : nil }
                }
                guard let (oldest, pushed) = idle.min(by: { $0.1 < $1.1 }) else {
                    throw .full("this origin hosts \(settings.maximum) channels already")
                }
                // Unless its publisher came back meanwhile.
                remove(oldest, from: &slots, unlessPushedAfter: pushed)
                guard slots[oldest] == nil else {
                    throw .full("this origin hosts \(settings.maximum) channels already")
                }
                evicted = oldest
            }
            let slot = Slot(Channel(lastPush: now))
            slots[name] = slot
            return slot
        }
        if let evicted {
            registry.remove(named: evicted)
            changed(.evicted(evicted))
        }
        return slot
    }

    /// Takes a channel out, unless it was pushed to after `unlessPushedAfter` (a push that came
    /// between the sweep's look and now keeps it): pushes that reach it later look it up again.
    private func remove(
        _ name: ChannelName, from slots: inout [ChannelName: Slot], unlessPushedAfter seen: Double? = nil
    ) {
        guard let slot = slots[name] else { return }
        let removed = slot.state.withLock { channel in
            if let seen, channel.lastPush > seen { return false }
            channel.removed = true
            heldTotal.subtract(channel.bytes, ordering: .relaxed)
            channel.bytes = 0
            let window = outputs?.rewindWindow(of: name)
            Self.finish(
                channel.feeds.values.flatMap { ($0.sinks ?? []) + $0.recorders }, afterwards: window.map { $0.remove })
            return true
        }
        if removed { slots[name] = nil }
    }

    /// Counts what the channel holds, and the origin with it.
    private func recount(_ channel: inout Channel) {
        let bytes = channel.counted()
        heldTotal.add(bytes - channel.bytes, ordering: .relaxed)
        channel.bytes = bytes
    }

    /// One pushed file into the channel: its multivariant playlist, or a rendition's file.
    private func take(
        _ file: MediaFileName, bytes: [UInt8], into channel: inout Channel, name: ChannelName, rendition: String?,
        wall: Int64, finished: inout [SinkRunner]
    ) throws(IngestAssembler.Refusal) {
        if rendition == nil, file == .multivariantPlaylist {
            try describe(&channel, name: name, playlist: bytes)
            return
        }
        if !file.isPlaylist { try checkRoom(for: bytes.count, in: channel, name: name) }
        if channel.feeds[rendition] == nil {
            // A ladder's rendition where one rendition was pushed, or the other way round: a
            // publisher that came back in another shape. The old shape goes once it is over.
            try make(
                room: &channel, name: name,
                keeping: rendition == nil ? [] : channel.feeds.keys.filter { $0 != nil })
            if rendition == nil {
                channel.ladder = []
                channel.board = nil
            }
            guard channel.feeds.count < Self.maximumRenditions else {
                throw .full("channel \(name) has \(Self.maximumRenditions) renditions already")
            }
            channel.feeds[rendition] = Feed(
                assembler: IngestAssembler(
                    channel: name, rendition: rendition ?? Rendition.singleID, playlistSize: settings.playlistSize,
                    limits: settings.limits))
        }
        var feed = channel.feeds[rendition]!
        let publications = try feed.assembler.put(file, bytes: bytes, now: wall)
        if let store = feed.store, let timeline = feed.assembler.timeline,
            !store.serves(settingsOf: timeline.configuration)
        {
            // A stream of other settings after the last ended: a store and sinks of its own, shown anew.
            feed.store = nil
            channel.retiring += feed.sinks ?? []
            feed.sinks = nil
            channel.listed = []
        }
        if feed.store == nil, let timeline = feed.assembler.timeline {
            feed.store = LiveStore(timeline: timeline, startedAt: wall)
        }
        for var publication in publications {
            if rendition != nil { publication.ladder = channel.board?.post(publication.timeline) }
            send(publication, to: &feed, key: rendition, of: &channel, name: name, now: wall, finished: &finished)
        }
        channel.feeds[rendition] = feed
    }

    /// Counts `count` more bytes of a body on its way in (declared by its `Content-Length`, or as
    /// they arrive) against the channel's budget and the origin's, so uploads in flight are within
    /// them too; refused (HTTP 507) when either has no room. ``arrived(_:into:)`` gives them back
    /// once the body is whole, before it is put.
    func arriving(_ count: Int, into name: ChannelName) throws(IngestAssembler.Refusal) {
        let held = slots.withLock { $0[name] }?.state.withLock(\.bytes) ?? 0
        try inFlight.withLock { inFlight throws(IngestAssembler.Refusal) in
            let channel = inFlight[name, default: 0]
            try checkRoom(for: count, channelHolds: held + channel, name: name)
            inFlight[name] = channel + count
            heldTotal.add(count, ordering: .relaxed)
        }
    }

    /// Gives back what ``arriving(_:into:)`` counted of a body.
    func arrived(_ count: Int, into name: ChannelName) {
        inFlight.withLock { inFlight in
            let left = inFlight[name, default: 0] - count
            inFlight[name] = left > 0 ? left : nil
        }
        heldTotal.subtract(count, ordering: .relaxed)
    }

    /// Refuses a media file the channel's budget, or the origin's, has no room for (HTTP 507).
    private func checkRoom(for incoming: Int, in channel: Channel, name: ChannelName) throws(IngestAssembler.Refusal) {
        let arriving = inFlight.withLock { $0[name, default: 0] }
        try checkRoom(for: incoming, channelHolds: channel.bytes + arriving, name: name)
    }

    private func checkRoom(for incoming: Int, channelHolds: Int, name: ChannelName) throws(IngestAssembler.Refusal) {
        func megabytes(_ bytes: Int) -> String { String(fixed: Double(bytes) / 1e6, decimals: 1) + " MB" }
        guard channelHolds + incoming <= settings.channelMemory else {
            throw .full(
                "channel \(name) holds \(megabytes(channelHolds)) and may hold \(megabytes(settings.channelMemory)) "
                    + "(--channel-memory): push the playlist that lists its files, or fewer renditions")
        }
        let total = heldTotal.load(ordering: .relaxed)
        guard total + incoming <= settings.originMemory else {
            throw .full(
                "this origin holds \(megabytes(total)) of its \(megabytes(settings.originMemory)) (--origin-memory)")
        }
    }

    /// Forgets a file the publisher deleted; refused while the channel is another run's.
    func delete(
        channel name: ChannelName, rendition: String? = nil, file: MediaFileName, run: ChannelOwner.Run? = nil,
        now: Double
    ) throws(IngestAssembler.Refusal) {
        guard let slot = slots.withLock({ $0[name] }) else { return }
        try slot.state.withLock { channel throws(IngestAssembler.Refusal) in
            guard !channel.removed else { return }
            try channel.admit(run, now: now, name: name)
            channel.feeds[rendition]?.assembler.delete(file)
            channel.lastPush = now
            recount(&channel)
        }
    }

    /// Reads a pushed multivariant playlist: one rendition at the channel's top, or a ladder whose
    /// renditions are folders (`720p/media.m3u8`), largest first.
    private func describe(_ channel: inout Channel, name: ChannelName, playlist bytes: [UInt8])
        throws(IngestAssembler.Refusal)
    {
        guard let playlist = MultivariantPlaylist.parse(String(decoding: bytes, as: UTF8.self)) else {
            throw .badRequest("index.m3u8 is not a multivariant playlist with an EXT-X-STREAM-INF")
        }
        try IngestRules.check(playlist)
        let top = MediaFileName.mediaPlaylist.description
        if playlist.variants.count == 1, playlist.variants[0].uri == top {
            try make(room: &channel, name: name, keeping: [nil])
            channel.ladder = []
            channel.board = nil
            var feed =
                channel.feeds[nil]
                ?? Feed(
                    assembler: IngestAssembler(
                        channel: name, playlistSize: settings.playlistSize, limits: settings.limits))
            feed.assembler.describe(playlist.variants[0])
            Self.show(feed, ladder: nil)
            channel.feeds[nil] = feed
            return
        }
        func folder(of uri: String) throws(IngestAssembler.Refusal) -> String {
            let parts = uri.split(separator: "/", omittingEmptySubsequences: false)
            guard parts.count == 2, parts[1] == top, LiveRequest.isRenditionName(String(parts[0])) else {
                throw .badRequest(
                    "index.m3u8 lists \(uri): a rendition is \(top) or <rendition>/\(top), one folder deep")
            }
            return String(parts[0])
        }
        var ids: [String] = []
        for variant in playlist.variants { ids.append(try folder(of: variant.uri)) }
        // The sound in a rendition of its own, shared by the video renditions (EXT-X-MEDIA).
        let groups = Set(playlist.variants.compactMap(\.audioGroup))
        let sound = playlist.audio.first { groups.contains($0.groupID) }
        let soundID = try sound.map { audio throws(IngestAssembler.Refusal) in try folder(of: audio.uri) }
        // The captions, in a rendition of their own the video renditions name (EXT-X-MEDIA).
        let captionGroups = Set(playlist.variants.compactMap(\.subtitlesGroup))
        let captions = playlist.subtitles.first { captionGroups.contains($0.groupID) }
        let captionsID = try captions.map { captions throws(IngestAssembler.Refusal) in try folder(of: captions.uri) }
        let all = ids + (soundID.map { [$0] } ?? []) + (captionsID.map { [$0] } ?? [])
        guard Set(all).count == all.count else { throw .badRequest("index.m3u8 lists a rendition twice") }
        guard all.count <= Self.maximumRenditions else {
            throw .full("index.m3u8 lists \(all.count) renditions; an origin takes \(Self.maximumRenditions)")
        }
        try make(room: &channel, name: name, keeping: all)
        func feed(_ id: String) -> Feed {
            channel.feeds[id]
                ?? Feed(
                    assembler: IngestAssembler(
                        channel: name, rendition: id, playlistSize: settings.playlistSize, limits: settings.limits))
        }
        let isAudio: (String) -> Bool = { CodecFamily.isAudio($0) }
        for (id, variant) in zip(ids, playlist.variants) {
            var described = variant
            // The origin's own multivariant playlist adds the sound's codec and rate back.
            if sound != nil { described.codecs.removeAll(where: isAudio) }
            var rendition = feed(id)
            rendition.assembler.describe(described)
            channel.feeds[id] = rendition
        }
        if let sound, let soundID {
            var rendition = feed(soundID)
            rendition.assembler.describe(
                MultivariantPlaylist.Variant(
                    uri: sound.uri, bandwidth: 1, averageBandwidth: 0,
                    codecs: playlist.variants.first?.codecs.filter(isAudio) ?? [], width: 0, height: 0, frameRate: 0),
                audioChannels: sound.channels ?? 2)
            channel.feeds[soundID] = rendition
        }
        if let captions, let captionsID {
            var rendition = feed(captionsID)
            rendition.assembler.describe(
                MultivariantPlaylist.Variant(
                    uri: captions.uri, bandwidth: 1, averageBandwidth: 0, codecs: [], width: 0, height: 0,
                    frameRate: 0),
                captions: Rendition.Captions(language: captions.language, name: captions.name))
            channel.feeds[captionsID] = rendition
        }
        if channel.ladder != all {
            channel.ladder = all
            channel.board = LadderBoard(renditions: all)
        }
        for id in all { Self.show(channel.feeds[id]!, ladder: channel.board) }
    }

    /// Gives a rendition's store its timeline as described now, without waiting for its next media.
    private static func show(_ feed: Feed, ladder board: LadderBoard?) {
        guard let store = feed.store, let timeline = feed.assembler.timeline else { return }
        store.receive(Publication(events: [], timeline: timeline, ladder: board?.post(timeline)))
    }

    /// Lets go of every rendition but `keeping`, refusing while one of them is still live (a publisher
    /// cannot change a channel's shape under its viewers).
    private func make(room channel: inout Channel, name: ChannelName, keeping: [String?]) throws(IngestAssembler
        .Refusal)
    {
        let leaving = channel.feeds.keys.filter { !keeping.contains($0) }
        guard !leaving.contains(where: { channel.feeds[$0]?.isLive == true }) else {
            throw .conflict("channel \(name) is live with other renditions; stop its publisher first")
        }
        channel.retiring += leaving.flatMap { channel.feeds[$0].map { ($0.sinks ?? []) + $0.recorders } ?? [] }
        for key in leaving { channel.feeds[key] = nil }
        if !channel.listed.allSatisfy({ channel.feeds[$0]?.store != nil }) { channel.listed = [] }
    }

    /// What the registry should show of the channel when that has changed: its one store, or a
    /// ladder over its renditions once each lists media.
    private static func list(_ channel: inout Channel) -> (any LiveChannel)? {
        let wanted: [String?] = channel.ladder.isEmpty ? [nil] : channel.ladder
        guard wanted != channel.listed else { return nil }
        let stores = wanted.compactMap { channel.feeds[$0]?.store }
        guard stores.count == wanted.count else { return nil }
        channel.listed = wanted
        return channel.ladder.isEmpty ? stores[0] : LiveLadder(stores: stores)
    }

    /// Ends the channels whose publishers have been silent too long, and removes those ended long
    /// enough ago. Called about once a second.
    public func sweep(now: Double) {
        var finished: [SinkRunner] = []
        defer { Self.finish(finished) }
        let wall = Int64(Date().timeIntervalSince1970 * 1000)
        var changes: [Change] = []
        var leaving: [(name: ChannelName, lastPush: Double, ended: Bool)] = []
        for (name, slot) in slots.withLock({ $0 }) {
            slot.state.withLock { channel in
                guard !channel.removed else { return }
                let silence = now - channel.lastPush
                if channel.feeds.values.allSatisfy({ $0.assembler.timeline == nil }),
                    silence >= settings.publisherTimeout
                {
                    // Pushed files that no playlist ever listed: nothing to show, nothing to keep.
                    leaving.append((name, channel.lastPush, false))
                } else if silence >= settings.publisherTimeout,
                    channel.heldBytes > 0 || channel.feeds.values.contains(where: \.isLive)
                {
                    let wasLive = channel.isLive
                    for key in channel.feeds.keys {
                        channel.feeds[key]!.assembler.dropHeld()
                        guard var publication = channel.feeds[key]!.assembler.end() else { continue }
                        if key != nil { publication.ladder = channel.board?.post(publication.timeline) }
                        var feed = channel.feeds[key]!
                        send(publication, to: &feed, key: key, of: &channel, name: name, now: wall, finished: &finished)
                        channel.feeds[key] = feed
                    }
                    recount(&channel)
                    if wasLive { changes.append(.ended(name, silentFor: silence)) }
                } else if silence >= settings.retention {
                    leaving.append((name, channel.lastPush, true))
                }
            }
        }
        slots.withLock { slots in
            for (name, lastPush, ended) in leaving {
                remove(name, from: &slots, unlessPushedAfter: lastPush)
                if ended, slots[name] == nil { changes.append(.removed(name)) }
            }
        }
        for change in changes {
            if case .removed(let name) = change { registry.remove(named: name) }
            changed(change)
        }
    }

    /// Hands a rendition's publication to its store and sinks, and to the recordings of its run:
    /// begun at the run's first segment (planned on their own threads: an ingest never waits on the
    /// disk), ended with the run. The recorders whose run ended go to `finished`, to be finished
    /// outside the lock.
    private func send(
        _ publication: Publication, to feed: inout Feed, key: String?, of channel: inout Channel, name: ChannelName,
        now: Int64, finished: inout [SinkRunner]
    ) {
        feed.store?.receive(publication)
        guard let outputs else { return }
        // Made late, a sink loses nothing: each publication carries the whole timeline.
        if feed.sinks == nil, key == nil || !channel.ladder.isEmpty {
            feed.sinks = outputs.lastingSinks(of: name, rendition: key, writesIndex: writesIndex(key, channel))
        }
        for sink in feed.sinks ?? [] { sink.send(publication) }
        let timeline = publication.timeline
        if feed.recorders.isEmpty {
            // A ladder's rendition waits for the multivariant playlist that names the recording's folders.
            guard !timeline.ended, let last = timeline.segments.last?.sequence, last > (feed.recordedUntil ?? -1),
                key == nil || !channel.ladder.isEmpty
            else { return }
            let renditions: [String?] = key == nil ? [nil] : channel.ladder.map { $0 }
            guard
                let recordings = channel.recordings
                    ?? outputs.recordings(
                        of: name, renditions: renditions, format: timeline.configuration.format, startedAt: now)
            else { return }
            channel.recordings = recordings
            feed.recorders = recordings.sinks(
                rendition: key, writesIndex: writesIndex(key, channel), after: feed.recordedUntil)
        }
        for recorder in feed.recorders { recorder.send(publication) }
        guard timeline.ended, !feed.recorders.isEmpty else { return }
        finished += feed.recorders
        feed.recorders = []
        feed.recordedUntil = timeline.segments.last?.sequence
        // The feed being recorded is out of `channel.feeds` while this runs (its caller holds it).
        if channel.feeds.allSatisfy({ $0.key == key || $0.value.recorders.isEmpty }) { channel.recordings = nil }
    }

    /// Whether a rendition's sinks write the channel's multivariant playlist: the only one's, or
    /// the ladder's first.
    private func writesIndex(_ key: String?, _ channel: Channel) -> Bool {
        key == nil || key == channel.ladder.first
    }

    /// Lets ended recordings, or the sinks of renditions let go, write what they have queued, on a
    /// thread of their own; then `afterwards` (the channel's rewind window removed).
    private static func finish(_ runners: [SinkRunner], afterwards: (@Sendable () -> Void)? = nil) {
        guard !runners.isEmpty || afterwards != nil else { return }
        _ = WorkerThread(name: "onair-sink-end") {
            for runner in runners { _ = runner.finish(within: .seconds(30)) }
            afterwards?()
        }
    }

    /// At the origin's stop: each channel's sinks write what they have queued (the last playlists
    /// pushed onward, the recordings), within `timeout` in all, and the rewind windows go.
    public func close(within timeout: Duration) {
        let channels = slots.withLock { slots in
            slots.map { name, slot in
                (name, slot.state.withLock { $0.feeds.values.flatMap { ($0.sinks ?? []) + $0.recorders } })
            }
        }
        let deadline = ContinuousClock.now + timeout
        for (_, runners) in channels {
            for runner in runners { _ = runner.finish(within: max(.zero, deadline - ContinuousClock.now)) }
        }
        for (name, _) in channels { outputs?.rewindWindow(of: name)?.remove() }
    }

    /// How many channels it holds, and the bytes their publishers have pushed that wait for a playlist.
    public var counts: (channels: Int, heldBytes: Int) {
        let slots = slots.withLock { Array($0.values) }
        return (slots.count, slots.reduce(0) { $0 + $1.state.withLock(\.heldBytes) })
    }

    /// Bytes every channel holds together: pushed files and live windows.
    public var memory: Int { heldTotal.load(ordering: .relaxed) }
}
