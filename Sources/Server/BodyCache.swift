import CompressNIO
import HLS
import HLSModel
import NIOCore
import Synchronization

/// Which body a request gets: its file, and each part of the request that changes the bytes (a
/// delta update, a rewind's start or delay, a session's multivariant playlist, a private channel's
/// token carried into the playlist's URIs). What waits without changing them (a blocking reload's
/// `_HLS_msn`) is not in it.
struct BodyKey: Hashable, Sendable {
    var channel: ChannelName
    var rendition: String?
    var file: String
    var skip: LiveRequest.Skip?
    var from: Int?
    var delay: Int?
    var session: String?
    var token: String?

    /// The key of `file` as `request` gets it; `carriesToken`: the file's bytes carry the request's token.
    init(_ request: LiveRequest, file: LiveFile, carriesToken: Bool) {
        channel = request.channel
        rendition = request.rendition
        self.file = request.file
        skip = request.skip
        from = request.from
        delay = request.delay
        session = file.perSession ? request.session : nil
        token = carriesToken ? request.token : nil
    }

    /// A key of a file by name alone.
    init(channel: ChannelName, file: String) {
        self.channel = channel
        self.file = file
    }
}

/// Response bodies ready to send, so the files every viewer asks for (the playlists and the
/// newest segments) are neither copied into a buffer nor gzip'd again on each request. An entry
/// is kept while the store hands out the same bytes (a changed playlist is new bytes); the least
/// recently used go first once the entries pass `limit` bytes, so it costs at most that much
/// memory. Every look-up, store and eviction is O(1): a flood of distinct keys (a session or a
/// `delay=` per request) costs each request the same as one key does.
final class BodyCache: Sendable {
    struct Entry {
        /// The channel's bytes the body was made from.
        var source: [UInt8]
        var plain: ByteBuffer
        var gzipped: ByteBuffer?

        var size: Int { plain.readableBytes + (gzipped?.readableBytes ?? 0) }
    }

    private let state: Mutex<RecencyList<BodyKey, Entry>>
    let limit: Int

    init(limit: Int = 4 << 20) {
        self.limit = limit
        state = Mutex(RecencyList())
    }

    /// Entries held now.
    var count: Int { state.withLock { $0.count } }

    /// The body of file `key` made from `source`, the channel's bytes of it, gzip'd when asked:
    /// `render` (the request's decorations of the source, when it has any) runs only when the
    /// entry for `key` was made from other bytes, or there is none.
    func body(
        for key: BodyKey, source: [UInt8], gzip: Bool, render: (() throws -> [UInt8])? = nil
    ) throws -> ByteBuffer {
        // Arrays sharing their storage compare equal at once: an unchanged file costs nothing here.
        let cached: Entry? = state.withLock { list in
            guard let entry = list.use(key), entry.source == source else { return nil }
            return entry
        }
        if let cached {
            if !gzip { return cached.plain }
            if let gzipped = cached.gzipped { return gzipped }
        }
        var entry = try cached ?? Entry(source: source, plain: ByteBuffer(bytes: render?() ?? source), gzipped: nil)
        if gzip {
            var copy = entry.plain
            entry.gzipped = try copy.compress(with: .gzip())
        }
        store(entry, as: key)
        return gzip ? entry.gzipped! : entry.plain
    }

    private func store(_ entry: Entry, as key: BodyKey) {
        guard entry.size <= limit / 4 else { return }
        state.withLock { list in
            list.insert(entry, for: key, size: entry.size)
            while list.bytes > limit, list.removeLeastRecent() {}
        }
    }
}
