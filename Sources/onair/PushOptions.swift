import ArgumentParser
import FoundationEssentials
import Push
import enum Runtime.RegularFile

struct PushOptions: ParsableArguments {
    @Option(
        name: .customLong("push"),
        help: ArgumentHelp(
            "Also send the stream to DESTINATION (repeatable): http(s)://HOST/PATH/ (an HTTP ingest: PUT and "
                + "DELETE), s3://BUCKET/PREFIX/ (credentials from AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, endpoint "
                + "from AWS_ENDPOINT_URL, region from AWS_REGION), rtmp(s)://HOST/APP/KEY or "
                + "srt://HOST:PORT[?streamid=ID&passphrase=SECRET] (MPEG-TS to an SRT listener). @FILE reads it "
                + "from a file (a key or a password stays out of the process list).",
            valueName: "destination"))
    var destinations: [String] = []

    @Option(
        name: .customLong("push-header"),
        help: ArgumentHelp(
            "A header sent with every request to the http(s) destinations (repeatable), e.g. "
                + "'Authorization: Bearer TOKEN'; @FILE reads it from a file. Default: $ONAIR_PUSH_HEADER.",
            valueName: "'Name: value'"))
    var headers: [String] = []

    @Option(
        name: .customLong("push-ca"),
        help: ArgumentHelp(
            "Trust the certificate authorities in FILE (PEM) for https:// and rtmps:// destinations, besides the "
                + "system's (a private CA, or a self-signed ingest). Certificates are always verified.",
            valueName: "file"))
    var certificateAuthorities: String?

    /// Whom the destinations' TLS trusts: the system's authorities, and `--push-ca`'s.
    var trust: PushTrust { PushTrust(authorities: certificateAuthorities) }

    func validate() throws {
        _ = try parsed(environment: ProcessInfo.processInfo.environment)
        if let certificateAuthorities {
            guard let bytes = try? RegularFile.read(certificateAuthorities, limit: 1 << 20),
                String(decoding: bytes, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----")
            else {
                throw ValidationError("--push-ca \(certificateAuthorities) is not a readable PEM file of certificates")
            }
        }
    }

    /// Refuses an http(s) destination that is this process's own server (`host`:`port`), which
    /// would never take the push: `refusal` says so for the command.
    /// Compared by the addresses the names resolve to (``OwnAddresses``), looked up only for a
    /// destination on the server's port.
    func checkNotPushing(toHost host: String, port: Int, refusal: (String, Int) -> String) throws {
        for case .http(let base, _) in try parsed(environment: ProcessInfo.processInfo.environment) {
            let destinationPort = base.port ?? (base.scheme?.lowercased() == "https" ? 443 : 80)
            guard destinationPort == port, let destinationHost = base.host,
                OwnAddresses.reach(destinationHost, server: host)
            else { continue }
            throw ValidationError(refusal(base.absoluteString, port))
        }
    }

    /// The destinations, read and checked: one line for the first that cannot work.
    func parsed(environment: [String: String]) throws -> [PushDestination] {
        let given = headers.isEmpty ? environment["ONAIR_PUSH_HEADER"].map { [$0] } ?? [] : headers
        let headerTexts = try given.map { try SecretText.resolve($0, option: "--push-header") }
        let destinationTexts = try destinations.map { try SecretText.resolve($0, option: "--push") }
        do throws(PushDestination.Refusal) {
            var parsedHeaders: [PushDestination.Header] = []
            for header in headerTexts { parsedHeaders.append(try PushDestination.header(header)) }
            var result: [PushDestination] = []
            for text in destinationTexts {
                result.append(try PushDestination.parse(text, headers: parsedHeaders, environment: environment))
            }
            if !headers.isEmpty, !result.contains(where: { if case .http = $0 { true } else { false } }) {
                throw PushDestination.Refusal(description: "--push-header is only for http(s) --push destinations")
            }
            let names = result.map(\.description)
            if let repeated = names.first(where: { name in names.filter { $0 == name }.count > 1 }) {
                throw PushDestination.Refusal(description: "--push \(repeated) is given twice")
            }
            return result
        } catch {
            throw ValidationError(error.description)
        }
    }
}

/// `--no-serve`: `onair publish` without its built-in server.
struct ServingSwitch: ParsableArguments {
    @Flag(
        name: .customLong("no-serve"),
        help: ArgumentHelp("Do not start the built-in HTTP server: publish to the --push destinations only."))
    var noServe = false
}
