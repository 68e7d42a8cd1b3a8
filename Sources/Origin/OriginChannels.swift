import FoundationEssentials
public import HLS
public import HLSModel
import Runtime
import Synchronization

/// The channels an origin (`onair serve`) builds from what its publishers push. A channel pushed as
/// one rendition (`/ingest/<channel>/<file>`) has one ``IngestAssembler`` and one ``LiveStore``; a
/// ladder (`/ingest/<channel>/<rendition>/<file>`, under a multivariant playlist that lists each
/// rendition's folder) has one of each per rendition, shown to viewers as a ``LiveLadder`` with
/// its rendition reports. The channel is shown once viewers can play it: from the first playlist
/// that lists media, or for a ladder, once its multivariant playlist has come and every rendition
/// it names lists media.
///
/// A channel's life is its ``ChannelPhase``: a channel whose publisher goes silent is ended for its
/// viewers (EXT-X-ENDLIST) after `publisherTimeout`, and the files it pushed that no playlist
/// listed are let go (a channel that never had a playlist goes altogether); an ended one leaves
/// after `retention`. At most `maximum` channels at once, each with at most
/// ``ChannelShape/maximumRenditions``, each within the assembler's limits and the
/// ``MemoryBudget``: memory stays bounded whatever is pushed.
///
/// Beyond its live store, each rendition goes where the origin's ``ChannelOutputs`` say, as a
/// published channel does: pushed onward and kept in a rewind window for as long as the channel is
/// hosted, recorded run by run (a publisher that comes back starts a new recording).
public final class OriginChannels: Sendable {
    /// One channel behind a lock of its own: a push to one channel never waits on another's.
    private final class Slot: Sendable {
        let state: Mutex<OriginChannel>
        init(_ channel: OriginChannel) { state = Mutex(channel) }
    }

    public let settings: Settings
    private let listing: any ChannelListing
    private let slots = Mutex<[ChannelName: Slot]>([:])
    private let budget: MemoryBudget
    private let changed: @Sendable (Change) -> Void
    /// Where each channel goes besides its live store.
    private let outputs: (any ChannelOutputs)?

    public init(
        settings: Settings, listing: any ChannelListing, outputs: (any ChannelOutputs)? = nil,
        changed: @escaping @Sendable (Change) -> Void = { _ in }
    ) {
        self.settings = settings
        self.listing = listing
        self.outputs = outputs
        self.changed = changed
        budget = MemoryBudget(perChannel: settings.channelMemory, total: settings.originMemory)
    }

    private func context(_ name: ChannelName) -> OriginChannel.Context {
        OriginChannel.Context(name: name, settings: settings, outputs: outputs)
    }

    /// Takes a pushed file: `rendition` is its folder for a ladder's rendition, nil at the channel's
    /// top; `run`, the publisher's run as it names it (``ChannelOwner``). Publications go to the
    /// channel's stores before this returns, in order.
    public func put(
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
                    if !file.isPlaylist {
                        try budget.checkRoom(for: bytes.count, channelHolds: channel.bytes, name: name)
                    }
                    try channel.take(
                        file, bytes: bytes, rendition: rendition, wall: wallMilliseconds, in: context(name),
                        finished: &finished)
                    channel.lastPush = now
                    let listing = channel.listing()
                    budget.recount(&channel)
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
        if let shown = outcome?.listing { listing.show(shown, dvr: outputs?.rewindWindow(of: name)) }
        if outcome?.live == true { changed(.live(name)) }
    }

    /// The channel's slot, made when it is new: a channel that is not live makes room when the
    /// origin is full.
    private func slot(named name: ChannelName, now: Double) throws(IngestAssembler.Refusal) -> Slot {
        var evicted: ChannelName?
        let slot = try slots.withLock { slots throws(IngestAssembler.Refusal) -> Slot in
            if let slot = slots[name] { return slot }
            if slots.count >= settings.maximum {
                // A channel takes a slot for good with its first playlist that lists media: until
                // then (files pushed to a made-up name) it makes room for a new one, and so does an
                // ended channel before its retention is over; the one pushed to longest ago goes.
                let idle = slots.compactMap { key, slot in
                    slot.state.withLock { $0.phase.mayMakeRoom ? (key, $0.lastPush) : nil }
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
            let slot = Slot(OriginChannel(lastPush: now))
            slots[name] = slot
            return slot
        }
        if let evicted {
            listing.hide(named: evicted)
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
            budget.release(&channel)
            Self.finish(channel.runners, afterwards: outputs?.rewindWindow(of: name).map { $0.remove })
            return true
        }
        if removed { slots[name] = nil }
    }

    /// Counts `count` more bytes of a body on its way in (declared by its `Content-Length`, or as
    /// they arrive) against the channel's budget and the origin's, so uploads in flight are within
    /// them too; refused (HTTP 507) when either has no room. ``arrived(_:into:)`` gives them back
    /// once the body is whole, before it is put.
    public func arriving(_ count: Int, into name: ChannelName) throws(IngestAssembler.Refusal) {
        let held = slots.withLock { $0[name] }?.state.withLock(\.bytes) ?? 0
        try budget.arriving(count, into: name, channelHolds: held)
    }

    /// Gives back what ``arriving(_:into:)`` counted of a body.
    public func arrived(_ count: Int, into name: ChannelName) {
        budget.arrived(count, into: name)
    }

    /// Forgets a file the publisher deleted; refused while the channel is another run's.
    public func delete(
        channel name: ChannelName, rendition: String? = nil, file: MediaFileName, run: ChannelOwner.Run? = nil,
        now: Double
    ) throws(IngestAssembler.Refusal) {
        guard let slot = slots.withLock({ $0[name] }) else { return }
        try slot.state.withLock { channel throws(IngestAssembler.Refusal) in
            guard !channel.removed else { return }
            try channel.admit(run, now: now, name: name)
            channel.feeds[rendition]?.assembler.delete(file)
            channel.lastPush = now
            budget.recount(&channel)
        }
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
                let silence = now - channel.lastPush
                switch channel.phase.sweep(
                    silence: silence, holdsFiles: channel.heldBytes > 0, publisherTimeout: settings.publisherTimeout,
                    retention: settings.retention)
                {
                case .keep: break
                case .letGo: leaving.append((name, channel.lastPush, false))
                case .remove: leaving.append((name, channel.lastPush, true))
                case .end:
                    let wasLive = channel.isLive
                    channel.endRuns(at: wall, in: context(name), finished: &finished)
                    budget.recount(&channel)
                    if wasLive { changes.append(.ended(name, silentFor: silence)) }
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
            if case .removed(let name) = change { listing.hide(named: name) }
            changed(change)
        }
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
        let channels = slots.withLock { slots in slots.map { name, slot in (name, slot.state.withLock(\.runners)) } }
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
    public var memory: Int { budget.used }
}
