import FoundationEssentials
import HLSModel
import Logging
import Metrics
import Synchronization
import Runtime

/// A broadcast's events: each is stamped, numbered, logged, kept (the last hundred) and handed
/// to every open events stream. A stream that falls behind keeps the newest hundred.
final class EventHub: Sendable {
    private struct State {
        var history: [BroadcastEvent] = []
        var streams: [Int: AsyncStream<BroadcastEvent>.Continuation] = [:]
        var nextStream = 0
        var finished = false
    }

    static let kept = 100
    private let state = Mutex(State())
    private let logger: Logger
    private let channel: ChannelName

    init(channel: ChannelName, logger: Logger) {
        self.channel = channel
        self.logger = logger
    }

    /// Reports an event; also usable as an ``EventReporter``.
    func report(_ code: BroadcastEvent.Code, _ message: String) {
        let (event, streams) = state.withLock { state in
            let event = BroadcastEvent(
                code: code, message: message, time: Int64((Date().timeIntervalSince1970 * 1000).rounded()),
                sequence: (state.history.last?.sequence ?? 0) + 1)
            state.history.append(event)
            if state.history.count > Self.kept { state.history.removeFirst() }
            return (event, Array(state.streams.values))
        }
        logger.log(
            level: code.isProblem ? .warning : .notice, "\(message)",
            metadata: ["event": "\(code.rawValue)", "channel": "\(channel)"])
        for stream in streams { stream.yield(event) }
        Counter(label: "onair_events_total", dimensions: [("channel", channel.text), ("code", code.rawValue)])
            .increment()
    }

    var reporter: EventReporter { { [self] code, message in report(code, message) } }

    /// The events so far, then each new one; finishes with the broadcast.
    func stream() -> AsyncStream<BroadcastEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: BroadcastEvent.self, bufferingPolicy: .bufferingNewest(Self.kept))
        let finished = state.withLock { state in
            for event in state.history { continuation.yield(event) }
            guard !state.finished else { return true }
            let id = state.nextStream
            state.nextStream += 1
            state.streams[id] = continuation
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.streams.removeValue(forKey: id) }
            }
            return false
        }
        if finished { continuation.finish() }
        return stream
    }

    /// Ends every stream: nothing more will happen.
    func finish() {
        let streams = state.withLock { state in
            state.finished = true
            defer { state.streams.removeAll() }
            return Array(state.streams.values)
        }
        for stream in streams { stream.finish() }
    }

    var events: [BroadcastEvent] { state.withLock { $0.history } }
}
