public import HLS
public import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
public import Logging

/// The built-in HTTP server: playlists and segments from memory, the watch, embed and index
/// pages, and the channel API.
public enum HTTPServer {
    /// The Hummingbird application, ready to run as a Service.
    public static func application(
        directory: ChannelDirectory, viewers: ViewerRegistry, configuration: ServerConfiguration, logger: Logger
    ) throws -> some ApplicationProtocol {
        let router = Router(context: ServerContext.self)
        router.add(
            middleware: CORSMiddleware(
                allowOrigin: .custom(configuration.allowOrigin), allowMethods: [.get, .head, .options]))
        LiveRoutes(directory: directory, viewers: viewers, allowOrigin: configuration.allowOrigin).register(on: router)
        WebRoutes(directory: directory, viewers: viewers, files: EmbeddedFiles()).register(on: router)
        // Apple's LL-HLS server profile asks for HTTP/2; it needs TLS, as browsers speak it only over TLS.
        let server: HTTPServerBuilder =
            if let tls = configuration.tls { try .http2Upgrade(tlsConfiguration: tls.configuration()) } else {
                .http1()
            }
        return Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "onair"),
            logger: logger)
    }
}
