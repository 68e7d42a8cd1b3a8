/// A channel's renditions as they stand, seen from any one of them: what the multivariant playlist
/// says of each, and where each one's live edge is, for the rendition reports of Low-Latency HLS.
/// A ladder's files live in a folder per rendition (`720p/media.m3u8`, and in fMP4 the sound
/// shared by every video rendition in `audio/media.m3u8`), its multivariant playlist above them
/// (`index.m3u8`).
public struct LadderView: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var id: String
        public var variant: MultivariantPlaylist.Variant
        /// The segment its newest part belongs to (LAST-MSN), and that part's index (LAST-PART);
        /// nil before its first part.
        public var lastMSN: Int?
        public var lastPart: Int?
        /// Set for the audio rendition: its channel count.
        public var audioChannels: Int?
        /// Its I-frame playlist's entry; nil when it has none (sound, TS).
        public var iFrameStream: MultivariantPlaylist.IFrameStream?
        /// Set for the captions: their language and name.
        public var captions: Rendition.Captions?

        public init(
            id: String, variant: MultivariantPlaylist.Variant, lastMSN: Int?, lastPart: Int?, audioChannels: Int? = nil,
            iFrameStream: MultivariantPlaylist.IFrameStream? = nil, captions: Rendition.Captions? = nil
        ) {
            self.captions = captions
            self.iFrameStream = iFrameStream
            self.id = id
            self.variant = variant
            self.lastMSN = lastMSN
            self.lastPart = lastPart
            self.audioChannels = audioChannels
        }
    }

    /// Largest first, as listed in the multivariant playlist.
    public var entries: [Entry]
    public var version: Int
    /// How many renditions the channel has, heard from or not.
    public var renditionCount: Int

    public init(entries: [Entry], version: Int, renditionCount: Int? = nil) {
        self.entries = entries
        self.version = version
        self.renditionCount = renditionCount ?? entries.count
    }

    /// Every rendition has something listed: a destination's multivariant playlist waits for this,
    /// so it never names a rendition that has no playlist there yet.
    public var isComplete: Bool {
        entries.count == renditionCount && entries.allSatisfy { $0.lastMSN != nil }
    }

    /// Where a rendition's media playlist is, from the channel's folder.
    public static func playlistURI(of id: String) -> String { "\(id)/\(MediaFileName.mediaPlaylist)" }

    /// Where a rendition's I-frame playlist is, from the channel's folder.
    public static func iFramePlaylistURI(of id: String) -> String { "\(id)/\(MediaFileName.iFramePlaylist)" }

    /// The GROUP-ID of the audio rendition.
    public static let audioGroup = "audio"

    /// The GROUP-ID of the captions.
    public static let subtitlesGroup = "subs"

    /// One EXT-X-STREAM-INF per video rendition; with an audio rendition, each names it as its
    /// `AUDIO` group and counts its rate and codec as its own (what a player fetches to play it).
    /// Then each video rendition's EXT-X-I-FRAME-STREAM-INF.
    public var multivariantPlaylist: MultivariantPlaylist {
        var playlist = unorderedPlaylist
        playlist.variants = Self.ordered(playlist.variants)
        playlist.iFrameStreams = entries.compactMap(\.iFrameStream)
        return playlist
    }

    /// The variants, largest first, with each one's BANDWIDTH raised, where it must be, just above
    /// the one below it: measured rates can invert (a still picture costs the top rung little, and
    /// a small one can measure more), and players choose by BANDWIDTH, so on a fast link they would
    /// take a lower rung. Raised only, a BANDWIDTH stays an upper bound of its rung's peak.
    static func ordered(_ variants: [MultivariantPlaylist.Variant]) -> [MultivariantPlaylist.Variant] {
        var variants = variants
        for index in variants.indices.dropLast().reversed()
        where variants[index].bandwidth <= variants[index + 1].bandwidth {
            variants[index].bandwidth = variants[index + 1].bandwidth + 1
        }
        return variants
    }

    /// The video renditions' variants; with an audio rendition, each names it as its `AUDIO` group
    /// and counts its rate and codec as its own; with captions, each names them (`SUBTITLES`).
    private var unorderedPlaylist: MultivariantPlaylist {
        let audio = entries.first { $0.audioChannels != nil }
        let captions = entries.first { $0.captions != nil }
        let variants = entries.filter { $0.audioChannels == nil && $0.captions == nil }.map { entry in
            var variant = entry.variant
            if let audio {
                variant.bandwidth += audio.variant.bandwidth
                variant.averageBandwidth += audio.variant.averageBandwidth
                variant.codecs += audio.variant.codecs
                variant.audioGroup = Self.audioGroup
            }
            if captions != nil { variant.subtitlesGroup = Self.subtitlesGroup }
            return variant
        }
        return MultivariantPlaylist(
            version: version, variants: variants,
            audio: audio.map {
                [.init(groupID: Self.audioGroup, name: "Sound", uri: $0.variant.uri, channels: $0.audioChannels)]
            } ?? [],
            subtitles: captions.flatMap { entry in
                entry.captions.map {
                    [.init(groupID: Self.subtitlesGroup, name: $0.name, language: $0.language, uri: entry.variant.uri)]
                }
            } ?? [])
    }

    /// EXT-X-RENDITION-REPORT for every rendition but `id`, relative to `id`'s media playlist.
    public func renditionReports(excluding id: String) -> [MediaPlaylist.RenditionReport] {
        entries.filter { $0.id != id }.compactMap { entry in
            guard let msn = entry.lastMSN else { return nil }
            return MediaPlaylist.RenditionReport(
                uri: "../" + Self.playlistURI(of: entry.id), lastMSN: msn, lastPart: entry.lastPart)
        }
    }
}

extension Timeline {
    /// This rendition's entry in a ladder's view: its measured variant and its live edge.
    public var ladderEntry: LadderView.Entry {
        let edge: (msn: Int?, part: Int?) =
            if !openParts.isEmpty {
                (nextSequence, openParts.count - 1)
            } else if let last = segments.last(where: \.isListed) {
                (last.sequence, last.parts.isEmpty ? nil : last.parts.count - 1)
            } else {
                (nil, nil)
            }
        return LadderView.Entry(
            id: rendition.id, variant: variant(uri: LadderView.playlistURI(of: rendition.id)), lastMSN: edge.msn,
            lastPart: edge.part, audioChannels: rendition.audioChannels,
            iFrameStream: iFrameStream(uri: LadderView.iFramePlaylistURI(of: rendition.id)),
            captions: rendition.captions)
    }
}
