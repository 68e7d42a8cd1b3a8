public import HLS
public import Hummingbird
public import Logging

/// The built-in HTTP server: playlists and segments from memory, and a page listing channels.
public enum HTTPServer {
    /// The Hummingbird application, ready to run as a Service.
    public static func application(
        directory: ChannelDirectory, configuration: ServerConfiguration, logger: Logger
    ) -> some ApplicationProtocol {
        let router = Router()
        router.add(
            middleware: CORSMiddleware(
                allowOrigin: .custom(configuration.allowOrigin), allowMethods: [.get, .head, .options]))
        LiveRoutes(directory: directory).register(on: router)
        IndexPage(directory: directory, configuration: configuration).register(on: router)
        return Application(
            router: router,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "onair"),
            logger: logger)
    }
}
