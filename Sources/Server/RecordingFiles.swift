import FoundationEssentials
import HLS
import HLSModel
import Hummingbird
import NIOPosix
import Runtime
#if canImport(Glibc)
    import Glibc
#endif

/// Serves one file a recording holds, from the `--record` folder: only a regular file reached
/// without a symbolic link (the file is opened with `O_NOFOLLOW`, each folder on the way looked at
/// with `lstat`), with one byte range per request as RFC 9110 has it (206, or 416 past the end), and
/// read on the thread pool a piece at a time, so a long recording's MP4 is never held in memory.
struct RecordingFiles: Sendable {
    let root: URL
    /// The piece read from the disk at a time.
    static let piece = 256 << 10

    /// The response for a path under `/recordings/` that ``RecordingLibrary/isServable(_:)`` took.
    func response(components: [Substring], range header: String?, head: Bool) async throws -> Response {
        let relative = components.map(String.init)
        let root = root
        let opened = try await NIOThreadPool.singleton.runIfActive { OpenFile(root: root, relative: relative) }
        guard let file = opened else { throw HTTPError(.notFound, message: "No such file.") }
        var headers: HTTPFields = [.contentType: Self.contentType(of: relative.last ?? ""), .acceptRanges: "bytes"]
        let status: HTTPResponse.Status
        let (first, length): (Int, Int)
        switch ByteRange(header: header, size: file.size) {
        case .whole:
            status = .ok
            (first, length) = (0, file.size)
        case .part(let range):
            status = .partialContent
            (first, length) = (range.lowerBound, range.count)
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(file.size)"
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(file.size)"
            headers[.contentLength] = "0"
            return Response(status: .rangeNotSatisfiable, headers: headers)
        }
        headers[.contentLength] = String(length)
        guard !head, length > 0 else { return Response(status: status, headers: headers) }
        let body = ResponseBody(contentLength: length) { writer in
            var offset = first
            while offset < first + length {
                let count = min(Self.piece, first + length - offset)
                let start = offset
                let piece = try await NIOThreadPool.singleton.runIfActive { file.read(at: start, count: count) }
                // The file shrank under the reader: the response cannot be what its length said.
                guard !piece.isEmpty else { throw HTTPError(.internalServerError) }
                try await writer.write(ByteBuffer(bytes: piece))
                offset += piece.count
            }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }

    static func contentType(of name: String) -> String {
        if name.hasSuffix(".m3u8") { return "application/vnd.apple.mpegurl" }
        if name.hasSuffix(".m4s") { return "video/iso.segment" }
        if name.hasSuffix(".ts") { return "video/mp2t" }
        return "video/mp4"
    }
}

/// A regular file of a recording, open for reading; closed when the last reader lets go.
final class OpenFile: Sendable {
    let descriptor: Int32
    let size: Int

    /// Nil when a folder on the way or the file is a symbolic link, or the file is not a regular one.
    init?(root: URL, relative: [String]) {
        var folder = root
        for name in relative.dropLast() {
            folder = folder.appendingPathComponent(name)
            guard RegularFile.isFolder(folder.path) else { return nil }
        }
        guard let file = RegularFile.openForReading(folder.appendingPathComponent(relative.last ?? "").path) else {
            return nil
        }
        descriptor = file.descriptor
        size = file.size
    }

    /// Up to `count` bytes from `offset`; fewer at the end of the file. Wraps `pread`.
    func read(at offset: Int, count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + filled, count - filled, off_t(offset + filled))
            }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { break }
            filled += got
        }
        return Array(bytes[0..<filled])
    }

    deinit { close(descriptor) }
}
