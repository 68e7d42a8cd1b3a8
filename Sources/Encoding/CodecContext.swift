internal import CFFmpeg
import Media

/// Owns one opened AVCodecContext and turns frames into packets.
///
/// EAGAIN and EOF from libav are results here, not errors: `send` then `receive` returns
/// whatever packets are ready, possibly none.
final class CodecContext {
    let context: UnsafeMutablePointer<AVCodecContext>
    let kind: MediaKind
    private let packetTimeBase: TimeBase

    /// Allocates a context for the named encoder, lets `configure` set it up, and opens it.
    /// Wraps `avcodec_alloc_context3` and `avcodec_open2`.
    init(
        encoder name: String, kind: MediaKind,
        configure: (UnsafeMutablePointer<AVCodecContext>) throws -> Void
    ) throws {
        guard let codec = avcodec_find_encoder_by_name(name) else {
            throw LibavError(code: -ENOENT, operation: "avcodec_find_encoder_by_name(\(name))")
        }
        var context: UnsafeMutablePointer<AVCodecContext>? = try checkAllocation(
            avcodec_alloc_context3(codec), "avcodec_alloc_context3")
        do {
            try configure(context!)
            try check(avcodec_open2(context, codec, nil), "avcodec_open2(\(name))")
        } catch {
            avcodec_free_context(&context)
            throw error
        }
        self.context = context!
        self.kind = kind
        self.packetTimeBase = TimeBase(context!.pointee.time_base.num, context!.pointee.time_base.den)
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
            var packet: UnsafeMutablePointer<AVPacket>? = try checkAllocation(av_packet_alloc(), "av_packet_alloc")
            let received = avcodec_receive_packet(context, packet)
            if received == LibavError.tryAgain || received == LibavError.endOfFile {
                av_packet_free(&packet)
                return packets
            }
            do {
                try check(received, "avcodec_receive_packet")
            } catch {
                av_packet_free(&packet)
                throw error
            }
            packets.append(EncodedPacket(takingOwnership: packet!, kind: kind, timeBase: packetTimeBase))
        }
    }

    func streamDescription() throws(LibavError) -> StreamDescription {
        try StreamDescription(encoder: context, kind: kind)
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&context)
    }
}
