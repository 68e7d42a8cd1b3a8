public import HLS
public import Hummingbird
public import Logging

/// The built-in HTTP server: playlists and segments from memory, the watch, embed and index
/// pages, and the channel API.
public enum HTTPServer {
    /// The Hummingbird application, ready to run as a Service.
    public static func application(
        directory: ChannelDirectory, viewers: ViewerRegistry, configuration: ServerConfiguration, logger: Logger
    ) -> some ApplicationProtocol {
        let router = Router(context: ServerContext.self)
        router.add(
            middleware: CORSMiddleware(
                allowOrigin: .custom(configuration.allowOrigin), allowMethods: [.get, .head, .options]))
        LiveRoutes(directory: directory, viewers: viewers, allowOrigin: configuration.allowOrigin).register(on: router)
        WebRoutes(directory: directory, viewers: viewers, files: EmbeddedFiles()).register(on: router)
        return Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "onair"),
            logger: logger)
    }
}
