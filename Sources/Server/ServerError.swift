/// What the server cannot start with: a certificate or key it cannot use, an ingest-token file it
/// cannot read. The one error family of `Server`; a refused request is a `RequestRefusal`, answered
/// with its own HTTP status.
public enum ServerError: Error, Equatable, CustomStringConvertible {
    /// A certificate or key, said with the option that named it.
    case tls(String)
    /// A line of an ingest-token file.
    case ingestTokens(line: Int, reason: String)

    public var description: String {
        switch self {
        case .tls(let message): message
        case .ingestTokens(let line, let reason): "line \(line): \(reason)"
        }
    }
}
