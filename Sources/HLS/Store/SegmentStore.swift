import Synchronization

/// One channel's published media in memory: the init segment, the segments in the playlist
/// window and the ones that left it but must stay downloadable, and the rendered playlists.
///
/// The packaging thread writes, HTTP handlers read; a mutex (not an actor) because the writer
/// is a plain thread. Playlists are rendered once per change, so a reader never sees half of one.
public final class SegmentStore: Sendable {
    public struct Configuration: Sendable {
        public var channel: String
        public var format: ContainerFormat
        public var segmentDuration: Double
        public var playlistSize: Int
        public var codecs: [String]
        public var width: Int
        public var height: Int
        public var fps: Int
        /// The encoders' target bits per second; audio is 0 for a video-only channel.
        public var videoBitrate: Int
        public var audioBitrate: Int
        /// Low-Latency HLS: each fragment is a part of about this many seconds, listed at once.
        public var partDuration: Double?

        public init(
            channel: String, format: ContainerFormat, segmentDuration: Double, playlistSize: Int,
            codecs: [String], width: Int, height: Int, fps: Int, videoBitrate: Int, audioBitrate: Int,
            partDuration: Double? = nil
        ) {
            self.channel = channel
            self.format = format
            self.segmentDuration = segmentDuration
            self.playlistSize = playlistSize
            self.codecs = codecs
            self.width = width
            self.height = height
            self.fps = fps
            self.videoBitrate = videoBitrate
            self.audioBitrate = audioBitrate
            self.partDuration = partDuration
        }

        /// EXT-X-TARGETDURATION: the segment length rounded up.
        public var targetDuration: Int { Int(segmentDuration.rounded(.up)) }

        /// Bits per second to announce until segments have been measured: the targets plus
        /// container overhead.
        var estimatedBitrate: Int { (videoBitrate + audioBitrate) * 11 / 10 }
    }

    /// A file the store serves.
    public struct File: Sendable {
        public var bytes: [UInt8]
        public var contentType: String
        /// False for playlists, which change; true for segments, which never do once listed.
        public var immutable: Bool
    }

    /// What one change did, for mirrors that follow the store.
    public struct Change: Sendable {
        public var written: [(name: String, bytes: [UInt8])] = []
        public var removed: [String] = []
    }

    struct Part {
        var name: String
        var duration: Double
        var independent: Bool
        var bytes: [UInt8]
    }

    struct Segment {
        var sequence: Int
        var name: String
        var duration: Double
        var programDateTime: Int64
        var bytes: [UInt8]
        /// Media time of its end: how far it is from the live edge.
        var end: Double
        /// Its parts while they are listed or downloadable (Low-Latency HLS).
        var parts: [Part]
        /// Media time after which a segment that left the playlist may be freed.
        var expiresAt: Double?
        /// Its init segment (fMP4).
        var map: String?
        /// The first of a run that continues an earlier one's numbering.
        var discontinuity = false
    }

    struct State {
        /// By name: this run's, and an earlier run's while its segments are held.
        var initSegments: [String: [UInt8]] = [:]
        var openParts: [Part] = []
        var segments: [Segment] = []
        var nextSequence = 0
        /// This run's first segment number: above 0 when it continues an earlier run.
        var firstSequence = 0
        /// Discontinuities that have left the head of the playlist.
        var discontinuitySequence = 0
        /// The next segment follows an earlier run's.
        var nextIsDiscontinuity = false
        /// This run's init segment.
        var initSegmentName: String?
        var ended = false
        /// Media time of the end of the last complete part.
        var edge = 0.0
        var totalBytes = 0
        var totalDuration = 0.0
        var peakBitrate = 0
        /// Rendered once per change, served as they are.
        var mediaPlaylist: [UInt8] = []
        var deltaPlaylist: [UInt8]?
        var multivariantPlaylist: [UInt8] = []
        var waiters = Waiters()
    }

    public static let mediaPlaylistName = "media.m3u8"
    public static let multivariantPlaylistName = "index.m3u8"

    public let configuration: Configuration
    public let startedAt: Int64
    /// This run's init segment: `init.mp4`, or `init<N>.mp4` when continuing at segment N.
    public let initSegmentName: String?
    let state: Mutex<State>

    /// A store for a new broadcast; with `previous` (what an earlier run of the channel left in
    /// its folder), the earlier segments stay listed and the numbering goes on from them after
    /// an EXT-X-DISCONTINUITY, as players expect of a restarted stream.
    public init(configuration: Configuration, startedAt: Int64, continuing previous: PreviousRun? = nil) {
        self.configuration = configuration
        self.startedAt = startedAt
        var initial = State()
        if let previous { Self.restore(previous, into: &initial, configuration: configuration) }
        initial.initSegmentName =
            initial.nextSequence > 0
            ? configuration.format.initSegmentName.map { _ in "init\(initial.nextSequence).mp4" }
            : configuration.format.initSegmentName
        initSegmentName = initial.initSegmentName
        Self.render(&initial, configuration: configuration)
        state = Mutex(initial)
    }

    public func setInitSegment(_ bytes: [UInt8]) -> Change {
        guard let name = initSegmentName else { return Change() }
        state.withLock { $0.initSegments[name] = bytes }
        return Change(written: [(name, bytes)])
    }

    /// Adds a finished fragment to the segment being built: listed at once as a part with Low-Latency
    /// HLS, otherwise only with its segment.
    public func appendFragment(_ bytes: [UInt8], duration: Double, independent: Bool) {
        let waiting = state.withLock { state in
            let name = "part\(state.nextSequence).\(state.openParts.count).\(configuration.format.segmentExtension)"
            state.openParts.append(Part(name: name, duration: duration, independent: independent, bytes: bytes))
            state.edge += duration
            guard configuration.partDuration != nil else { return [CheckedContinuation<Void, Never>]() }
            Self.render(&state, configuration: configuration)
            return state.waiters.takeSatisfied(by: state)
        }
        waiting.forEach { $0.resume() }
    }

    /// Lists the segment built from the fragments so far, slides the window, and frees what
    /// has been out of it for its availability duration.
    public func closeSegment(programDateTime: Int64) -> Change {
        let (change, waiting) = state.withLock { state in
            let parts = state.openParts
            let bytes = Array(parts.map(\.bytes).joined())
            let duration = parts.reduce(0) { $0 + $1.duration }
            state.openParts.removeAll()
            let sequence = state.nextSequence
            state.nextSequence += 1
            let name = "seg\(sequence).\(configuration.format.segmentExtension)"
            state.segments.append(
                Segment(
                    sequence: sequence, name: name, duration: duration, programDateTime: programDateTime, bytes: bytes,
                    end: state.edge, parts: configuration.partDuration == nil ? [] : parts, map: initSegmentName,
                    discontinuity: state.nextIsDiscontinuity))
            state.nextIsDiscontinuity = false
            if duration > 0 {
                state.totalBytes += bytes.count
                state.totalDuration += duration
                // A short final segment says little about the peak: measure whole ones.
                if duration >= configuration.segmentDuration * 0.9 {
                    state.peakBitrate = max(state.peakBitrate, Int(Double(bytes.count * 8) / duration))
                }
            }
            var change = Change(written: [(name, bytes)])
            change.removed = Self.retire(&state, configuration: configuration)
            Self.render(&state, configuration: configuration)
            // The folder gets whole segments only: its playlist names no part file.
            change.written.append(
                (
                    Self.mediaPlaylistName,
                    Self.folderPlaylist(of: state, configuration: configuration)
                ))
            change.written.append((Self.multivariantPlaylistName, state.multivariantPlaylist))
            return (change, state.waiters.takeSatisfied(by: state))
        }
        waiting.forEach { $0.resume() }
        return change
    }

    /// Marks the stream as ended: EXT-X-ENDLIST follows the last segment.
    public func end() -> Change {
        let (change, waiting) = state.withLock { state in
            state.ended = true
            Self.render(&state, configuration: configuration)
            let playlist = Self.folderPlaylist(of: state, configuration: configuration)
            return (Change(written: [(Self.mediaPlaylistName, playlist)]), state.waiters.takeSatisfied(by: state))
        }
        waiting.forEach { $0.resume() }
        return change
    }

    /// A playlist or segment by file name, as it is now.
    public func file(named name: String) -> File? {
        state.withLock { state in
            switch name {
            case Self.multivariantPlaylistName:
                return File(
                    bytes: state.multivariantPlaylist, contentType: "application/vnd.apple.mpegurl",
                    immutable: false)
            case Self.mediaPlaylistName:
                return File(
                    bytes: state.mediaPlaylist, contentType: "application/vnd.apple.mpegurl",
                    immutable: false)
            default:
                if let bytes = state.initSegments[name] {
                    return File(bytes: bytes, contentType: "video/mp4", immutable: true)
                }
                let bytes =
                    state.segments.first { $0.name == name }?.bytes
                    ?? Self.part(named: name, in: state)?.bytes
                return bytes.map {
                    File(bytes: $0, contentType: configuration.format.segmentContentType, immutable: true)
                }
            }
        }
    }

    /// The multivariant playlist with `query` added to each variant's URI, so a player's
    /// playlist reloads carry what its first request did (the server tells viewers apart by it).
    public func multivariantPlaylist(variantQuery query: String) -> [UInt8] {
        state.withLock { state in
            var playlist = Self.multivariantPlaylist(of: state, configuration: configuration)
            for index in playlist.variants.indices {
                playlist.variants[index].uri += "?" + query
            }
            return Array(playlist.render().utf8)
        }
    }

    /// The figures shown on the web pages, in the API and on the status line.
    public func summary() -> ChannelSummary {
        state.withLock { state in
            ChannelSummary(
                name: configuration.channel,
                state: state.ended ? .ended : state.segments.isEmpty ? .waiting : .live,
                startedAt: startedAt, width: configuration.width, height: configuration.height, fps: configuration.fps,
                format: configuration.format, videoBitrate: configuration.videoBitrate,
                audioBitrate: configuration.audioBitrate,
                measuredBitrate: state.totalDuration > 0 ? Int(Double(state.totalBytes * 8) / state.totalDuration) : 0,
                segments: state.nextSequence - state.firstSequence)
        }
    }

    /// Where this run's numbering starts, and how many of an earlier run's segments it lists.
    public var continuation: (firstSequence: Int, earlierSegments: Int) {
        state.withLock { state in
            (state.firstSequence, state.segments.filter { $0.sequence < state.firstSequence }.count)
        }
    }

    /// The segments held in memory, listed or not (for tests of retention).
    var heldSegmentNames: [String] { state.withLock { $0.segments.map(\.name) } }

    private static func retire(_ state: inout State, configuration: Configuration) -> [String] {
        let now = state.edge
        let listed = state.segments.filter { $0.expiresAt == nil }
        if listed.count > configuration.playlistSize {
            let window = listed.suffix(configuration.playlistSize)
            let playlistDuration = window.reduce(0) { $0 + $1.duration }
            let leaving = Set(listed.dropLast(configuration.playlistSize).map(\.sequence))
            state.discontinuitySequence += listed.dropLast(configuration.playlistSize).filter(\.discontinuity).count
            for index in state.segments.indices where leaving.contains(state.segments[index].sequence) {
                // RFC 8216 6.2.2: available for its duration plus the longest playlist that held it.
                state.segments[index].expiresAt = now + state.segments[index].duration + playlistDuration
            }
        }
        // Part files stay downloadable three target durations after their tags leave.
        let target = Double(configuration.targetDuration)
        for index in state.segments.indices where state.segments[index].end < now - 6 * target {
            state.segments[index].parts.removeAll()
        }
        var expired = state.segments.filter { ($0.expiresAt ?? .infinity) <= now }.map(\.name)
        state.segments.removeAll { ($0.expiresAt ?? .infinity) <= now }
        // An earlier run's init segment goes with the last of its segments.
        let used = Set(state.segments.compactMap(\.map) + (state.initSegmentName.map { [$0] } ?? []))
        for name in state.initSegments.keys.sorted() where !used.contains(name) {
            state.initSegments[name] = nil
            expired.append(name)
        }
        return expired
    }
}
