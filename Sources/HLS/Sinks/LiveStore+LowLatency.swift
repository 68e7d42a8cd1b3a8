public import HLSModel
import Synchronization

/// Low-Latency HLS in the live store: requests held until the playlist holds what they ask for
/// (blocking playlist reload, preload hints). A held request is a continuation, resumed by the
/// store's thread after the publication that satisfies it: no thread and no polling per request.
extension LiveStore {
    /// The file as the request should get it. For Low-Latency HLS: a media playlist request with
    /// `_HLS_msn` (and `_HLS_part`) waits until the playlist holds that segment (part), and
    /// `_HLS_skip=YES` gets the delta update; a request for the hinted next part waits for it.
    /// Held at most three target durations.
    public func file(for request: LiveRequest) async throws(LiveFile.Refusal) -> LiveFile? {
        // One rendition: no folders (a ladder's ``LiveLadder`` hands each store its own folder's requests).
        guard request.rendition == nil else { return nil }
        let name = MediaFileName(request.file)
        // The server renders a session's copy (``multivariantPlaylist(session:)``) from this one.
        if name == .multivariantPlaylist, request.session != nil, var file = file(named: request.file) {
            file.perSession = true
            return file
        }
        guard configuration.partDuration != nil else { return file(named: request.file) }
        let timeout = Duration.seconds(3 * Double(configuration.targetDuration))
        if case .part = name {
            return await part(named: request.file, timeout: timeout)
        }
        guard name == .mediaPlaylist, var file = file(named: request.file) else { return file(named: request.file) }
        try checkReload(msn: request.msn, part: request.part)
        if let msn = request.msn, await !waitUntilListed(msn: msn, part: request.part, timeout: timeout) {
            throw .timedOut("_HLS_msn=\(msn) did not come in three target durations")
        }
        file.bytes = mediaPlaylist(skip: request.skip)
        return file
    }

    /// Checks `_HLS_msn` / `_HLS_part` before waiting for them: a part with no segment, or a
    /// segment more than two after the last, is a bad request.
    public func checkReload(msn: Int?, part: Int?) throws(LiveFile.Refusal) {
        guard let msn else {
            if part != nil { throw .badRequest("_HLS_part needs _HLS_msn") }
            return
        }
        let last = state.withLock { $0.timeline.lastSequence }
        if msn > last + 2 { throw .badRequest("_HLS_msn=\(msn) is more than 2 segments after the last one, \(last)") }
    }

    /// The media playlist as served: the delta update when `skip` is asked and offered (`v2`:
    /// skipping the skipped segments' date ranges too).
    public func mediaPlaylist(skip: LiveRequest.Skip?) -> [UInt8] {
        state.withLock { state in
            let delta: [UInt8]? =
                switch skip {
                case .yes: state.deltaPlaylist
                case .v2: state.deltaPlaylistSkippingDateRanges
                case nil: nil
                }
            return delta ?? state.mediaPlaylist
        }
    }

    /// Returns once segment `msn` (or its part `part`) is in the playlist, the stream has ended,
    /// or `timeout` has passed; true unless it timed out.
    public func waitUntilListed(msn: Int, part: Int?, timeout: Duration) async -> Bool {
        await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                await self.waitUntilListed(msn: msn, part: part)
                return true
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// The part named `name` once it is complete: at once if it is, after waiting if it is the
    /// next one (the preload hint); nil for any other name, or after `timeout`.
    public func part(named name: String, timeout: Duration) async -> LiveFile? {
        if let file = file(named: name) { return file }
        guard case .part(let msn, let index, _) = MediaFileName(name), configuration.partDuration != nil else {
            return nil
        }
        let isNext = state.withLock { state in
            state.timeline.nextPart == .part(msn, index, state.timeline.configuration.format) && !state.timeline.ended
        }
        guard isNext, await waitUntilListed(msn: msn, part: index, timeout: timeout) else { return nil }
        return file(named: name)
    }

    private func waitUntilListed(msn: Int, part: Int?) async {
        let id = state.withLock { $0.waiters.newID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.waiters.wasCancelled(id) || state.timeline.lists(msn: msn, part: part) { return true }
                    state.waiters.add(id: id, msn: msn, part: part, continuation: continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.cancel(id) }?.resume()
        }
    }
}

/// Held playlist and part requests, by id, in the store's state.
struct Waiters {
    private struct Waiter {
        var msn: Int
        var part: Int?
        var continuation: CheckedContinuation<Void, Never>
    }

    private var waiting: [UInt64: Waiter] = [:]
    private var cancelled: Set<UInt64> = []
    private var lastID: UInt64 = 0

    mutating func newID() -> UInt64 {
        lastID += 1
        return lastID
    }

    mutating func add(id: UInt64, msn: Int, part: Int?, continuation: CheckedContinuation<Void, Never>) {
        waiting[id] = Waiter(msn: msn, part: part, continuation: continuation)
    }

    /// True if the request was cancelled before it could wait.
    mutating func wasCancelled(_ id: UInt64) -> Bool {
        cancelled.remove(id) != nil
    }

    /// The continuation to resume for a cancelled request, or nil if it is not waiting (yet).
    mutating func cancel(_ id: UInt64) -> CheckedContinuation<Void, Never>? {
        if let waiter = waiting.removeValue(forKey: id) { return waiter.continuation }
        // Not added yet: remember, so it does not start waiting. (Already resumed: harmless.)
        if cancelled.count < 100_000 { cancelled.insert(id) }
        return nil
    }

    /// Removes and returns the requests the timeline now satisfies, to be resumed outside the lock.
    mutating func takeSatisfied(by timeline: Timeline) -> [CheckedContinuation<Void, Never>] {
        guard !waiting.isEmpty else { return [] }
        let ready = waiting.filter { timeline.lists(msn: $0.value.msn, part: $0.value.part) }
        for id in ready.keys { waiting.removeValue(forKey: id) }
        return ready.values.map(\.continuation)
    }
}
