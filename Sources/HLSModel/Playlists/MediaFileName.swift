/// The name of every file a channel publishes, formatted and parsed in this one place: `index.m3u8`,
/// `media.m3u8`, `init.mp4` (or `init<N>.mp4` for a run that continues at segment N), `seg<N>.<ext>`
/// the Low-Latency HLS parts `part<N>.<I>.<ext>`, and with `--dvr` the rewind window's playlists
/// `dvr.m3u8` (over the renditions, as `index.m3u8` is) and `dvr-media.m3u8` (in each rendition's folder),
/// and beside each video rendition's media playlist its I-frame playlist (`iframes.m3u8`,
/// `dvr-iframes.m3u8`).
///
/// Parsing accepts exactly what formatting writes (decimal numbers without leading zeros), so a name
/// that parses is one this program could have written, and nothing else.
public enum MediaFileName: Hashable, Sendable, Comparable, CustomStringConvertible {
    case multivariantPlaylist
    case mediaPlaylist
    /// The rewind window (`--dvr`): the multivariant playlist over the renditions' windows.
    case dvrMultivariantPlaylist
    /// The rewind window of one rendition: its segments of the last DURATION, whole segments only.
    case dvrMediaPlaylist
    /// A video rendition's keyframes (`EXT-X-I-FRAMES-ONLY`), byte ranges into its segments.
    case iFramePlaylist
    /// The rewind window's keyframes, byte ranges into the window's segments.
    case dvrIFramePlaylist
    /// The init segment of the run whose first segment is `continuing` (nil: the channel's first run).
    case initSegment(continuing: Int?)
    case segment(Int, ContainerFormat)
    case part(Int, Int, ContainerFormat)

    public var description: String {
        switch self {
        case .multivariantPlaylist: "index.m3u8"
        case .mediaPlaylist: "media.m3u8"
        case .dvrMultivariantPlaylist: "dvr.m3u8"
        case .dvrMediaPlaylist: "dvr-media.m3u8"
        case .iFramePlaylist: "iframes.m3u8"
        case .dvrIFramePlaylist: "dvr-iframes.m3u8"
        case .initSegment(let continuing): "init\(continuing.map(String.init) ?? "").mp4"
        case .segment(let sequence, let format): "seg\(sequence).\(format.segmentExtension)"
        case .part(let sequence, let index, let format): "part\(sequence).\(index).\(format.segmentExtension)"
        }
    }

    /// The name `text` stands for, or nil when this program never writes such a name.
    public init?(_ text: String) {
        switch text {
        case "index.m3u8": self = .multivariantPlaylist
        case "media.m3u8": self = .mediaPlaylist
        case "dvr.m3u8": self = .dvrMultivariantPlaylist
        case "dvr-media.m3u8": self = .dvrMediaPlaylist
        case "iframes.m3u8": self = .iFramePlaylist
        case "dvr-iframes.m3u8": self = .dvrIFramePlaylist
        case "init.mp4": self = .initSegment(continuing: nil)
        default:
            let fields = text.split(separator: ".", omittingEmptySubsequences: false)
            if fields.count == 2, fields[0].hasPrefix("init"), fields[1] == "mp4",
                let sequence = Self.number(fields[0].dropFirst(4))
            {
                self = .initSegment(continuing: sequence)
            } else if fields.count == 2, fields[0].hasPrefix("seg"), let sequence = Self.number(fields[0].dropFirst(3)),
                let format = Self.format(fields[1])
            {
                self = .segment(sequence, format)
            } else if fields.count == 3, fields[0].hasPrefix("part"),
                let sequence = Self.number(fields[0].dropFirst(4)), let index = Self.number(fields[1]),
                let format = Self.format(fields[2])
            {
                self = .part(sequence, index, format)
            } else {
                return nil
            }
        }
    }

    /// True for the playlists, which change; media files never do once published.
    public var isPlaylist: Bool {
        switch self {
        case .multivariantPlaylist, .mediaPlaylist, .dvrMultivariantPlaylist, .dvrMediaPlaylist, .iFramePlaylist,
            .dvrIFramePlaylist:
            true
        default: false
        }
    }

    /// The container of a segment or part; nil for the other files.
    public var format: ContainerFormat? {
        switch self {
        case .segment(_, let format), .part(_, _, let format): format
        default: nil
        }
    }

    /// The Content-Type it is served with.
    public var contentType: String {
        switch self {
        case .multivariantPlaylist, .mediaPlaylist, .dvrMultivariantPlaylist, .dvrMediaPlaylist, .iFramePlaylist,
            .dvrIFramePlaylist:
            "application/vnd.apple.mpegurl"
        case .initSegment: "video/mp4"
        case .segment(_, let format), .part(_, _, let format): format.segmentContentType
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.description < rhs.description }

    /// A decimal number as formatting writes it: digits only, no sign, no leading zero, no overflow.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.count <= 18, text.allSatisfy({ $0.isASCII && $0.isNumber }),
            text == "0" || !text.hasPrefix("0")
        else { return nil }
        return Int(text)
    }

    private static func format(_ fileExtension: Substring) -> ContainerFormat? {
        ContainerFormat.allCases.first { $0.segmentExtension == fileExtension }
    }
}
