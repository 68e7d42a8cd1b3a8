/// Whom a push destination's TLS trusts: the system's certificate authorities, and those of a PEM
/// file besides (`--push-ca FILE`), for https:// ingests, S3 endpoints and rtmps:// alike. Peers
/// are always verified, RTMPS included (libavformat's TLS does not verify unless told to). A value
/// that travels with the destinations it applies to, from the command line to each connection.
public struct PushTrust: Sendable, Hashable {
    /// The file of extra authorities (PEM), if any.
    public var authorities: String?

    public init(authorities: String? = nil) {
        self.authorities = authorities
    }

    /// The system's authorities only.
    public static let system = PushTrust()
}
