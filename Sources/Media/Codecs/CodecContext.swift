internal import CFFmpeg

/// Owns one opened AVCodecContext and turns frames into packets.
///
/// EAGAIN and EOF from libav are results here, not errors: `send` then `receive` returns
/// whatever packets are ready, possibly none.
final class CodecContext {
    let context: UnsafeMutablePointer<AVCodecContext>
    let track: TrackID
    let kind: MediaKind
    private let packetTimeBase: TimeBase
    /// Sets what the encoder's own packets need (durations, timestamps) before they are wrapped:
    /// a packet never changes once it is an `EncodedPacket`.
    private let finish: (UnsafeMutablePointer<AVCodecContext>, UnsafeMutablePointer<AVPacket>) -> Void

    /// Allocates a context for the named encoder, lets `configure` set it up, and opens it.
    /// Wraps `avcodec_alloc_context3` and `avcodec_open2`.
    init(
        encoder name: String, track: TrackID, kind: MediaKind,
        configure: (UnsafeMutablePointer<AVCodecContext>) throws -> Void,
        finish: @escaping (UnsafeMutablePointer<AVCodecContext>, UnsafeMutablePointer<AVPacket>) -> Void = { _, _ in }
    ) throws {
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw LibavError(code: -ENOENT, operation: "avcodec_find_encoder_by_name(\(name))")
        }
        let context = try LibavAllocation(avcodec_alloc_context3(codec), "avcodec_alloc_context3") {
            avcodec_free_context(&$0)
        }
        try configure(context.pointer)
        try check(avcodec_open2(context.pointer, codec, nil), "avcodec_open2(\(name))")
        self.context = context.handOver()
        self.track = track
        self.kind = kind
        self.finish = finish
        self.packetTimeBase = TimeBase(self.context.pointee.time_base.num, self.context.pointee.time_base.den)
    }

    /// Sends one frame (nil: end of stream) and returns the packets that became ready.
    /// Wraps `avcodec_send_frame` and `avcodec_receive_packet`.
    func encode(_ frame: UnsafePointer<AVFrame>?) throws(LibavError) -> [EncodedPacket] {
        let sent = avcodec_send_frame(context, frame)
        if sent != LibavError.endOfFile {
            try check(sent, "avcodec_send_frame")
        }
        var packets: [EncodedPacket] = []
        while true {
            let packet = try LibavAllocation(av_packet_alloc(), "av_packet_alloc") { av_packet_free(&$0) }
            let received = avcodec_receive_packet(context, packet.pointer)
            if received == LibavError.tryAgain || received == LibavError.endOfFile {
                return packets
            }
            try check(received, "avcodec_receive_packet")
            finish(context, packet.pointer)
            packets.append(
                EncodedPacket(takingOwnership: packet.handOver(), track: track, kind: kind, timeBase: packetTimeBase))
        }
    }

    func streamDescription() throws(LibavError) -> StreamDescription {
        try StreamDescription(encoder: context, track: track, kind: kind)
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&context)
    }
}
