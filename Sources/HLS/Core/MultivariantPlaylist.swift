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

        public init(
            uri: String, bandwidth: Int, averageBandwidth: Int, codecs: [String], width: Int, height: Int,
            frameRate: Double
        ) {
            self.uri = uri
            self.bandwidth = bandwidth
            self.averageBandwidth = averageBandwidth
            self.codecs = codecs
            self.width = width
            self.height = height
            self.frameRate = frameRate
        }
    }

    public var version: Int
    public var variants: [Variant]

    public init(version: Int, variants: [Variant]) {
        self.version = version
        self.variants = variants
    }

    /// The m3u8 text.
    public func render() -> String {
        var lines = ["#EXTM3U", "#EXT-X-VERSION:\(version)", "#EXT-X-INDEPENDENT-SEGMENTS"]
        for variant in variants {
            // What an origin was not told of (a third-party publisher's codecs, size, rate) is left out.
            var attributes = ["BANDWIDTH=\(variant.bandwidth)", "AVERAGE-BANDWIDTH=\(variant.averageBandwidth)"]
            if !variant.codecs.isEmpty { attributes.append("CODECS=\"\(variant.codecs.joined(separator: ","))\"") }
            if variant.width > 0, variant.height > 0 {
                attributes.append("RESOLUTION=\(variant.width)x\(variant.height)")
            }
            if variant.frameRate > 0 { attributes.append("FRAME-RATE=\(MediaPlaylist.decimal(variant.frameRate))") }
            lines.append("#EXT-X-STREAM-INF:" + attributes.joined(separator: ","))
            lines.append(variant.uri)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

extension MultivariantPlaylist {
    /// Reads the first variant's attributes from a multivariant playlist (what a publisher pushes as
    /// `index.m3u8`), so an origin can describe the stream as its publisher did. Nil when the text
    /// has no EXT-X-STREAM-INF.
    public static func parseFirstVariant(_ text: String) -> Variant? {
        let lines = text.split(whereSeparator: \.isNewline)
        guard lines.first == "#EXTM3U",
            let line = lines.first(where: { $0.hasPrefix("#EXT-X-STREAM-INF:") })
        else { return nil }
        let attributes = MediaPlaylist.attributes(line.dropFirst("#EXT-X-STREAM-INF:".count))
        guard let bandwidth = attributes["BANDWIDTH"].flatMap({ Int($0) }), bandwidth > 0 else { return nil }
        let size = (attributes["RESOLUTION"] ?? "").split(separator: "x").compactMap { Int($0) }
        let codecs = attributes["CODECS"].map { $0.split(separator: ",").map(String.init) } ?? []
        return Variant(
            uri: MediaFileName.mediaPlaylist.description, bandwidth: bandwidth,
            averageBandwidth: attributes["AVERAGE-BANDWIDTH"].flatMap { Int($0) } ?? bandwidth, codecs: codecs,
            width: size.count == 2 ? max(0, size[0]) : 0, height: size.count == 2 ? max(0, size[1]) : 0,
            frameRate: attributes["FRAME-RATE"].flatMap { Double($0) }.map { max(0, min($0, 1000)) } ?? 0)
    }
}
