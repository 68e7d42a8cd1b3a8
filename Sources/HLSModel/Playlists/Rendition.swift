/// One media playlist of a channel and what the multivariant playlist says of it: a video rendition
/// with its sound muxed in, or (a ladder in fMP4) a video rendition beside the channel's one audio
/// rendition. An ABR ladder is several of these sharing one clock and one grid.
public struct Rendition: Sendable, Equatable {
    /// Tells the renditions of one channel apart in publications and logs; in a ladder it is also
    /// the rendition's folder (`720p/`). A channel of one rendition has no folder (spelled nil
    /// wherever a folder is asked for) and the id ``singleID``.
    public var id: String
    public var width: Int
    public var height: Int
    public var fps: Int
    /// The encoders' target bits per second; audio is 0 without a sound track.
    public var videoBitrate: Int
    public var audioBitrate: Int
    /// RFC 6381 codec strings of its tracks, e.g. `avc1.64001f`, `mp4a.40.2`.
    public var codecs: [String]
    /// Sound only: the audio rendition a ladder's video renditions share (`EXT-X-MEDIA`), with this
    /// many channels.
    public var audioChannels: Int?
    /// Captions only: the channel's subtitle rendition (`EXT-X-MEDIA:TYPE=SUBTITLES`), WebVTT.
    public var captions: Captions?

    /// What the multivariant playlist says of a subtitle rendition: `LANGUAGE` (an RFC 5646 tag)
    /// and `NAME`.
    public struct Captions: Sendable, Equatable {
        public var language: String
        public var name: String

        public init(language: String, name: String) {
            self.language = language
            self.name = name
        }

        /// Why they cannot be said in a multivariant playlist, or nil: `language` a tag of two or
        /// three letters and optional parts after `-` (`en`, `pt-BR`), and `name` 1 to 64
        /// characters without double quotes or control characters.
        public var problem: String? {
            let subtags = language.split(separator: "-", omittingEmptySubsequences: false)
            let isTag =
                language.utf8.count <= 35 && (2...3).contains(subtags[0].count)
                && subtags[0].allSatisfy { $0.isASCII && $0.isLetter }
                && subtags.dropFirst().allSatisfy {
                    (1...8).contains($0.count) && $0.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) }
                }
            if !isTag {
                return "the captions' language \(language) is not a language tag: two or three letters, then "
                    + "optional parts after '-' (en, de, pt-BR)"
            }
            if name.isEmpty || name.count > 64 || name.contains("\"")
                || name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
            {
                return "the captions' name is 1 to 64 characters, without double quotes or control characters"
            }
            return nil
        }
    }

    public var isAudioOnly: Bool { audioChannels != nil }
    /// Neither pictures nor sound: a player's subtitle track.
    public var isCaptions: Bool { captions != nil }

    public init(
        id: String = Rendition.singleID, width: Int, height: Int, fps: Int, videoBitrate: Int, audioBitrate: Int,
        codecs: [String],
        audioChannels: Int? = nil
    ) {
        self.id = id
        self.width = width
        self.height = height
        self.fps = fps
        self.videoBitrate = videoBitrate
        self.audioBitrate = audioBitrate
        self.codecs = codecs
        self.audioChannels = audioChannels
    }

    /// The id of a channel's only rendition, in logs, status and metrics: `main`.
    public static let singleID = "main"

    /// A ladder's audio rendition: its id is its folder.
    public static func audio(bitrate: Int, codecs: [String], channels: Int) -> Rendition {
        Rendition(
            id: audioID, width: 0, height: 0, fps: 0, videoBitrate: 0, audioBitrate: bitrate, codecs: codecs,
            audioChannels: channels)
    }

    /// The folder of a ladder's audio rendition, a name no video rendition can have.
    public static let audioID = "audio"

    /// A channel's captions, in WebVTT: its id is its folder.
    public static func captions(_ captions: Captions) -> Rendition {
        var rendition = Rendition(
            id: captionsID, width: 0, height: 0, fps: 0, videoBitrate: 0, audioBitrate: 0, codecs: [])
        rendition.captions = captions
        return rendition
    }

    /// The folder of a channel's captions, a name no video rendition can have.
    public static let captionsID = "captions"

    /// Bits per second to announce until segments have been measured: the targets plus container overhead.
    public var estimatedBitrate: Int { (videoBitrate + audioBitrate) * 11 / 10 }
}
