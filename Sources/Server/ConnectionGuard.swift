import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOHTTPTypes
import NIOHTTPTypesHTTP1
import Synchronization

/// Bounds the server's plain HTTP/1 connections, so a flood of idle ones can neither use up the
/// process's descriptors nor keep viewers out: past `limit`, a new connection makes room by
/// closing the connection that has been idle longest (between requests, or still without a
/// complete request); only when every connection is busy with a request is the new one refused.
/// Each connection's `ConnectionHandler` also closes it once the client has closed its side
/// (no CLOSE_WAIT left behind, an event stream ends at once), after the response to an HTTP/1.0
/// request that did not ask to be kept alive, and after a response sent before the request's body
/// came (a refusal: 401, 413): the rest of the body is not read.
final class ConnectionGuard: Sendable {
    private struct Entry {
        var channel: any Channel
        /// When the connection last became idle; nil while a request is in progress.
        var idleSince: UInt64?
    }

    private struct State {
        var connections: [ObjectIdentifier: Entry] = [:]
        var clock: UInt64 = 0
    }

    let limit: Int
    /// Seconds a request's body may take before it must keep up `minimumBodyRate` on average.
    let bodyGrace: Double
    /// Bytes a second a body must average once its grace is over: one trickled a byte every few
    /// seconds would hold its connection, and its upload slot, for good.
    static let minimumBodyRate = 16_384.0
    private let state = Mutex(State())

    init(limit: Int, bodyGrace: Double = 30) {
        self.limit = limit
        self.bodyGrace = bodyGrace
    }

    /// The handlers a new connection gets.
    func handlers() -> [any RemovableChannelHandler] {
        [ConnectionHandler(guard: self)]
    }

    /// Takes a new connection in; false when it must be refused. Closes what makes room for it.
    fileprivate func admit(_ channel: any Channel) -> Bool {
        let (admitted, evicted): (Bool, (any Channel)?) = state.withLock { state in
            var evicted: (any Channel)?
            if state.connections.count >= limit {
                guard
                    let oldest = state.connections.filter({ $0.value.idleSince != nil })
                        .min(by: { $0.value.idleSince! < $1.value.idleSince! })
                else { return (false, nil) }
                evicted = state.connections.removeValue(forKey: oldest.key)?.channel
            }
            state.clock += 1
            state.connections[ObjectIdentifier(channel)] = Entry(channel: channel, idleSince: state.clock)
            return (true, evicted)
        }
        evicted?.close(promise: nil)
        return admitted
    }

    fileprivate func setBusy(_ channel: any Channel, _ busy: Bool) {
        state.withLock { state in
            let id = ObjectIdentifier(channel)
            guard state.connections[id] != nil else { return }
            state.clock += 1
            state.connections[id]?.idleSince = busy ? nil : state.clock
        }
    }

    fileprivate func remove(_ channel: any Channel) {
        _ = state.withLock { $0.connections.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}

/// One connection's watch: admitted by the guard, busy from a request's head to its response's
/// end, closed when the client half-closes or an HTTP/1.0 exchange is over.
private final class ConnectionHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    private let connectionGuard: ConnectionGuard
    /// Set by the version reader ahead of the HTTP codec: the request in progress wants the
    /// connection closed after its response.
    fileprivate var closeAfterResponse = false
    /// A request's body is still to come (between a head that announces one and its end).
    private var bodyToCome = false
    /// The body on its way in: its bytes so far, and the watch on its rate.
    private var bodyBytes = 0
    private var bodyWatch: RepeatedTask?

    init(guard connectionGuard: ConnectionGuard) {
        self.connectionGuard = connectionGuard
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard connectionGuard.admit(context.channel) else {
            context.close(promise: nil)
            return
        }
        // HTTP types do not carry the version: a reader ahead of the codec tells this handler.
        if let codec = try? context.pipeline.syncOperations.handler(type: HTTP1ToHTTPServerCodec.self) {
            try? context.pipeline.syncOperations.addHandler(VersionReader(connection: self), position: .before(codec))
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        connectionGuard.remove(context.channel)
        stopWatchingBody()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let request):
            connectionGuard.setBusy(context.channel, true)
            bodyToCome =
                request.headerFields[.transferEncoding] != nil
                || (request.headerFields[.contentLength].flatMap { Int($0) } ?? 0) > 0
            if bodyToCome { watchBody(context: context) }
        case .end:
            bodyToCome = false
            stopWatchingBody()
        case .body(let piece): bodyBytes += piece.readableBytes
        }
        context.fireChannelRead(data)
    }

    /// Closes the connection when its body, past its grace, arrives slower than the minimum rate.
    private func watchBody(context: ChannelHandlerContext) {
        stopWatchingBody()
        let started = NIODeadline.now()
        bodyBytes = 0
        let grace = connectionGuard.bodyGrace
        let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        bodyWatch = context.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .seconds(1)) { task in
            let (handler, context) = bound.value
            let elapsed = Double((NIODeadline.now() - started).nanoseconds) / 1e9
            guard elapsed > grace,
                Double(handler.bodyBytes) < ConnectionGuard.minimumBodyRate * (elapsed - grace)
            else { return }
            task.cancel()
            context.close(promise: nil)
        }
    }

    private func stopWatchingBody() {
        bodyWatch?.cancel()
        bodyWatch = nil
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let part = unwrapOutboundIn(data)
        if case .head(let response) = part, response.status.kind != .informational, bodyToCome {
            // Answered before its body came: a refusal. The body is not drained; the connection goes.
            closeAfterResponse = true
        }
        guard case .end = part else {
            context.write(data, promise: promise)
            return
        }
        connectionGuard.setBusy(context.channel, false)
        if closeAfterResponse {
            let loopBound = NIOLoopBound(context, eventLoop: context.eventLoop)
            context.writeAndFlush(data).always { _ in loopBound.value.close(promise: nil) }.cascade(to: promise)
        } else {
            context.write(data, promise: promise)
        }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // The client closed its side: nothing more will come, and nothing sent will be read.
        if let event = event as? ChannelEvent, event == .inputClosed {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}

/// Reads each request head's version and `Connection` header before they are lost in translation.
private final class VersionReader: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart

    private let connection: ConnectionHandler

    init(connection: ConnectionHandler) {
        self.connection = connection
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head(let head) = unwrapInboundIn(data) { connection.closeAfterResponse = !head.isKeepAlive }
        context.fireChannelRead(data)
    }
}
