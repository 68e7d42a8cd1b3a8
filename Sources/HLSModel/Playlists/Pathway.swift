/// One origin a player may fetch a channel from, for players to fail over between twins without an
/// edge: a content-steering Pathway (`PATHWAY-ID`) and the address of its server. Every twin is
/// given the same list, so every twin serves the same multivariant playlist, naming all of them.
public struct Pathway: Sendable, Equatable {
    /// The PATHWAY-ID: 1 to 32 of `A-Z a-z 0-9 . - _`, as the HLS specification allows.
    public var id: String
    /// The server's address as viewers reach it: `http://a.example:8080`, with a path when it is
    /// mounted under one (`https://example.com/a`); no trailing slash, no query.
    public var base: String

    public init(id: String, base: String) {
        self.id = id
        self.base = base
    }

    /// `NAME=URL`, as `--pathway` takes it.
    public static func parse(_ text: String) throws(SettingError) -> Pathway {
        guard let equals = text.firstIndex(of: "=") else { throw .pathwayNotNameAndURL(text) }
        let name = String(text[..<equals])
        let url = String(text[text.index(after: equals)...])
        guard (1...32).contains(name.utf8.count), name.utf8.allSatisfy(isNameByte) else { throw .pathwayBadName(name) }
        guard let base = normalizedBase(url) else { throw .pathwayBadURL(url) }
        return Pathway(id: name, base: base)
    }

    /// A list `--pathway` may give: two or more, names and servers all different.
    public static func check(_ pathways: [Pathway]) throws(SettingError) {
        guard pathways.count >= 2 else { throw .pathwayAlone }
        for (index, pathway) in pathways.enumerated() {
            for earlier in pathways[..<index] {
                if earlier.id == pathway.id { throw .pathwayRepeatedName(pathway.id) }
                if earlier.server == pathway.server { throw .pathwaySameServer(earlier.id, pathway.id) }
            }
        }
    }

    /// Scheme, host and port as given (`http://a.example:8080`): a web page's source expression.
    public var origin: String {
        let scheme = base.hasPrefix("https://") ? "https://" : "http://"
        return scheme + base.dropFirst(scheme.count).prefix { $0 != "/" }
    }

    /// The host (without an IPv6 address's brackets) and port a connection to the server goes to.
    public var hostAndPort: (host: String, port: Int) {
        // `server` always spells the port out: `http://host:80`, `https://[::1]:8443`.
        let authority = server.drop { $0 != "/" }.dropFirst(2)
        let colon = authority.lastIndex(of: ":") ?? authority.endIndex
        var host = authority[..<colon]
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        return (String(host), Int(authority[colon...].dropFirst()) ?? 80)
    }

    /// Scheme, host and port, the port spelled out: what tells two servers apart.
    var server: String {
        let scheme = base.hasPrefix("https://") ? "https" : "http"
        let rest = base.dropFirst(scheme.count + 3)
        let authority = rest.prefix { $0 != "/" }.lowercased()
        let hasPort =
            authority.lastIndex(of: ":").map { authority[authority.index(after: $0)...] }
            .map { !$0.isEmpty && $0.allSatisfy(\.isNumber) && !authority.hasSuffix("]") } ?? false
        return scheme + "://" + authority + (hasPort ? "" : scheme == "https" ? ":443" : ":80")
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// The URL without its trailing slashes, or nil when it is not `http(s)://host[:port][/path]`.
    private static func normalizedBase(_ url: String) -> String? {
        guard let scheme = ["http://", "https://"].first(where: { url.lowercased().hasPrefix($0) }) else { return nil }
        var rest = Substring(url.dropFirst(scheme.count))
        while rest.hasSuffix("/") { rest = rest.dropLast() }
        let authority = rest.prefix { $0 != "/" }
        let path = rest.dropFirst(authority.count)
        let host: Substring
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            host = authority[..<colon]
            guard let port = Int(authority[authority.index(after: colon)...]), (1...65535).contains(port) else {
                return nil
            }
        } else {
            host = authority
        }
        let hostBytes: (UInt8) -> Bool = { byte in
            isNameByte(byte) || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]") || byte == UInt8(ascii: ":")
        }
        let pathBytes: (UInt8) -> Bool = { byte in
            isNameByte(byte) || byte == UInt8(ascii: "/") || byte == UInt8(ascii: "~")
        }
        guard !host.isEmpty, host.utf8.allSatisfy(hostBytes), path.utf8.allSatisfy(pathBytes),
            !path.contains("//")
        else { return nil }
        return scheme + rest
    }
}

extension MultivariantPlaylist {
    /// The same presentation offered on every pathway: each variant, I-frame stream, audio and
    /// subtitle rendition once per pathway, at that server's address (`channelPath` is where the
    /// channel's relative URIs start, `/live/demo/`), each pathway's sound and captions in groups of
    /// their own (a group belongs to one pathway), and an `EXT-X-CONTENT-STEERING` tag naming the steering manifest and the first
    /// pathway. Players that know content steering follow its priority and move to the next
    /// pathway when one fails; others see redundant variant streams.
    public func steered(over pathways: [Pathway], channelPath: String, steeringURI: String) -> MultivariantPlaylist {
        guard let first = pathways.first else { return self }
        func address(_ uri: String, on pathway: Pathway) -> String {
            if uri.contains("://") { return uri }
            return pathway.base + (uri.hasPrefix("/") ? uri : channelPath + uri)
        }
        func group(_ id: String?, on pathway: Pathway) -> String? { id.map { "\($0)-\(pathway.id)" } }
        var playlist = self
        playlist.variants = pathways.flatMap { pathway in
            variants.map { variant in
                var variant = variant
                variant.uri = address(variant.uri, on: pathway)
                variant.audioGroup = group(variant.audioGroup, on: pathway)
                variant.subtitlesGroup = group(variant.subtitlesGroup, on: pathway)
                variant.pathwayID = pathway.id
                return variant
            }
        }
        /// Each rendition once per pathway, at its server, in that pathway's copy of its group.
        func renditions<Rendition>(
            _ list: [Rendition], uri: WritableKeyPath<Rendition, String>, group id: WritableKeyPath<Rendition, String>
        ) -> [Rendition] {
            pathways.flatMap { pathway in
                list.map { rendition in
                    var rendition = rendition
                    rendition[keyPath: uri] = address(rendition[keyPath: uri], on: pathway)
                    rendition[keyPath: id] = "\(rendition[keyPath: id])-\(pathway.id)"
                    return rendition
                }
            }
        }
        playlist.audio = renditions(audio, uri: \.uri, group: \.groupID)
        playlist.subtitles = renditions(subtitles, uri: \.uri, group: \.groupID)
        playlist.iFrameStreams = pathways.flatMap { pathway in
            iFrameStreams.map { stream in
                var stream = stream
                stream.uri = address(stream.uri, on: pathway)
                stream.pathwayID = pathway.id
                return stream
            }
        }
        playlist.steering = .init(serverURI: steeringURI, pathwayID: first.id)
        return playlist
    }
}

/// The steering manifest a player reloads every `TTL` seconds (HLS content steering, version 1):
/// the pathways in the order to use them, and where to ask next.
///
/// Players differ in what they do when the origin they play from dies. onair's player and hls.js
/// move to a twin by themselves; Shaka Player passes over the failed server and takes the next
/// location; Video.js (VHS 3) stays on the dead pathway until a steering manifest names another
/// first. So the manifest is short-lived; it ranks the pathways found down last (the origins watch
/// each other); and it is never read from the origin the player plays from: its `RELOAD-URI`
/// names a twin's server, which is up when the player's own origin dies, and never one found down:
/// with its twin down, a player is sent back to its own. It keeps a player on the pathway it
/// reports (`_HLS_pathway`) while that one is up, rather than moving players back and forth.
public enum SteeringManifest {
    /// How long a player keeps a manifest before asking again, in seconds: the longest a player
    /// that waits for the manifest to move (Video.js) goes on from its buffer after its origin dies.
    public static let timeToLive = 1

    /// The answer to a player on pathway `current` (nil, or a name not in `pathways`, for one
    /// that has not said), with the pathways in `down` found not answering: those up first, its
    /// own first among them, each group in the order given; the next reload at `path`
    /// (`/steering/<channel>`) on the first of them that is up and not its own (its own when
    /// no other is up).
    public static func answer(pathways: [Pathway], current: String?, down: Set<String> = [], path: String) -> String {
        let up = pathways.filter { !down.contains($0.id) }
        let own = up.first { $0.id == current }
        let ranked =
            (own.map { [$0] } ?? []) + up.filter { $0.id != own?.id } + pathways.filter { down.contains($0.id) }
        let playing = pathways.first { $0.id == current } ?? ranked.first
        // A twin that is up; else its own, when the twins are all down (never one found down while
        // another answers: a player told to ask a dead origin asks it every `TTL` and hears nothing).
        let reload = up.first { $0.id != playing?.id } ?? up.first ?? ranked.first { $0.id != playing?.id }
        return render(priority: ranked.map(\.id), reloadURI: reload.map { $0.base + path })
    }

    /// The manifest's JSON, keys in the specification's order.
    public static func render(priority: [String], reloadURI: String?) -> String {
        let names = priority.map { "\"\($0)\"" }.joined(separator: ",")
        let reload = reloadURI.map { ",\"RELOAD-URI\":\"\($0)\"" } ?? ""
        return "{\"VERSION\":1,\"TTL\":\(timeToLive)\(reload),\"PATHWAY-PRIORITY\":[\(names)]}\n"
    }
}
