/// The video codecs onair encodes: what `--codec` and a rung of `--renditions` name, which
/// containers and destinations carry each, and the encoder libavcodec gives it. Adding a codec is
/// one more case here, its encoder's set-up (`VideoEncoder`) and its codec string (`CodecString`).
public enum VideoCodec: String, Sendable, CaseIterable, Codable {
    /// H.264 through libx264: every player and every destination.
    case h264
    /// AV1 through libaom in its real-time mode with its screen-content tools (palette and intra
    /// block copy): legible text in fewer bytes, in fMP4 only.
    case av1

    /// The codec a broadcast encodes unless told otherwise.
    public static let standard = VideoCodec.h264

    /// The libavcodec encoder that makes it.
    public var encoderName: String {
        switch self {
        case .h264: "libx264"
        case .av1: "libaom-av1"
        }
    }

    /// The share of H.264's rate a rung in this codec is given by default for the same legibility
    /// (the legibility benchmark's finding: AV1 matches H.264's text at half the bytes).
    public var rateShare: Double {
        switch self {
        case .h264: 1
        case .av1: 0.5
        }
    }

    /// Whether MPEG-TS segments, RTMP and SRT (MPEG-TS over UDP) carry it: HLS carries AV1 in fMP4
    /// only, and FLV and the MPEG-TS of those services know H.264.
    public var travelsInMPEGTSAndFLV: Bool { self == .h264 }

    /// The suffix of a rung's name in a ladder, so that two rungs of one size in different codecs
    /// have folders of their own: `1080p` in H.264, `1080p-av1`.
    public var rungSuffix: String {
        switch self {
        case .h264: ""
        case .av1: "-av1"
        }
    }

    /// Reads a codec's name as given on the command line.
    public init?(name: some StringProtocol) {
        self.init(rawValue: name.lowercased())
    }

    /// The names, for help and refusals: `h264, av1`.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

/// What RFC 6381 codec strings name, as a playlist's CODECS lists them: the one rule that tells
/// sound from picture, for the origin (which splits a pushed variant's codecs between its video
/// rendition and its sound) and the player (`web/player/playlists.js`, which keeps the same list).
public enum CodecFamily {
    /// The first part of every sound codec's string: AAC, AC-3, E-AC-3, Opus, FLAC.
    public static let audioPrefixes = ["mp4a", "ac-3", "ec-3", "opus", "flac"]

    /// Whether `codec` (`mp4a.40.2`, `avc1.64001f`, `av01.0.08M.08`) names sound.
    public static func isAudio(_ codec: some StringProtocol) -> Bool {
        let name = codec.split(separator: ".", maxSplits: 1).first.map { $0.lowercased() } ?? ""
        return audioPrefixes.contains(name)
    }
}
