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
            lines.append(
                "#EXT-X-STREAM-INF:BANDWIDTH=\(variant.bandwidth),AVERAGE-BANDWIDTH=\(variant.averageBandwidth),"
                    + "CODECS=\"\(variant.codecs.joined(separator: ","))\",RESOLUTION=\(variant.width)x\(variant.height),"
                    + "FRAME-RATE=\(MediaPlaylist.decimal(variant.frameRate))")
            lines.append(variant.uri)
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
