import AsyncHTTPClient
import FoundationEssentials
import HLS
import Media
import NIOCore
import NIOHTTP1
import NIOSSL
import Runtime
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// Outgoing HTTP for the push sinks: one keep-alive client shared by every destination that trusts
/// the same authorities, used from the sinks' own threads, each request with a deadline.
final class HTTPTransport: Sendable {
    /// The client of the destinations that trust `trust`: made once (a process has one `--push-ca`).
    static func shared(trusting trust: PushTrust) -> HTTPTransport {
        clients.withLock { clients in
            if let client = clients[trust] { return client }
            let client = HTTPTransport(trust: trust)
            clients[trust] = client
            return client
        }
    }

    private static let clients = Mutex<[PushTrust: HTTPTransport]>([:])

    private let client: HTTPClient

    /// A kept-alive connection unused this long is closed here: before the server closes it (5 s
    /// in Apache and Varnish, 30 s in `onair serve`, 75 s in nginx), so that a request is not sent
    /// on a connection the server is closing at that very moment.
    static let idleSeconds: Int64 = 4

    private init(trust: PushTrust) {
        var configuration = HTTPClient.Configuration(
            redirectConfiguration: .disallow,
            timeout: .init(connect: .seconds(3), read: .seconds(10)),
            connectionPool: .init(idleTimeout: .seconds(Self.idleSeconds)))
        // Keep-alive HTTP/1.1, one request at a time per connection, as ingest points expect it
        // (nginx's WebDAV and CDN ingests speak it; the sink sends one file at a time anyway).
        configuration.httpVersion = .http1Only
        if let authorities = trust.authorities {
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
        let deadline = NIODeadline.now() + .milliseconds(Int64(timeout * 1000))
        let response: HTTPClient.Response
        do {
            do {
                response = try client.execute(request: request, deadline: deadline).wait()
            } catch let closed where Self.closedUnanswered(closed) && [.PUT, .DELETE].contains(method) {
                // A kept-alive connection the server closed as this request went out (a server
                // whose keep-alive is shorter than ``idleSeconds``, or one that restarted): the
                // request is idempotent, and goes once more, on a new connection.
                response = try client.execute(request: request, deadline: deadline).wait()
            }
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
        if let refusal = try? JSONDecoder().decode(JSONRefusal.self, from: Data(bytes)) {
            text = refusal.error.message
        } else if bytes.first == UInt8(ascii: "<") {
            return nil  // a web server's HTML page says nothing the status does not
        }
        let line = String(text.split(whereSeparator: \.isNewline).first ?? "").filter { $0.isASCII && !$0.isNewline }
        let trimmed = line.prefix(300).trimmingWhitespace()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// A JSON error as Hummingbird and onair serve write it: `{"error":{"message":"…"}}`.
    private struct JSONRefusal: Decodable {
        struct Inner: Decodable { let message: String }
        let error: Inner
    }

    /// The connection ended before any answer came, after the request was sent or while it was:
    /// not a refusal, and not a timeout.
    static func closedUnanswered(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError { return error == .remoteConnectionClosed }
        if let error = error as? IOError { return [ECONNRESET, EPIPE].contains(error.errnoCode) }
        if let error = error as? ChannelError { return error == .ioOnClosedChannel || error == .eof }
        return false
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
