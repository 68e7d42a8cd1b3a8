/// Low-Latency HLS in the store: part files, and requests held until the playlist holds what
/// they ask for (blocking playlist reload, preload hints). A held request is a continuation,
/// resumed by the packaging thread after the change that satisfies it: no thread and no
/// polling per request.
extension SegmentStore {
    /// Why a blocking playlist request is refused (HTTP 400).
    public enum ReloadProblem: Error, Equatable, CustomStringConvertible {
        case partWithoutSequence
        case tooFarAhead(msn: Int, last: Int)

        public var description: String {
            switch self {
            case .partWithoutSequence: "_HLS_part needs _HLS_msn"
            case .tooFarAhead(let msn, let last): "_HLS_msn=\(msn) is more than 2 segments after the last one, \(last)"
            }
        }
    }

    /// Checks `_HLS_msn` / `_HLS_part` before waiting for them.
    public func checkReload(msn: Int?, part: Int?) throws(ReloadProblem) {
        guard let msn else {
            if part != nil { throw .partWithoutSequence }
            return
        }
        let last = state.withLock { $0.nextSequence - 1 }
        if msn > last + 2 { throw .tooFarAhead(msn: msn, last: last) }
    }

    /// The media playlist as served: the delta update when `skip` is asked and offered.
    public func mediaPlaylist(skip: Bool) -> [UInt8] {
        state.withLock { state in (skip ? state.deltaPlaylist : nil) ?? state.mediaPlaylist }
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
    public func part(named name: String, timeout: Duration) async -> File? {
        if let file = file(named: name) { return file }
        guard let (msn, index) = Self.partPosition(name), configuration.partDuration != nil else { return nil }
        let isNext = state.withLock { $0.nextSequence == msn && $0.openParts.count == index && !$0.ended }
        guard isNext, await waitUntilListed(msn: msn, part: index, timeout: timeout) else { return nil }
        return file(named: name)
    }

    private func waitUntilListed(msn: Int, part: Int?) async {
        let id = state.withLock { $0.waiters.newID() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = state.withLock { state in
                    if state.waiters.wasCancelled(id) || Self.isListed(msn: msn, part: part, in: state) { return true }
                    state.waiters.add(id: id, msn: msn, part: part, continuation: continuation)
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            state.withLock { $0.waiters.cancel(id) }?.resume()
        }
    }

    static func isListed(msn: Int, part: Int?, in state: State) -> Bool {
        if state.ended || msn < state.nextSequence { return true }
        guard let part else { return false }
        return msn == state.nextSequence && part < state.openParts.count
    }

    static func part(named name: String, in state: State) -> Part? {
        guard let (msn, index) = partPosition(name) else { return nil }
        if msn == state.nextSequence {
            return index < state.openParts.count ? state.openParts[index] : nil
        }
        guard let segment = state.segments.first(where: { $0.sequence == msn }), index < segment.parts.count else {
            return nil
        }
        return segment.parts[index]
    }

    /// `part12.3.m4s` → (12, 3).
    static func partPosition(_ name: String) -> (msn: Int, index: Int)? {
        guard name.hasPrefix("part") else { return nil }
        let fields = name.dropFirst(4).split(separator: ".")
        guard fields.count == 3, let msn = Int(fields[0]), let index = Int(fields[1]), msn >= 0, index >= 0 else {
            return nil
        }
        return (msn, index)
    }
}

extension SegmentStore.Part {
    var listed: MediaPlaylist.Part { MediaPlaylist.Part(uri: name, duration: duration, independent: independent) }
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

    /// Removes and returns the requests the state now satisfies, to be resumed outside the lock.
    mutating func takeSatisfied(by state: SegmentStore.State) -> [CheckedContinuation<Void, Never>] {
        guard !waiting.isEmpty else { return [] }
        let ready = waiting.filter { SegmentStore.isListed(msn: $0.value.msn, part: $0.value.part, in: state) }
        for id in ready.keys { waiting.removeValue(forKey: id) }
        return ready.values.map(\.continuation)
    }
}
