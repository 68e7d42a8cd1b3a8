import AsyncHTTPClient
import Foundation
import HLS
import Media
import NIOCore
import NIOHTTP1
import NIOSSL

/// Outgoing HTTP for the push sinks: one keep-alive client shared by every destination, used from
/// the sinks' own threads, each request with a deadline.
final class HTTPTransport: Sendable {
    static let shared = HTTPTransport()

    private let client: HTTPClient

    init() {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(3), read: .seconds(10)),
            connectionPool: .init(idleTimeout: .seconds(60)))
        // Keep-alive HTTP/1.1, one request at a time per connection, as ingest points expect it
        // (nginx's WebDAV and CDN ingests speak it; the sink sends one file at a time anyway).
        configuration.httpVersion = .http1Only
        if let authorities = PushTrust.authorities {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(authorities)]
            configuration.tlsConfiguration = tls
        }
        client = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// Sends one request and waits for its answer (on a sink's thread, never an event loop).
    func send(
        _ method: HTTPMethod, url: String, headers: [(String, String)], body: [UInt8]?, timeout: Double
    ) throws(StoreFailure) {
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(
                url: url, method: method, headers: HTTPHeaders(headers),
                body: body.map { .byteBuffer(ByteBuffer(bytes: $0)) })
        } catch {
            throw .unreachable("\(error)")
        }
        let response: HTTPClient.Response
        do {
            response = try client.execute(request: request, deadline: .now() + .milliseconds(Int64(timeout * 1000)))
                .wait()
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
            throw .unreachable(
                "not sent within \(String(fixed: timeout, decimals: 1)) s (slower than the stream, or no answer)")
        } catch let error as HTTPClientError where error == .connectTimeout {
            throw .unreachable("connecting timed out")
        } catch {
            throw .unreachable(Self.reason(error))
        }
        guard (200..<300).contains(Int(response.status.code)) else {
            let said = response.body.flatMap(Self.message(in:)).map { ": " + $0 } ?? ""
            throw .status(Int(response.status.code), response.status.reasonPhrase + said)
        }
    }

    /// What the server said of a refusal: the message of Hummingbird's (and onair serve's) JSON
    /// error, or the first line of a plain one; at most 300 characters, printable only.
    static func message(in body: ByteBuffer) -> String? {
        let bytes = Array(body.readableBytesView.prefix(4096))
        var text = String(decoding: bytes, as: UTF8.self)
        if let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            let error = object["error"] as? [String: Any], let message = error["message"] as? String
        {
            text = message
        } else if bytes.first == UInt8(ascii: "<") {
            return nil  // a web server's HTML page says nothing the status does not
        }
        let line = String(text.split(whereSeparator: \.isNewline).first ?? "").filter { $0.isASCII && !$0.isNewline }
        let trimmed = line.prefix(300).trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty ? nil : trimmed
    }

    /// "connection refused" rather than a type dump.
    private static func reason(_ error: any Error) -> String {
        let text = "\(error)"
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("remoteConnectionClosed") || text.contains("Connection reset") {
            return "the connection was closed"
        }
        return text
    }
}
