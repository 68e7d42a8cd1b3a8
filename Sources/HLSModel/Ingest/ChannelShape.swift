import Runtime

/// What a publisher's multivariant playlist (`index.m3u8`) says its channel is: one rendition at
/// the channel's top (`media.m3u8`), or a ladder whose renditions are folders one deep
/// (`720p/media.m3u8`), largest first, with its sound and its captions in renditions of their own
/// that the video renditions name (EXT-X-MEDIA). Read and checked here, before the origin changes
/// anything; pure.
public enum ChannelShape: Sendable, Equatable {
    /// One rendition: its files are the channel's own.
    case single(MultivariantPlaylist.Variant)
    /// Renditions in folders.
    case ladder([Member])

    /// One rendition of a ladder, as its assembler is to describe it.
    public struct Member: Sendable, Equatable {
        /// Its folder.
        public var id: String
        /// The video rendition's variant without the sound's codecs (the origin's own multivariant
        /// playlist adds them back from the sound's rendition); for the sound, its codecs alone.
        public var variant: MultivariantPlaylist.Variant
        /// The sound's channels (EXT-X-MEDIA's `CHANNELS`, 2 when not said); nil for the others.
        public var audioChannels: Int?
        /// The captions' language and name; nil for the others.
        public var captions: Rendition.Captions?

        public init(
            id: String, variant: MultivariantPlaylist.Variant, audioChannels: Int? = nil,
            captions: Rendition.Captions? = nil
        ) {
            self.id = id
            self.variant = variant
            self.audioChannels = audioChannels
            self.captions = captions
        }
    }

    /// The renditions' folders, video largest first, then the sound's, then the captions'; nil for
    /// one rendition.
    public var folders: [String?] {
        switch self {
        case .single: [nil]
        case .ladder(let members): members.map(\.id)
        }
    }

    /// Reads `bytes`; refused (400, 507) as the origin answers a push of it.
    public static func read(_ bytes: [UInt8]) throws(IngestAssembler.Refusal) -> ChannelShape {
        guard let playlist = MultivariantPlaylist.parse(String(decoding: bytes, as: UTF8.self)) else {
            throw .badRequest("index.m3u8 is not a multivariant playlist with an EXT-X-STREAM-INF")
        }
        try IngestRules.check(playlist)
        if playlist.variants.count == 1, playlist.variants[0].uri == top { return .single(playlist.variants[0]) }
        var ids: [String] = []
        for variant in playlist.variants { ids.append(try folder(of: variant.uri)) }
        let groups = Set(playlist.variants.compactMap(\.audioGroup))
        let sound = playlist.audio.first { groups.contains($0.groupID) }
        let soundID = try sound.map { audio throws(IngestAssembler.Refusal) in try folder(of: audio.uri) }
        let captionGroups = Set(playlist.variants.compactMap(\.subtitlesGroup))
        let captions = playlist.subtitles.first { captionGroups.contains($0.groupID) }
        let captionsID = try captions.map { captions throws(IngestAssembler.Refusal) in try folder(of: captions.uri) }
        let all = ids + (soundID.map { [$0] } ?? []) + (captionsID.map { [$0] } ?? [])
        guard Set(all).count == all.count else { throw .badRequest("index.m3u8 lists a rendition twice") }
        guard all.count <= maximumRenditions else {
            throw .full("index.m3u8 lists \(all.count) renditions; an origin takes \(maximumRenditions)")
        }
        let isAudio: (String) -> Bool = { CodecFamily.isAudio($0) }
        var members = zip(ids, playlist.variants).map { id, variant in
            var described = variant
            if sound != nil { described.codecs.removeAll(where: isAudio) }
            return Member(id: id, variant: described)
        }
        if let sound, let soundID {
            let codecs = playlist.variants.first?.codecs.filter(isAudio) ?? []
            members.append(
                Member(
                    id: soundID, variant: description(uri: sound.uri, codecs: codecs),
                    audioChannels: sound.channels ?? 2))
        }
        if let captions, let captionsID {
            members.append(
                Member(
                    id: captionsID, variant: description(uri: captions.uri, codecs: []),
                    captions: Rendition.Captions(language: captions.language, name: captions.name)))
        }
        return .ladder(members)
    }

    /// The renditions one channel may be pushed in.
    public static let maximumRenditions = 8

    private static let top = MediaFileName.mediaPlaylist.description

    /// A rendition's folder from its URI in the multivariant playlist.
    private static func folder(of uri: String) throws(IngestAssembler.Refusal) -> String {
        let parts = uri.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1] == top, LiveRequest.isRenditionName(String(parts[0])) else {
            throw .badRequest("index.m3u8 lists \(uri): a rendition is \(top) or <rendition>/\(top), one folder deep")
        }
        return String(parts[0])
    }

    /// The variant that describes a rendition with no picture (the sound, the captions).
    private static func description(uri: String, codecs: [String]) -> MultivariantPlaylist.Variant {
        MultivariantPlaylist.Variant(
            uri: uri, bandwidth: 1, averageBandwidth: 0, codecs: codecs, width: 0, height: 0, frameRate: 0)
    }
}
