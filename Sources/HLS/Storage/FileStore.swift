import FoundationEssentials
public import HLSModel

/// A place that keeps files by path: a folder on this machine's disk (``DiskStore``), an HTTP ingest
/// or an S3-compatible bucket (the Push module's `HTTPIngestStore` and `S3Store`). Every segment
/// destination writes through one: the folder sink, the rewind window, recordings and pushes.
///
/// A file is there whole or not at all (renamed into place, put in one request), and removing what
/// is not there is not a failure. Paths are relative to the store's root (`seg12.m4s`,
/// `720p/media.m3u8`, `demo/2026-11-24T07-05-09Z/init.mp4`); a store that keeps the files' types
/// takes them from the names: media is immutable, playlists change.
public protocol FileStore: Sendable {
    /// Keeps `bytes` as `path`, replacing what was there; a remote store gives up after `timeout` seconds.
    func put(_ path: String, bytes: [UInt8], timeout: Double) throws(StoreFailure)
    /// Keeps as `path` the bytes `body` hands to its argument, in order: a file made a piece at a
    /// time (a recording's playlist of hours), whole or not at all as with the bytes at once.
    func put(_ path: String, timeout: Double, streaming body: StreamedBody) throws(StoreFailure)
    /// Removes `path`.
    func delete(_ path: String, timeout: Double) throws(StoreFailure)
}

/// A file's body made a piece at a time: it hands each piece, in order, to its argument.
public typealias StreamedBody = (_ emit: ([UInt8]) throws(StoreFailure) -> Void) throws(StoreFailure) -> Void

extension FileStore {
    /// A store that sends a file in one request has it whole first.
    public func put(_ path: String, timeout: Double, streaming body: StreamedBody) throws(StoreFailure) {
        var bytes: [UInt8] = []
        try body { piece throws(StoreFailure) in bytes += piece }
        try put(path, bytes: bytes, timeout: timeout)
    }
}

/// Why files were not kept, removed or read as they should be (a store, a recording), and whether
/// trying again may help: the one error family of `HLS` (a refused request is a `LiveFile.Refusal`,
/// which knows its HTTP status).
public enum StoreFailure: Error, Equatable, CustomStringConvertible {
    /// No answer: refused, unresolved, reset, timed out, a TLS failure.
    case unreachable(String)
    /// An HTTP status other than 2xx.
    case status(Int, String)
    /// The disk refused (full, read-only, gone).
    case disk(String)
    /// Files read are not what they should be (a recording's playlists, its media).
    case content(String)

    /// A 5xx, 408, 429, no answer or a disk may pass; another 4xx needs the user (credentials, a path).
    public var isTransient: Bool {
        switch self {
        case .unreachable, .disk: true
        case .content: false
        // 424: the destination lacks files the playlist names (an origin that restarted); they are sent again.
        case .status(let code, _): code >= 500 || code == 408 || code == 424 || code == 429
        }
    }

    public var description: String {
        switch self {
        case .unreachable(let reason), .disk(let reason), .content(let reason): reason
        case .status(let code, let reason): "HTTP \(code)\(reason.isEmpty ? "" : " \(reason)")" + Self.hint(code)
        }
    }

    private static func hint(_ code: Int) -> String {
        switch code {
        case 401, 403: " (check the credentials or the ingest key)"
        case 404: " (check the path or the bucket)"
        case 405: " (the server does not accept PUT here: enable WebDAV PUT/DELETE)"
        case 413: " (the server refuses large bodies: raise client_max_body_size)"
        default: ""
        }
    }
}

extension MediaFileName {
    /// How long a cache may keep the file: media for a year (never rewritten once listed),
    /// playlists as `playlists` says (they change).
    public static func cacheControl(of path: String, playlists: String) -> String {
        let name = MediaFileName(String(path.split(separator: "/").last ?? ""))
        return name?.isPlaylist == false ? "public, max-age=31536000, immutable" : playlists
    }

    /// The MIME type of the file at `path`.
    public static func contentType(of path: String) -> String {
        MediaFileName(String(path.split(separator: "/").last ?? ""))?.contentType ?? "application/octet-stream"
    }
}
