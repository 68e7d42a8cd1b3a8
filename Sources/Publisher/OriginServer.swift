import FoundationEssentials
import HLS
public import Logging
import Media
import Metrics
public import Prometheus
import Push
import Runtime
public import Server
import ServiceLifecycle
import UnixSignals
public import Origin

/// `onair serve`: the HTTP server alone, as a Low-Latency HLS origin for publishers elsewhere.
/// Channels appear when their publishers push and end when they stop (or go silent); edge caches
/// in front of it carry the viewers.
public struct OriginServer {
    public struct Configuration: Sendable {
        public var server: ServerConfiguration
        public var tokens: IngestTokens
        public var channels: OriginChannels.Settings
        /// Where each channel goes besides its live store (`--push`, `--record`, `--dvr`); its
        /// events are the origin's log lines.
        public var destinations: ChannelDestinations

        public init(
            server: ServerConfiguration, tokens: IngestTokens, channels: OriginChannels.Settings,
            destinations: ChannelDestinations = ChannelDestinations(report: { _, _ in })
        ) {
            self.server = server
            self.tokens = tokens
            self.channels = channels
            self.destinations = destinations
        }
    }

    let configuration: Configuration
    let logger: Logger
    let metrics: PrometheusCollectorRegistry?

    public init(configuration: Configuration, logger: Logger, metrics: PrometheusCollectorRegistry?) {
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
    }

    public func run() async throws {
        let registry = ChannelRegistry()
        let viewers = ViewerRegistry()
        let logger = logger
        var destinations = configuration.destinations
        destinations.report = { code, message in
            logger.log(
                level: code.isProblem ? .warning : .notice, "\(message)", metadata: ["event": "\(code.rawValue)"])
        }
        if let rewind = destinations.rewind {
            DVRFolder.removeAbandoned(in: rewind.root)
            logger.notice(
                "viewers can rewind each channel \(DVRFolder.describe(seconds: rewind.seconds)); the windows are kept in \(rewind.root.path)"
            )
        }
        if !destinations.push.isEmpty {
            logger.notice(
                "pushing each channel on to \(destinations.push.map { "\($0.description)<channel>/" }.joined(separator: ", "))"
            )
        }
        let channels = OriginChannels(
            settings: configuration.channels, listing: registry, outputs: destinations
        ) { change in
            switch change {
            case .live(let name): logger.notice("channel \(name) is live: its publisher is pushing")
            case .ended(let name, let silence):
                logger.notice("channel \(name) ended: no push for \(Int(silence)) s")
            case .removed(let name): logger.info("channel \(name) removed after it ended")
            case .evicted(let name):
                logger.notice("channel \(name) removed before its retention: a new channel needed room")
            case .refused(let name, let reason):
                logger.warning("channel \(name): a second publisher refused (409): \(reason)")
            }
        }
        let metricsEndpoint = metrics.map { registry in
            let gauges = OriginMetrics(channels: channels)
            return MetricsEndpoint(registry: registry, refresh: gauges.refresh)
        }
        var serverLogger = logger
        if serverLogger.logLevel == .info { serverLogger.logLevel = .notice }
        let server = configuration.server
        // With twins named (--pathway), each origin watches them all for the steering manifest.
        let pathwayHealth = server.pathways.isEmpty ? nil : PathwayHealth()
        let (listening, listens) = AsyncStream.makeStream(of: Void.self)
        let application = try HTTPServer.application(
            registry: registry, viewers: viewers, metrics: metricsEndpoint, configuration: server,
            ingest: .init(channels: channels, tokens: configuration.tokens), pathwayHealth: pathwayHealth,
            logger: serverLogger
        ) {
            listens.finish()
            let base = "\(server.scheme)://\(server.displayHost):\(server.port)"
            logger.notice(
                "serving: publishers push to \(base)/ingest/<channel>/ (Authorization: Bearer <ingest token>), viewers watch at \(base)/"
            )
            if server.viewerAccess != nil {
                logger.notice(
                    "channels are private: signed links from \(base)/api/channels with Authorization: Bearer <viewer token>"
                )
            }
        }
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: application), .init(service: Sweeper(channels: channels)),
            .init(service: HeapTrimming(logger: logger)),
        ]
        if let pathwayHealth {
            let watch = PathwayWatch(
                pathways: server.pathways, health: pathwayHealth, listening: listening, logger: logger)
            services.append(.init(service: watch))
        }
        let group = ServiceGroup(
            configuration: .init(
                services: services,
                gracefulShutdownSignals: [.sigterm, .sigint],
                logger: Logger(label: "onair.services", factory: { _ in SwiftLogNoOpLogHandler() })))
        try await group.run()
        channels.close(within: .seconds(10))
    }

    /// Ends silent channels and removes old ones, once a second.
    struct Sweeper: Service {
        let channels: OriginChannels

        func run() async throws {
            while !Task.isCancelled, !Task.isShuttingDownGracefully {
                try? await Task.sleep(for: .seconds(1))
                channels.sweep(now: Double(MediaClock.monotonicNanoseconds()) / 1e9)
            }
        }
    }
}

/// The origin's own gauges: channels hosted, bytes waiting for a playlist, and every byte the
/// channels hold (what --origin-memory bounds).
struct OriginMetrics: Sendable {
    let channels: OriginChannels
    let hosted = Gauge(label: "onair_origin_channels")
    let held = Gauge(label: "onair_origin_held_bytes")
    let memory = Gauge(label: "onair_origin_memory_bytes")

    func refresh() {
        let counts = channels.counts
        hosted.record(counts.channels)
        held.record(counts.heldBytes)
        memory.record(channels.memory)
    }
}
