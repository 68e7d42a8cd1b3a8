/// One media playlist of a channel and what the multivariant playlist says of it: for now a video
/// rendition with its sound muxed in. An ABR ladder is several of these sharing one clock and one grid.
public struct Rendition: Sendable, Equatable {
    /// Tells the renditions of one channel apart in publications and logs.
    public var id: String
    public var width: Int
    public var height: Int
    public var fps: Int
    /// The encoders' target bits per second; audio is 0 without a sound track.
    public var videoBitrate: Int
    public var audioBitrate: Int
    /// RFC 6381 codec strings of its tracks, e.g. `avc1.64001f`, `mp4a.40.2`.
    public var codecs: [String]

    public init(
        id: String = "main", width: Int, height: Int, fps: Int, videoBitrate: Int, audioBitrate: Int, codecs: [String]
    ) {
        self.id = id
        self.width = width
        self.height = height
        self.fps = fps
        self.videoBitrate = videoBitrate
        self.audioBitrate = audioBitrate
        self.codecs = codecs
    }

    /// Bits per second to announce until segments have been measured: the targets plus container overhead.
    public var estimatedBitrate: Int { (videoBitrate + audioBitrate) * 11 / 10 }
}
