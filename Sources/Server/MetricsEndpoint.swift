public import Prometheus

/// `GET /metrics` in the Prometheus text format: what the registry holds, refreshed first from
/// the counts the broadcast keeps.
public struct MetricsEndpoint: Sendable {
    public let registry: PrometheusCollectorRegistry
    /// Brings the registry up to date; called before each scrape.
    public let refresh: @Sendable () -> Void

    public init(registry: PrometheusCollectorRegistry, refresh: @escaping @Sendable () -> Void) {
        self.registry = registry
        self.refresh = refresh
    }

    /// Prometheus wants `snake_case` names: swift-metrics labels such as `http.server.request.duration`
    /// (Hummingbird's) are written with underscores.
    public static func sanitize(_ name: String, _ labels: [(String, String)]) -> (String, [(String, String)]) {
        let underscored = { (text: String) in String(text.map { $0.isLetter || $0.isNumber ? $0 : "_" }) }
        return (underscored(name), labels.map { (underscored($0.0), $0.1) })
    }
}
