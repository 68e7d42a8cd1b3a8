/// The segment container: fragmented MP4 (CMAF) or MPEG-TS for pictures and sound, and WebVTT
/// for a channel's captions (never a choice of `--format`: see ``mediaFormats``).
public enum ContainerFormat: String, Sendable, CaseIterable {
    case fmp4
    case ts
    case webVTT = "webvtt"

    /// What pictures and sound can be packaged in.
    public static let mediaFormats: [ContainerFormat] = [.fmp4, .ts]

    /// The file extension of media segments.
    public var segmentExtension: String {
        switch self {
        case .fmp4: "m4s"
        case .ts: "ts"
        case .webVTT: "vtt"
        }
    }

    /// The Content-Type of media segments.
    public var segmentContentType: String {
        switch self {
        case .fmp4: "video/mp4"
        case .ts: "video/mp2t"
        case .webVTT: "text/vtt"
        }
    }

    /// The lowest EXT-X-VERSION the playlists need: EXT-X-MAP needs 6, fractional EXTINF needs 3.
    public var playlistVersion: Int {
        switch self {
        case .fmp4: 6
        case .ts, .webVTT: 3
        }
    }

    /// fMP4 segments need an init segment (EXT-X-MAP); TS segments carry their own tables.
    public var hasInitSegment: Bool { self == .fmp4 }
}
