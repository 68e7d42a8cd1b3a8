import Hummingbird
import NIOCore

/// The request context of every route: Hummingbird's basics plus the client's address, which
/// tells viewers apart when their player does not say who it is.
struct ServerContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }
}
