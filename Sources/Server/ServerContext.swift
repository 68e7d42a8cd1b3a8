import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's basics plus the client's address, which
/// tells viewers apart when their player does not say who it is.
struct ServerContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?
    /// Completes when the connection closes: a long response (an event stream) ends with it.
    let connectionClosed: EventLoopFuture<Void>
    /// The connection, for an interim response (`100 Continue`) ahead of the route's own.
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
        connectionClosed = source.channel.closeFuture
        channel = source.channel
    }
}
