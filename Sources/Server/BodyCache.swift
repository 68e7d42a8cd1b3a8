import CompressNIO
import NIOCore
import Synchronization

/// Response bodies ready to send, so the files every viewer asks for (the playlists and the
/// newest segments) are neither copied into a buffer nor gzip'd again on each request. An entry
/// is kept while the store hands out the same bytes (a changed playlist is new bytes); the
/// oldest go first once the entries pass `limit` bytes, so it costs at most that much memory.
final class BodyCache: Sendable {
    private struct Entry {
        var source: [UInt8]
        var plain: ByteBuffer
        var gzipped: ByteBuffer?
        var age: Int
    }

    private struct State {
        var entries: [String: Entry] = [:]
        var bytes = 0
        var clock = 0
    }

    private let state = Mutex(State())
    let limit: Int

    init(limit: Int = 4 << 20) {
        self.limit = limit
    }

    /// The body for `bytes` of file `key`, gzip'd when asked.
    func body(for key: String, bytes: [UInt8], gzip: Bool) throws -> ByteBuffer {
        let cached: Entry? = state.withLock { state in
            // Arrays sharing their storage compare equal at once: an unchanged file costs nothing here.
            guard var entry = state.entries[key], entry.source == bytes else { return nil }
            state.clock += 1
            entry.age = state.clock
            state.entries[key] = entry
            return entry
        }
        if let cached {
            if !gzip { return cached.plain }
            if let gzipped = cached.gzipped { return gzipped }
        }
        var entry = cached ?? Entry(source: bytes, plain: ByteBuffer(bytes: bytes), gzipped: nil, age: 0)
        if gzip {
            var copy = entry.plain
            entry.gzipped = try copy.compress(with: .gzip())
        }
        store(entry, as: key)
        return gzip ? entry.gzipped! : entry.plain
    }

    private func store(_ entry: Entry, as key: String) {
        let size = entry.plain.readableBytes + (entry.gzipped?.readableBytes ?? 0)
        guard size <= limit / 4 else { return }
        state.withLock { state in
            if let old = state.entries[key] {
                state.bytes -= old.plain.readableBytes + (old.gzipped?.readableBytes ?? 0)
            }
            state.clock += 1
            var entry = entry
            entry.age = state.clock
            state.entries[key] = entry
            state.bytes += size
            while state.bytes > limit, let oldest = state.entries.min(by: { $0.value.age < $1.value.age }) {
                state.entries[oldest.key] = nil
                state.bytes -= oldest.value.plain.readableBytes + (oldest.value.gzipped?.readableBytes ?? 0)
            }
        }
    }
}
