import FoundationEssentials
import HLS
import HLSModel
import Hummingbird

/// The files of `web/`, compiled into the binary by the WebAssets build plugin, offered to
/// Hummingbird's FileMiddleware (which does the ETag, conditional and range handling).
struct EmbeddedFiles: FileProvider {
    struct FileAttributes: FileMiddlewareFileAttributes {
        var isFolder: Bool { false }
        let size: Int
        /// The process start: a new binary is a new process, so a changed page gets a new ETag.
        let modificationDate: Date
    }

    let files: [String: [UInt8]]
    let loadedAt = Date()
    /// Added to the head of every page with a player.
    let playerPreloads: String
    /// The twin origins' addresses (`--pathway`): where the pages' player may fetch the stream from besides this server.
    let streamSources: [String]

    init(files: [String: [UInt8]] = WebAssets.files, streamSources: [String] = []) {
        self.files = files
        self.streamSources = streamSources
        playerPreloads = Self.playerPreloads(of: files)
    }

    /// The file for a request path like `/player.js`.
    func getFileIdentifier(_ path: String) -> String? {
        let name = path.hasPrefix("/") ? String(path.dropFirst()) : path
        return files[name] == nil ? nil : name
    }

    func getAttributes(id: String) async throws -> FileAttributes? {
        files[id].map { FileAttributes(size: $0.count, modificationDate: loadedAt) }
    }

    func loadFile(id: String, context: some RequestContext) async throws -> ResponseBody {
        .init(byteBuffer: ByteBuffer(bytes: files[id] ?? []))
    }

    func loadFile(id: String, range: ClosedRange<Int>, context: some RequestContext) async throws -> ResponseBody {
        let bytes = files[id] ?? []
        let clamped = range.clamped(to: 0...max(0, bytes.count - 1))
        return .init(byteBuffer: ByteBuffer(bytes: bytes.isEmpty ? [] : Array(bytes[clamped])))
    }

    /// Who may show a page in a frame.
    enum Framing {
        /// No one: the channel list and the watch page.
        case none
        /// Any site: the embed page is made for other sites' iframes.
        case anySite
    }

    /// A page as a response of its own, for routes like `/watch/<channel>`; 404 for a channel
    /// name that cannot exist, so a page never runs on a made-up name.
    ///
    /// The pages load only their own scripts and styles: the policy forbids inline and foreign
    /// code, so markup slipped into a page could not run. `head`, markup made from checked values
    /// only (the watch page's link-preview tags), goes at the end of the page's head.
    ///
    /// A page that plays (``playerPages``) also preloads every module of the player, so the
    /// browser fetches them at once rather than one import after another.
    func page(_ name: String, framing: Framing, head: String = "") throws -> Response {
        let ancestors = framing == .none ? "'none'" : "*"
        let stream = (["'self'"] + streamSources).joined(separator: " ")
        return Response(
            status: .ok,
            headers: [
                .contentType: "text/html; charset=utf-8", .cacheControl: "no-cache",
                .contentSecurityPolicy:
                    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                    + "media-src \(stream) blob:; connect-src \(stream); object-src 'none'; base-uri 'none'; "
                    + "form-action 'none'; frame-ancestors \(ancestors)",
            ],
            body: .init(byteBuffer: ByteBuffer(bytes: html(of: name, head: head))))
    }

    /// The page's bytes as served: with the player's preloads where it plays, then `head`.
    func html(of name: String, head: String = "") -> [UInt8] {
        Self.inserting((Self.playerPages.contains(name) ? playerPreloads : "") + head, into: files[name] ?? [])
    }

    /// The pages with a player.
    static let playerPages: Set<String> = ["watch.html", "embed.html", "replay.html"]

    /// `<link rel="modulepreload">` for each module of `web/player/`.
    static func playerPreloads(of files: [String: [UInt8]]) -> String {
        files.keys.filter { $0.hasPrefix("player/") && $0.hasSuffix(".js") }.sorted()
            .map { "<link rel=\"modulepreload\" href=\"/web/\($0)\">\n" }.joined()
    }

    static func inserting(_ head: String, into page: [UInt8]) -> [UInt8] {
        guard !head.isEmpty else { return page }
        var text = String(decoding: page, as: UTF8.self)
        guard let end = text.firstRange(of: "</head>") else { return page }
        text.insert(contentsOf: head, at: end.lowerBound)
        return Array(text.utf8)
    }
}
