import Foundation
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

    init(files: [String: [UInt8]] = WebAssets.files) {
        self.files = files
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

    /// A page as a response of its own, for routes like `/watch/<channel>`.
    func page(_ name: String) -> Response {
        Response(
            status: .ok,
            headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-cache"],
            body: .init(byteBuffer: ByteBuffer(bytes: files[name] ?? [])))
    }
}
