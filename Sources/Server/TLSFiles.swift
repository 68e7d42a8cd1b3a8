import Foundation
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
    public func check() throws(TLSProblem) {
        _ = try configuration()
    }

    /// A TLS server configuration offering HTTP/2 and HTTP/1.1.
    func configuration() throws(TLSProblem) -> TLSConfiguration {
        for (option, path) in [("--tls-cert", certificate), ("--tls-key", key)]
        where !FileManager.default.isReadableFile(atPath: path) {
            throw TLSProblem(message: "\(option) \(path) cannot be read: check the path and its permissions")
        }
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(certificate)
        } catch {
            throw TLSProblem(message: "--tls-cert \(certificate) is not a PEM certificate (\(error))")
        }
        guard !chain.isEmpty else { throw TLSProblem(message: "--tls-cert \(certificate) holds no certificate") }
        let privateKey: NIOSSLPrivateKey
        do {
            privateKey = try NIOSSLPrivateKey(file: key, format: .pem)
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
