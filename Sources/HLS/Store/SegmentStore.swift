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

        public init(
            channel: String, format: ContainerFormat, segmentDuration: Double, playlistSize: Int,
            codecs: [String], width: Int, height: Int, fps: Int, videoBitrate: Int, audioBitrate: Int
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
        }

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

    struct Segment {
        var sequence: Int
        var name: String
        var duration: Double
        var programDateTime: Int64
        var bytes: [UInt8]
        /// Media time after which a segment that left the playlist may be freed.
        var expiresAt: Double?
    }

    struct State {
        var initSegment: [UInt8]?
        var openFragments: [[UInt8]] = []
        var segments: [Segment] = []
        var nextSequence = 0
        var ended = false
        var totalBytes = 0
        var totalDuration = 0.0
        var peakBitrate = 0
        /// Rendered once per change, served as they are.
        var mediaPlaylist: [UInt8] = []
        var multivariantPlaylist: [UInt8] = []
    }

    public static let mediaPlaylistName = "media.m3u8"
    public static let multivariantPlaylistName = "index.m3u8"

    public let configuration: Configuration
    public let startedAt: Int64
    private let state: Mutex<State>

    public init(configuration: Configuration, startedAt: Int64) {
        self.configuration = configuration
        self.startedAt = startedAt
        var initial = State()
        Self.render(&initial, configuration: configuration)
        state = Mutex(initial)
    }

    public func setInitSegment(_ bytes: [UInt8]) -> Change {
        state.withLock { $0.initSegment = bytes }
        guard let name = configuration.format.initSegmentName else { return Change() }
        return Change(written: [(name, bytes)])
    }

    /// Adds a finished fragment to the segment being built (not yet listed).
    public func appendFragment(_ bytes: [UInt8]) {
        state.withLock { $0.openFragments.append(bytes) }
    }

    /// Lists the segment built from the fragments so far, slides the window, and frees what
    /// has been out of it for its availability duration.
    public func closeSegment(duration: Double, programDateTime: Int64, now: Double) -> Change {
        state.withLock { state in
            let bytes = Array(state.openFragments.joined())
            state.openFragments.removeAll()
            let sequence = state.nextSequence
            state.nextSequence += 1
            let name = "seg\(sequence).\(configuration.format.segmentExtension)"
            state.segments.append(
                Segment(
                    sequence: sequence, name: name, duration: duration, programDateTime: programDateTime, bytes: bytes))
            if duration > 0 {
                state.totalBytes += bytes.count
                state.totalDuration += duration
                // A short final segment says little about the peak: measure whole ones.
                if duration >= configuration.segmentDuration * 0.9 {
                    state.peakBitrate = max(state.peakBitrate, Int(Double(bytes.count * 8) / duration))
                }
            }
            var change = Change(written: [(name, bytes)])
            change.removed = Self.retire(&state, now: now, configuration: configuration)
            Self.render(&state, configuration: configuration)
            change.written.append((Self.mediaPlaylistName, state.mediaPlaylist))
            change.written.append((Self.multivariantPlaylistName, state.multivariantPlaylist))
            return change
        }
    }

    /// Marks the stream as ended: EXT-X-ENDLIST follows the last segment.
    public func end() -> Change {
        state.withLock { state in
            state.ended = true
            Self.render(&state, configuration: configuration)
            return Change(written: [(Self.mediaPlaylistName, state.mediaPlaylist)])
        }
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
            case configuration.format.initSegmentName:
                return state.initSegment.map { File(bytes: $0, contentType: "video/mp4", immutable: true) }
            default:
                return state.segments.first { $0.name == name }.map {
                    File(bytes: $0.bytes, contentType: configuration.format.segmentContentType, immutable: true)
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
                state: state.ended ? .ended : state.nextSequence == 0 ? .waiting : .live,
                startedAt: startedAt, width: configuration.width, height: configuration.height, fps: configuration.fps,
                format: configuration.format, videoBitrate: configuration.videoBitrate,
                audioBitrate: configuration.audioBitrate,
                measuredBitrate: state.totalDuration > 0 ? Int(Double(state.totalBytes * 8) / state.totalDuration) : 0,
                segments: state.nextSequence)
        }
    }

    /// The segments held in memory, listed or not (for tests of retention).
    var heldSegmentNames: [String] { state.withLock { $0.segments.map(\.name) } }

    private static func retire(_ state: inout State, now: Double, configuration: Configuration) -> [String] {
        let listed = state.segments.filter { $0.expiresAt == nil }
        if listed.count > configuration.playlistSize {
            let window = listed.suffix(configuration.playlistSize)
            let playlistDuration = window.reduce(0) { $0 + $1.duration }
            let leaving = Set(listed.dropLast(configuration.playlistSize).map(\.sequence))
            for index in state.segments.indices where leaving.contains(state.segments[index].sequence) {
                // RFC 8216 6.2.2: available for its duration plus the longest playlist that held it.
                state.segments[index].expiresAt = now + state.segments[index].duration + playlistDuration
            }
        }
        let expired = state.segments.filter { ($0.expiresAt ?? .infinity) <= now }.map(\.name)
        state.segments.removeAll { ($0.expiresAt ?? .infinity) <= now }
        return expired
    }

    private static func render(_ state: inout State, configuration: Configuration) {
        state.mediaPlaylist = Array(mediaPlaylist(of: state, configuration: configuration).render().utf8)
        state.multivariantPlaylist = Array(multivariantPlaylist(of: state, configuration: configuration).render().utf8)
    }

    static func mediaPlaylist(of state: State, configuration: Configuration) -> MediaPlaylist {
        let listed = state.segments.filter { $0.expiresAt == nil }
        return MediaPlaylist(
            version: configuration.format.playlistVersion,
            targetDuration: Int(configuration.segmentDuration.rounded(.up)),
            mediaSequence: listed.first?.sequence ?? state.nextSequence,
            initSegmentURI: configuration.format.initSegmentName,
            segments: listed.map {
                MediaPlaylist.Segment(uri: $0.name, duration: $0.duration, programDateTime: $0.programDateTime)
            },
            ended: state.ended)
    }

    static func multivariantPlaylist(of state: State, configuration: Configuration) -> MultivariantPlaylist {
        let average =
            state.totalDuration > 0
            ? Int(Double(state.totalBytes * 8) / state.totalDuration) : configuration.estimatedBitrate
        return MultivariantPlaylist(
            version: configuration.format.playlistVersion,
            variants: [
                .init(
                    uri: mediaPlaylistName, bandwidth: max(state.peakBitrate, average), averageBandwidth: average,
                    codecs: configuration.codecs, width: configuration.width, height: configuration.height,
                    frameRate: Double(configuration.fps))
            ])
    }
}

/// Where a channel is in its life, as a viewer sees it.
public enum ChannelState: String, Sendable, Codable {
    /// Started, but no segment is listed yet.
    case waiting
    case live
    /// EXT-X-ENDLIST has been written.
    case ended
}

/// What the web pages, the API and the status line show of a channel.
public struct ChannelSummary: Sendable, Equatable {
    public var name: String
    public var state: ChannelState
    /// Wall time of the start, milliseconds since 1970.
    public var startedAt: Int64
    public var width: Int
    public var height: Int
    public var fps: Int
    public var format: ContainerFormat
    public var videoBitrate: Int
    public var audioBitrate: Int
    /// Bits per second of the segments so far, container included; 0 before the first.
    public var measuredBitrate: Int
    public var segments: Int

    public init(
        name: String, state: ChannelState, startedAt: Int64, width: Int, height: Int, fps: Int,
        format: ContainerFormat, videoBitrate: Int, audioBitrate: Int, measuredBitrate: Int, segments: Int
    ) {
        self.name = name
        self.state = state
        self.startedAt = startedAt
        self.width = width
        self.height = height
        self.fps = fps
        self.format = format
        self.videoBitrate = videoBitrate
        self.audioBitrate = audioBitrate
        self.measuredBitrate = measuredBitrate
        self.segments = segments
    }
}
