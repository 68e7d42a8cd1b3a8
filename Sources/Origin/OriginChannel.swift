import HLS
import HLSModel
import Runtime

/// One channel an origin hosts, as its publisher pushes it: a rendition's assembler, store and
/// sinks per folder (nil for a channel pushed as one rendition), the ladder its multivariant
/// playlist describes, and the run it belongs to. A value: ``OriginChannels`` works on a copy under
/// the channel's lock and keeps it only when the push is taken, so a refused push changes nothing.
struct OriginChannel {
    /// One rendition as pushed: its assembler, and its store from its first playlist that lists media.
    struct Feed {
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
        var runners: [SinkRunner] { (sinks ?? []) + recorders }
    }

    /// What a channel's work needs besides the channel: its name, the origin's settings, where it goes.
    struct Context {
        var name: ChannelName
        var settings: OriginChannels.Settings
        var outputs: (any ChannelOutputs)?

        func assembler(for rendition: String?) -> IngestAssembler {
            IngestAssembler(
                channel: name, rendition: rendition ?? Rendition.singleID, playlistSize: settings.playlistSize,
                limits: settings.limits)
        }
    }

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
    /// The sinks of renditions let go, to finish once the push that let them go is taken.
    var retiring: [SinkRunner] = []
    /// The publisher's run it belongs to (one publisher at a time).
    var owner = ChannelOwner()

    var phase: ChannelPhase {
        removed ? .removed : ChannelPhase(timelines: feeds.values.map { $0.assembler.timeline.map(\.ended) })
    }
    /// Shown to viewers, with a rendition live.
    var isLive: Bool { !listed.isEmpty && listed.contains { feeds[$0]?.isLive == true } }
    var heldBytes: Int { feeds.values.reduce(0) { $0 + $1.assembler.heldBytes } }
    /// How long its publisher's run holds it after its last push: two target durations, at least 4 s.
    var hold: Double {
        let target = feeds.values.compactMap { $0.assembler.timeline?.configuration.targetDuration }.max() ?? 0
        return Double(IngestAssembler.holdMilliseconds(targetDuration: target)) / 1000
    }
    /// Every sink of every rendition.
    var runners: [SinkRunner] { feeds.values.flatMap(\.runners) }

    /// Takes a push of `run`, or refuses it while the channel is another run's.
    mutating func admit(_ run: ChannelOwner.Run?, now: Double, name: ChannelName) throws(IngestAssembler.Refusal) {
        try owner.admit(run, now: now, live: phase == .live, hold: hold, channel: name)
    }

    /// Counts what it holds: pushed files and live windows.
    func counted() -> Int {
        feeds.values.reduce(0) { $0 + $1.assembler.heldBytes + ($1.assembler.timeline?.heldBytes ?? 0) }
    }

    /// One pushed file: its multivariant playlist, or a rendition's file, published to the
    /// rendition's store and sinks. Sinks of recordings that ended go to `finished`.
    mutating func take(
        _ file: MediaFileName, bytes: [UInt8], rendition: String?, wall: Int64, in context: Context,
        finished: inout [SinkRunner]
    ) throws(IngestAssembler.Refusal) {
        if rendition == nil, file == .multivariantPlaylist {
            try describe(as: ChannelShape.read(bytes), at: wall, in: context, finished: &finished)
            return
        }
        if feeds[rendition] == nil {
            // A ladder's rendition where one rendition was pushed, or the other way round: a
            // publisher that came back in another shape. The old shape goes once it is over.
            try makeRoom(keeping: rendition == nil ? [] : feeds.keys.filter { $0 != nil }, name: context.name)
            if rendition == nil {
                ladder = []
                board = nil
            }
            guard feeds.count < ChannelShape.maximumRenditions else {
                throw .full("channel \(context.name) has \(ChannelShape.maximumRenditions) renditions already")
            }
            feeds[rendition] = Feed(assembler: context.assembler(for: rendition))
        }
        guard var feed = feeds.removeValue(forKey: rendition) else { return }
        defer { feeds[rendition] = feed }
        let publications = try feed.assembler.put(file, bytes: bytes, now: wall)
        if let store = feed.store, let timeline = feed.assembler.timeline,
            !store.serves(settingsOf: timeline.configuration)
        {
            // A stream of other settings after the last ended: a store and sinks of its own, shown anew.
            feed.store = nil
            retiring += feed.sinks ?? []
            feed.sinks = nil
            listed = []
        }
        if feed.store == nil, let timeline = feed.assembler.timeline {
            feed.store = LiveStore(timeline: timeline, startedAt: wall)
        }
        for var publication in publications {
            if rendition != nil { publication.ladder = board?.post(publication.timeline) }
            send(publication, to: &feed, key: rendition, at: wall, in: context, finished: &finished)
        }
    }

    /// Takes the shape a multivariant playlist describes: one rendition at the channel's top, or a
    /// ladder. Refused while a rendition it leaves out is live. A ladder's renditions that list
    /// media already get their sinks now, with what they have: the rewind window and the recording
    /// begin with the ladder, not a segment later.
    private mutating func describe(
        as shape: ChannelShape, at wall: Int64, in context: Context, finished: inout [SinkRunner]
    ) throws(IngestAssembler.Refusal) {
        try makeRoom(keeping: shape.folders, name: context.name)
        switch shape {
        case .single(let variant):
            ladder = []
            board = nil
            var feed = feeds[nil] ?? Feed(assembler: context.assembler(for: nil))
            feed.assembler.describe(variant)
            Self.show(feed, ladder: nil)
            feeds[nil] = feed
        case .ladder(let members):
            for member in members {
                var feed = feeds[member.id] ?? Feed(assembler: context.assembler(for: member.id))
                feed.assembler.describe(member.variant, audioChannels: member.audioChannels, captions: member.captions)
                feeds[member.id] = feed
            }
            let all = members.map(\.id)
            if ladder != all {
                ladder = all
                board = LadderBoard(renditions: all)
            }
            for id in all {
                guard var feed = feeds.removeValue(forKey: id) else { continue }
                defer { feeds[id] = feed }
                if feed.sinks == nil, feed.store != nil, let timeline = feed.assembler.timeline {
                    let publication = Publication(events: [], timeline: timeline, ladder: board?.post(timeline))
                    send(publication, to: &feed, key: id, at: wall, in: context, finished: &finished)
                } else {
                    Self.show(feed, ladder: board)
                }
            }
        }
    }

    /// Gives a rendition's store its timeline as described now, without waiting for its next media.
    private static func show(_ feed: Feed, ladder board: LadderBoard?) {
        guard let store = feed.store, let timeline = feed.assembler.timeline else { return }
        store.receive(Publication(events: [], timeline: timeline, ladder: board?.post(timeline)))
    }

    /// Lets go of every rendition but `keeping`, refusing while one of them is still live (a
    /// publisher cannot change a channel's shape under its viewers).
    private mutating func makeRoom(keeping: [String?], name: ChannelName) throws(IngestAssembler.Refusal) {
        let leaving = feeds.keys.filter { !keeping.contains($0) }
        guard !leaving.contains(where: { feeds[$0]?.isLive == true }) else {
            throw .conflict("channel \(name) is live with other renditions; stop its publisher first")
        }
        retiring += leaving.flatMap { feeds[$0]?.runners ?? [] }
        for key in leaving { feeds[key] = nil }
        if !listed.allSatisfy({ feeds[$0]?.store != nil }) { listed = [] }
    }

    /// What viewers should be shown of the channel when that has changed: its one store, or a
    /// ladder over its renditions once each lists media.
    mutating func listing() -> (any LiveChannel)? {
        let wanted: [String?] = ladder.isEmpty ? [nil] : ladder
        guard wanted != listed else { return nil }
        let stores = wanted.compactMap { feeds[$0]?.store }
        guard stores.count == wanted.count else { return nil }
        listed = wanted
        return ladder.isEmpty ? stores[0] : LiveLadder(stores: stores)
    }

    /// Its publisher fell silent: the files no playlist listed go, and each run still going ends.
    mutating func endRuns(at wall: Int64, in context: Context, finished: inout [SinkRunner]) {
        for key in Array(feeds.keys) {
            guard var feed = feeds.removeValue(forKey: key) else { continue }
            defer { feeds[key] = feed }
            feed.assembler.dropHeld()
            guard var publication = feed.assembler.end() else { continue }
            if key != nil { publication.ladder = board?.post(publication.timeline) }
            send(publication, to: &feed, key: key, at: wall, in: context, finished: &finished)
        }
    }

    /// Hands a rendition's publication to its store and sinks, and to the recordings of its run:
    /// begun at the run's first segment (planned on their own threads: an ingest never waits on the
    /// disk), ended with the run. The recorders whose run ended go to `finished`, to be finished
    /// outside the lock. `feed` is out of `feeds` while this runs.
    private mutating func send(
        _ publication: Publication, to feed: inout Feed, key: String?, at wall: Int64, in context: Context,
        finished: inout [SinkRunner]
    ) {
        feed.store?.receive(publication)
        guard let outputs = context.outputs else { return }
        // Made late, a sink loses nothing: each publication carries the whole timeline.
        if feed.sinks == nil, key == nil || !ladder.isEmpty {
            feed.sinks = outputs.lastingSinks(of: context.name, rendition: key, writesIndex: writesIndex(key))
        }
        for sink in feed.sinks ?? [] { sink.send(publication) }
        let timeline = publication.timeline
        if feed.recorders.isEmpty {
            // A ladder's rendition waits for the multivariant playlist that names the recording's folders.
            guard !timeline.ended, let last = timeline.segments.last?.sequence, last > (feed.recordedUntil ?? -1),
                key == nil || !ladder.isEmpty
            else { return }
            let renditions: [String?] = key == nil ? [nil] : ladder.map { $0 }
            guard
                let recordings = recordings
                    ?? outputs.recordings(
                        of: context.name, renditions: renditions, format: timeline.configuration.format,
                        startedAt: wall)
            else { return }
            self.recordings = recordings
            feed.recorders = recordings.sinks(rendition: key, writesIndex: writesIndex(key), after: feed.recordedUntil)
        }
        for recorder in feed.recorders { recorder.send(publication) }
        guard timeline.ended, !feed.recorders.isEmpty else { return }
        finished += feed.recorders
        feed.recorders = []
        feed.recordedUntil = timeline.segments.last?.sequence
        if feeds.values.allSatisfy(\.recorders.isEmpty) { recordings = nil }
    }

    /// Whether a rendition's sinks write the channel's multivariant playlist: the only one's, or
    /// the ladder's first.
    private func writesIndex(_ key: String?) -> Bool {
        key == nil || key == ladder.first
    }
}
