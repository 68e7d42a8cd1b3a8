import Runtime
import HummingbirdHTTP2
import Media

/// The PEM files of the server's certificate chain and private key.
public struct TLSFiles: Sendable, Equatable {
    public var certificate: String
    public var key: String

    public init(certificate: String, key: String) {
        self.certificate = certificate
        self.key = key
    }

    /// Reads both files, so a bad one is reported before anything starts.
    public func check() throws(TLSProblem) {
        _ = try configuration()
    }

    /// A TLS server configuration offering HTTP/2 and HTTP/1.1.
    func configuration() throws(TLSProblem) -> TLSConfiguration {
        var contents: [[UInt8]] = []
        for (option, path) in [("--tls-cert", certificate), ("--tls-key", key)] {
            do throws(RegularFile.Problem) {
                contents.append(try RegularFile.read(path, limit: 1 << 20))
            } catch {
                switch error {
                case .unreadable:
                    throw TLSProblem(message: "\(option) \(path) cannot be read: check the path and its permissions")
                case .notRegular: throw TLSProblem(message: "\(option) \(path) is not a regular file")
                case .tooLarge: throw TLSProblem(message: "\(option) \(path) is larger than 1 MiB: not a PEM file")
                }
            }
        }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(contents[0])
        } catch {
            throw TLSProblem(message: "--tls-cert \(certificate) is not a PEM certificate (\(error))")
        }
        guard !chain.isEmpty else { throw TLSProblem(message: "--tls-cert \(certificate) holds no certificate") }
        let privateKey: NIOSSLPrivateKey
        do {
            privateKey = try NIOSSLPrivateKey(bytes: contents[1], format: .pem)
        } catch {
            throw TLSProblem(message: "--tls-key \(key) is not a PEM private key (\(error))")
        }
        return TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(privateKey))
    }
}

/// A certificate or key the server cannot use.
public struct TLSProblem: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
