internal import CFFmpeg

/// A container being read (a recording's segment) over libavformat's demuxers: its streams, then
/// its packets one by one. Owns the AVFormatContext.
public final class Demuxer {
    /// libav's AV_NOPTS_VALUE: no timestamp.
    static let noTimestamp = Int64.min

    /// One stream of the container.
    public struct Stream {
        /// Picture or sound; nil for any other (data, subtitles).
        public let kind: MediaKind?
        public let timeBase: TimeBase
        let parameters: UnsafePointer<AVCodecParameters>
    }

    /// One packet just read: valid only during the call that hands it over (the next read reuses it).
    public struct Packet {
        let packet: UnsafeMutablePointer<AVPacket>
        public let stream: Stream

        /// Decode time (presentation time when it has none), in seconds of its stream.
        public var decodeSeconds: Double {
            let dts = packet.pointee.dts
            return stream.timeBase.seconds(dts == Demuxer.noTimestamp ? packet.pointee.pts : dts)
        }

        public var durationSeconds: Double { stream.timeBase.seconds(packet.pointee.duration) }

        /// Whether it can be decoded on its own (a video keyframe, or any sound packet).
        public var isKeyframe: Bool { packet.pointee.flags & AV_PKT_FLAG_KEY != 0 }
    }

    private var context: UnsafeMutablePointer<AVFormatContext>?

    /// Opens `address` (a path, or any address libavformat reads, e.g. `concat:init.mp4|seg.m4s`)
    /// and reads enough to know its streams. Wraps `avformat_open_input` and
    /// `avformat_find_stream_info`.
    public init(address: String, name: String) throws(LibavError) {
        try check(avformat_open_input(&context, address, nil, nil), "opening \(name)")
        do {
            try check(avformat_find_stream_info(context, nil), "reading \(name)'s streams")
        } catch {
            avformat_close_input(&context)
            throw error
        }
    }

    /// The container's streams as known so far: an MPEG-TS may show one more partway through.
    public var streams: [Stream] {
        (0..<Int(context!.pointee.nb_streams)).map { Self.describe(context!.pointee.streams[$0]!) }
    }

    private static func describe(_ stream: UnsafeMutablePointer<AVStream>) -> Stream {
        let parameters = stream.pointee.codecpar!
        let kind: MediaKind? =
            switch parameters.pointee.codec_type {
            case AVMEDIA_TYPE_VIDEO: .video
            case AVMEDIA_TYPE_AUDIO: .audio
            default: nil
            }
        return Stream(
            kind: kind, timeBase: TimeBase(stream.pointee.time_base.num, stream.pointee.time_base.den),
            parameters: UnsafePointer(parameters))
    }

    /// Reads the packets to the end, handing each to `body`. Wraps `av_read_frame`.
    public func readPackets(_ body: (Packet) throws -> Void) throws {
        let packet = try LibavAllocation(av_packet_alloc(), "av_packet_alloc") { av_packet_free(&$0) }
        while av_read_frame(context, packet.pointer) >= 0 {
            defer { av_packet_unref(packet.pointer) }
            // The packet's stream as the context has it now (it may have appeared since the start).
            let stream = context!.pointee.streams[Int(packet.pointer.pointee.stream_index)]!
            try body(Packet(packet: packet.pointer, stream: Self.describe(stream)))
        }
    }

    deinit {
        avformat_close_input(&context)
    }
}
