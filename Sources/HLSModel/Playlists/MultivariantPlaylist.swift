/// The channel's entry playlist: one EXT-X-STREAM-INF per rendition, so its URL stays the
/// same when more renditions come.
public struct MultivariantPlaylist: Sendable, Equatable {
    public struct Variant: Sendable, Equatable {
        public var uri: String
        /// Peak bits per second over any segment.
        public var bandwidth: Int
        public var averageBandwidth: Int
        public var codecs: [String]
        public var width: Int
        public var height: Int
        public var frameRate: Double
        /// The GROUP-ID of the audio rendition it plays with (`AUDIO`); nil when its sound is muxed in.
        public var audioGroup: String?
        /// The content-steering pathway (origin) it is served from; nil with one origin.
        public var pathwayID: String?
        /// The GROUP-ID of the captions it plays with (`SUBTITLES`).
        public var subtitlesGroup: String?

        public init(
            uri: String, bandwidth: Int, averageBandwidth: Int, codecs: [String], width: Int, height: Int,
            frameRate: Double, audioGroup: String? = nil, pathwayID: String? = nil, subtitlesGroup: String? = nil
        ) {
            self.subtitlesGroup = subtitlesGroup
            self.uri = uri
            self.bandwidth = bandwidth
            self.averageBandwidth = averageBandwidth
            self.codecs = codecs
            self.width = width
            self.height = height
            self.frameRate = frameRate
            self.audioGroup = audioGroup
            self.pathwayID = pathwayID
        }
    }

    /// An `EXT-X-MEDIA` audio rendition: sound in a playlist of its own, shared by the variants of
    /// its group.
    public struct Audio: Sendable, Equatable {
        public var groupID: String
        public var name: String
        public var uri: String
        public var channels: Int?

        public init(groupID: String, name: String, uri: String, channels: Int?) {
            self.groupID = groupID
            self.name = name
            self.uri = uri
            self.channels = channels
        }
    }

    /// An `EXT-X-MEDIA:TYPE=SUBTITLES` rendition: captions in WebVTT, in a playlist of their own.
    public struct Subtitles: Sendable, Equatable {
        public var groupID: String
        public var name: String
        public var language: String
        public var uri: String

        public init(groupID: String, name: String, language: String, uri: String) {
            self.groupID = groupID
            self.name = name
            self.language = language
            self.uri = uri
        }
    }

    /// An `EXT-X-I-FRAME-STREAM-INF`: a video rendition's I-frame playlist, for trick play and
    /// seek previews.
    public struct IFrameStream: Sendable, Equatable {
        public var uri: String
        /// Peak bits per second of its keyframes, each over the time it stands for.
        public var bandwidth: Int
        /// The video codec only: the keyframes carry no sound.
        public var codecs: [String]
        public var width: Int
        public var height: Int
        public var pathwayID: String?

        public init(uri: String, bandwidth: Int, codecs: [String], width: Int, height: Int, pathwayID: String? = nil) {
            self.uri = uri
            self.bandwidth = bandwidth
            self.codecs = codecs
            self.width = width
            self.height = height
            self.pathwayID = pathwayID
        }
    }

    /// `EXT-X-CONTENT-STEERING`: where a player reads the pathways' priority, and the pathway to
    /// use until it has.
    public struct Steering: Sendable, Equatable {
        public var serverURI: String
        public var pathwayID: String

        public init(serverURI: String, pathwayID: String) {
            self.serverURI = serverURI
            self.pathwayID = pathwayID
        }
    }

    public var version: Int
    public var variants: [Variant]
    public var audio: [Audio]
    public var subtitles: [Subtitles]
    public var steering: Steering?
    /// Largest first, as the variants.
    public var iFrameStreams: [IFrameStream]

    public init(
        version: Int, variants: [Variant], audio: [Audio] = [], subtitles: [Subtitles] = [], steering: Steering? = nil,
        iFrameStreams: [IFrameStream] = []
    ) {
        self.version = version
        self.variants = variants
        self.audio = audio
        self.subtitles = subtitles
        self.steering = steering
        self.iFrameStreams = iFrameStreams
    }

    /// The m3u8 text.
    public func render() -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:\(version)", "#EXT-X-INDEPENDENT-SEGMENTS"]
        if let steering {
            lines.append(
                "#EXT-X-CONTENT-STEERING:SERVER-URI=\"\(steering.serverURI)\",PATHWAY-ID=\"\(steering.pathwayID)\"")
        }
        for audio in audio {
            lines.append(
                "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"\(audio.groupID)\",NAME=\"\(audio.name)\",DEFAULT=YES,AUTOSELECT=YES"
                    + (audio.channels.map { ",CHANNELS=\"\($0)\"" } ?? "") + ",URI=\"\(audio.uri)\"")
        }
        // Shown unless the viewer turns them off: many watch muted.
        for subtitles in subtitles {
            lines.append(
                "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"\(subtitles.groupID)\",NAME=\"\(subtitles.name)\","
                    + "LANGUAGE=\"\(subtitles.language)\",DEFAULT=YES,AUTOSELECT=YES,FORCED=NO,URI=\"\(subtitles.uri)\""
            )
        }
        for variant in variants {
            // What an origin was not told of (a third-party publisher's codecs, size, rate) is left out.
            var attributes = ["BANDWIDTH=\(variant.bandwidth)", "AVERAGE-BANDWIDTH=\(variant.averageBandwidth)"]
            if !variant.codecs.isEmpty { attributes.append("CODECS=\"\(variant.codecs.joined(separator: ","))\"") }
            if variant.width > 0, variant.height > 0 {
                attributes.append("RESOLUTION=\(variant.width)x\(variant.height)")
            }
            if variant.frameRate > 0 { attributes.append("FRAME-RATE=\(MediaPlaylist.decimal(variant.frameRate))") }
            if let group = variant.audioGroup { attributes.append("AUDIO=\"\(group)\"") }
            if let group = variant.subtitlesGroup { attributes.append("SUBTITLES=\"\(group)\"") }
            if let pathway = variant.pathwayID { attributes.append("PATHWAY-ID=\"\(pathway)\"") }
            lines.append("#EXT-X-STREAM-INF:" + attributes.joined(separator: ","))
            lines.append(variant.uri)
        }
        for stream in iFrameStreams {
            var attributes = ["BANDWIDTH=\(max(1, stream.bandwidth))"]
            if !stream.codecs.isEmpty { attributes.append("CODECS=\"\(stream.codecs.joined(separator: ","))\"") }
            if stream.width > 0, stream.height > 0 { attributes.append("RESOLUTION=\(stream.width)x\(stream.height)") }
            if let pathway = stream.pathwayID { attributes.append("PATHWAY-ID=\"\(pathway)\"") }
            attributes.append("URI=\"\(stream.uri)\"")
            lines.append("#EXT-X-I-FRAME-STREAM-INF:" + attributes.joined(separator: ","))
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension MultivariantPlaylist {
    /// The same presentation over other playlists of the same folders: every variant's and audio
    /// rendition's `media.m3u8` becomes `name` (`dvr-media.m3u8` for the rewind window), and every
    /// `iframes.m3u8` becomes `iFrames` (`dvr-iframes.m3u8`), folder and query kept.
    public func pointing(to name: MediaFileName, iFrames: MediaFileName? = nil) -> MultivariantPlaylist {
        func repoint(_ uri: String, from old: MediaFileName, to new: MediaFileName) -> String {
            let query = uri.firstIndex(of: "?").map { String(uri[$0...]) } ?? ""
            let path = uri.prefix { $0 != "?" }
            guard path == old.description || path.hasSuffix("/" + old.description) else { return uri }
            return path.dropLast(old.description.count) + new.description + query
        }
        var playlist = self
        for index in playlist.variants.indices {
            playlist.variants[index].uri = repoint(playlist.variants[index].uri, from: .mediaPlaylist, to: name)
        }
        for index in playlist.audio.indices {
            playlist.audio[index].uri = repoint(playlist.audio[index].uri, from: .mediaPlaylist, to: name)
        }
        for index in playlist.subtitles.indices {
            playlist.subtitles[index].uri = repoint(playlist.subtitles[index].uri, from: .mediaPlaylist, to: name)
        }
        if let iFrames {
            for index in playlist.iFrameStreams.indices {
                playlist.iFrameStreams[index].uri = repoint(
                    playlist.iFrameStreams[index].uri, from: .iFramePlaylist, to: iFrames)
            }
        } else {
            playlist.iFrameStreams = []
        }
        return playlist
    }

    /// Every variant's, audio rendition's and I-frame stream's URI with `query` added (`from=12`).
    public func adding(query: String) -> MultivariantPlaylist {
        func add(_ uri: String) -> String { uri + (uri.contains("?") ? "&" : "?") + query }
        var playlist = self
        for index in playlist.variants.indices { playlist.variants[index].uri = add(playlist.variants[index].uri) }
        for index in playlist.audio.indices { playlist.audio[index].uri = add(playlist.audio[index].uri) }
        for index in playlist.subtitles.indices { playlist.subtitles[index].uri = add(playlist.subtitles[index].uri) }
        for index in playlist.iFrameStreams.indices {
            playlist.iFrameStreams[index].uri = add(playlist.iFrameStreams[index].uri)
        }
        return playlist
    }

    /// Reads a multivariant playlist (what a publisher pushes as `index.m3u8`): every
    /// EXT-X-STREAM-INF with the URI on the line after it, so an origin can describe each rendition
    /// as its publisher did. Nil when the text is not a multivariant playlist or lists no variant; a
    /// variant without a positive BANDWIDTH or a URI makes the whole playlist unreadable.
    public static func parse(_ text: String) -> MultivariantPlaylist? {
        let lines = text.split(whereSeparator: \.isNewline).map(String.init)
        guard lines.first == "#EXTM3U" else { return nil }
        var version = 1
        var variants: [Variant] = []
        var audio: [Audio] = []
        var subtitles: [Subtitles] = []
        var iFrameStreams: [IFrameStream] = []
        var index = 1
        while index < lines.count {
            let line = lines[index]
            index += 1
            if line.hasPrefix("#EXT-X-VERSION:") { version = Int(line.dropFirst("#EXT-X-VERSION:".count)) ?? 1 }
            if line.hasPrefix("#EXT-X-MEDIA:") {
                let attributes = MediaPlaylist.attributes(line.dropFirst("#EXT-X-MEDIA:".count))
                if attributes["TYPE"] == "AUDIO", let group = attributes["GROUP-ID"], let uri = attributes["URI"] {
                    audio.append(
                        Audio(
                            groupID: group, name: attributes["NAME"] ?? group, uri: uri,
                            channels: attributes["CHANNELS"].flatMap { Int($0.prefix { $0 != "/" }) }))
                }
                if attributes["TYPE"] == "SUBTITLES", let group = attributes["GROUP-ID"], let uri = attributes["URI"] {
                    subtitles.append(
                        Subtitles(
                            groupID: group, name: attributes["NAME"] ?? group,
                            language: attributes["LANGUAGE"] ?? "und",
                            uri: uri))
                }
            }
            if line.hasPrefix("#EXT-X-I-FRAME-STREAM-INF:") {
                let attributes = MediaPlaylist.attributes(line.dropFirst("#EXT-X-I-FRAME-STREAM-INF:".count))
                guard let uri = attributes["URI"], !uri.isEmpty,
                    let bandwidth = attributes["BANDWIDTH"].flatMap({ Int($0) }), bandwidth > 0
                else { return nil }
                let size = (attributes["RESOLUTION"] ?? "").split(separator: "x").compactMap { Int($0) }
                iFrameStreams.append(
                    IFrameStream(
                        uri: uri, bandwidth: bandwidth,
                        codecs: attributes["CODECS"].map { $0.split(separator: ",").map(String.init) } ?? [],
                        width: size.count == 2 ? max(0, size[0]) : 0, height: size.count == 2 ? max(0, size[1]) : 0,
                        pathwayID: attributes["PATHWAY-ID"]))
            }
            guard line.hasPrefix("#EXT-X-STREAM-INF:") else { continue }
            while index < lines.count, lines[index].isEmpty || lines[index].hasPrefix("#") { index += 1 }
            guard index < lines.count,
                let variant = variant(attributes: line.dropFirst("#EXT-X-STREAM-INF:".count), uri: lines[index])
            else { return nil }
            variants.append(variant)
            index += 1
        }
        return variants.isEmpty
            ? nil
            : MultivariantPlaylist(
                version: version, variants: variants, audio: audio, subtitles: subtitles, iFrameStreams: iFrameStreams)
    }

    private static func variant(attributes text: Substring, uri: String) -> Variant? {
        let attributes = MediaPlaylist.attributes(text)
        guard let bandwidth = attributes["BANDWIDTH"].flatMap({ Int($0) }), bandwidth > 0 else { return nil }
        let size = (attributes["RESOLUTION"] ?? "").split(separator: "x").compactMap { Int($0) }
        let codecs = attributes["CODECS"].map { $0.split(separator: ",").map(String.init) } ?? []
        return Variant(
            uri: uri, bandwidth: bandwidth,
            averageBandwidth: attributes["AVERAGE-BANDWIDTH"].flatMap { Int($0) } ?? bandwidth, codecs: codecs,
            width: size.count == 2 ? max(0, size[0]) : 0, height: size.count == 2 ? max(0, size[1]) : 0,
            frameRate: attributes["FRAME-RATE"].flatMap { Double($0) }.map { max(0, min($0, 1000)) } ?? 0,
            audioGroup: attributes["AUDIO"], pathwayID: attributes["PATHWAY-ID"],
            subtitlesGroup: attributes["SUBTITLES"])
    }
}
