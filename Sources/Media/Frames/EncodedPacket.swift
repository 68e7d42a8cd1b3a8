package import CFFmpeg

/// One compressed access unit from an encoder. Owns its AVPacket; immutable once made (an encoder
/// sets what it must before wrapping it), so any number of stages may read it at once.
// Unchecked Sendable: a C handle (AVPacket), immutable once made.
public final class EncodedPacket: @unchecked Sendable {
    package let packet: UnsafePointer<AVPacket>
    public let track: TrackID
    public let kind: MediaKind
    public let timeBase: TimeBase

    /// Takes the packet over from the caller, who must neither free nor change it.
    package init(
        takingOwnership packet: UnsafeMutablePointer<AVPacket>, track: TrackID, kind: MediaKind, timeBase: TimeBase
    ) {
        self.packet = UnsafePointer(packet)
        self.track = track
        self.kind = kind
        self.timeBase = timeBase
    }

    public var pts: Int64 { packet.pointee.pts }
    public var dts: Int64 { packet.pointee.dts }
    public var duration: Int64 { packet.pointee.duration }
    public var size: Int { Int(packet.pointee.size) }
    public var isKeyframe: Bool { packet.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    /// The stream's headers, when the encoder hands them over with this packet (libaom's AV1
    /// sequence header comes with its first). Wraps `av_packet_get_side_data`.
    public var newExtradata: [UInt8]? {
        var size = 0
        guard let data = av_packet_get_side_data(packet, AV_PKT_DATA_NEW_EXTRADATA, &size), size > 0 else {
            return nil
        }
        return Array(UnsafeBufferPointer(start: data, count: size))
    }

    /// Decode time in seconds since the broadcast began.
    public var decodeSeconds: Double { timeBase.seconds(dts) }
    public var presentationSeconds: Double { timeBase.seconds(pts) }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = UnsafeMutablePointer(mutating: packet)
        av_packet_free(&packet)
    }
}

/// What the encoders send the packaging stage: packets, then each track's end.
public enum PacketMessage: Sendable {
    case packet(EncodedPacket)
    case end(TrackID)
}
