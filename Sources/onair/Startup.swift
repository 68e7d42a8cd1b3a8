import FoundationEssentials
import Logging
import Metrics
import Prometheus
import Push
import Server
#if canImport(Glibc)
    import Glibc
#endif

/// What `onair publish` and `onair serve` do before anything starts, the same way for both: the
/// checks of the listening address, which refuse in one line before anything is written; then the
/// process's settings; then logging and metrics, bootstrapped once for the process.
enum Startup {
    /// Refuses, each in one line, a port that is taken (when the command `serves`) and TLS files
    /// that cannot be served (whenever they are given).
    static func checkListening(_ server: ServerOptions, serves: Bool = true) throws {
        if serves, let problem = PortCheck.problem(host: server.host, port: server.port) {
            throw UsageError(
                message:
                    "port \(server.port) on \(server.host) is not available (\(problem)); choose another with --port")
        }
        do throws(ServerError) {
            try server.tls?.check()
        } catch {
            throw UsageError(message: error.description)
        }
    }

    /// The process's settings: with private channels a umask that keeps what this process writes
    /// (rewind windows, recordings, `--hls-dir`) its user's only. Before anything makes a folder or
    /// a file. (Whom pushes trust, `--push-ca`, travels with the destinations: `PushOptions.trust`.)
    static func settle(privateChannels: Bool) {
        if privateChannels { umask(0o077) }
    }

    /// Logging in `format` from `level` up, and the metrics registry `/metrics` serves.
    static func bootstrap(logFormat: LogFormat, logLevel: Logger.Level) -> PrometheusCollectorRegistry {
        LoggingSystem.bootstrap { _ in ConsoleLogHandler(format: logFormat, logLevel: logLevel) }
        let registry = PrometheusCollectorRegistry()
        var metricsFactory = PrometheusMetricsFactory(registry: registry)
        metricsFactory.nameAndLabelSanitizer = MetricsEndpoint.sanitize
        MetricsSystem.bootstrap(metricsFactory)
        return registry
    }
}
