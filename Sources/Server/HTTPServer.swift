import HLS
public import Hummingbird
import HummingbirdCore
import HummingbirdHTTP2
public import Logging
import Prometheus
public import Origin

/// The built-in HTTP server: playlists and segments from memory, the watch, embed and index
/// pages, and the channel API; as an origin, the ingest its publishers push to.
public enum HTTPServer {
    /// What an origin adds: where pushed channels are built, and who may push.
    public struct Ingest: Sendable {
        public var channels: OriginChannels
        public var tokens: IngestTokens

        public init(channels: OriginChannels, tokens: IngestTokens) {
            self.channels = channels
            self.tokens = tokens
        }
    }

    /// The Hummingbird application, ready to run as a Service; `onListening` runs once it accepts
    /// connections. `pathwayHealth`: what a `PathwayWatch` finds of the twins, for the steering manifest.
    public static func application(
        registry: ChannelRegistry, viewers: ViewerRegistry,
        metrics: MetricsEndpoint? = nil, configuration: ServerConfiguration, ingest: Ingest? = nil,
        pathwayHealth: PathwayHealth? = nil, logger: Logger,
        onListening: @escaping @Sendable () async -> Void = {}
    ) throws -> some ApplicationProtocol {
        let router = Router(context: ServerContext.self, options: .autoGenerateHeadEndpoints)
        router.add(
            middleware: RequestGate(
                allowOrigin: configuration.allowOrigin, metrics: metrics.map { _ in RequestMetrics() },
                acceptsIngest: ingest != nil))
        if let ingest {
            IngestRoutes(
                channels: ingest.channels, tokens: ingest.tokens,
                uploads: UploadSlots(sharingConnections: configuration.maxConnections)
            ).register(on: router)
        }
        if let metrics {
            router.get("/metrics") { _, _ in
                metrics.refresh()
                return Response(
                    status: .ok,
                    headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
                    body: .init(byteBuffer: ByteBuffer(bytes: metrics.registry.emitToBuffer())))
            }
        }
        LiveRoutes(
            registry: registry, viewers: viewers, access: configuration.viewerAccess,
            allowOrigin: configuration.allowOrigin, pathways: configuration.pathways, pathwayHealth: pathwayHealth
        ).register(on: router)
        let web = WebRoutes(
            registry: registry, viewers: viewers,
            files: EmbeddedFiles(streamSources: configuration.pathways.map(\.origin)),
            access: configuration.viewerAccess,
            scheme: configuration.scheme)
        web.register(on: router)
        ControlRoutes(registry: registry, token: configuration.controlToken, channels: web.channels).register(
            on: router)
        RecordingRoutes(
            root: configuration.viewerAccess == nil ? configuration.recordings : nil, files: web.files,
            allowOrigin: configuration.allowOrigin
        ).register(on: router)
        // Apple's LL-HLS server profile asks for HTTP/2; it needs TLS, as browsers speak it only over TLS.
        let connections = ConnectionGuard(limit: configuration.maxConnections, bodyGrace: configuration.idleTimeout)
        let http1 = HTTP1Channel.Configuration(idleTimeout: .milliseconds(Int64(configuration.idleTimeout * 1000)))
        let server: HTTPServerBuilder =
            if let tls = configuration.tls {
                try .http2Upgrade(
                    tlsConfiguration: tls.configuration(),
                    configuration: .init(idleTimeout: .seconds(configuration.idleTimeout), streamConfiguration: http1))
            } else {
                .http1(
                    configuration: .init(
                        additionalChannelHandlers: connections.handlers(), idleTimeout: http1.idleTimeout))
            }
        return Application(
            router: router,
            server: server,
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "onair"),
            onServerRunning: { _ in await onListening() },
            logger: logger)
    }
}
