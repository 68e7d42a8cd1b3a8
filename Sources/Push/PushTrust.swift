import FoundationEssentials
import Synchronization

/// Whom the push destinations' TLS trusts (`--push-ca FILE`): the system's certificate authorities,
/// and those of FILE (PEM) besides, for https:// ingests and rtmps:// alike. Peers are always
/// verified, RTMPS included (libavformat's TLS does not verify unless told to). Set once at start,
/// before the first destination connects.
public enum PushTrust {
    private static let extra = Mutex<String?>(nil)

    /// Trusts the certificate authorities in `file` (PEM) besides the system's.
    public static func trust(authoritiesIn file: String?) {
        extra.withLock { $0 = file }
    }

    /// The file of extra authorities, if any.
    public static var authorities: String? { extra.withLock { $0 } }
}
