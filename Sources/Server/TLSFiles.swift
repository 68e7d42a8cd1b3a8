import Runtime
import HummingbirdHTTP2

/// The PEM files of the server's certificate chain and private key.
public struct TLSFiles: Sendable, Equatable {
    public var certificate: String
    public var key: String

    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }

    /// Reads both files, so a bad one is reported before anything starts.
    public func check() throws(ServerError) {
        _ = try configuration()
    }

    /// A TLS server configuration offering HTTP/2 and HTTP/1.1.
    func configuration() throws(ServerError) -> TLSConfiguration {
        var contents: [[UInt8]] = []
        for (option, path) in [("--tls-cert", certificate), ("--tls-key", key)] {
            do throws(RegularFile.Problem) {
                contents.append(try RegularFile.read(path, limit: 1 << 20))
            } catch {
                switch error {
                case .unreadable:
                    throw ServerError.tls("\(option) \(path) cannot be read: check the path and its permissions")
                case .notRegular: throw ServerError.tls("\(option) \(path) is not a regular file")
                case .tooLarge: throw ServerError.tls("\(option) \(path) is larger than 1 MiB: not a PEM file")
                }
            }
        }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(contents[0])
        } catch {
            throw ServerError.tls("--tls-cert \(certificate) is not a PEM certificate (\(error))")
        }
        guard !chain.isEmpty else { throw ServerError.tls("--tls-cert \(certificate) holds no certificate") }
        let privateKey: NIOSSLPrivateKey
        do {
            privateKey = try NIOSSLPrivateKey(bytes: contents[1], format: .pem)
        } catch {
            throw ServerError.tls("--tls-key \(key) is not a PEM private key (\(error))")
        }
        return TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
    }
}
