internal import CFFmpeg
import FoundationEssentials

/// Text samples for an MP4's subtitle track (3GPP timed text, `mov_text`/`tx3g`) through libavcodec's
/// own encoder, which takes a caption in ASS's dialogue form (`{\b1}` for bold, `\N` for a line
/// break) and writes the sample with its style boxes.
public final class TimedTextEncoder {
    /// The ASS script header the encoder reads its default style from (white sans text, bottom
    /// centre): libavcodec requires one, and a subtitle decoder would hand it over.
    private static let header = """
        [Script Info]\r
        ScriptType: v4.00+\r
        PlayResX: 384\r
        PlayResY: 288\r
        \r
        [V4+ Styles]\r
        Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, \
        Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, \
        MarginR, MarginV, Encoding\r
        Style: Default,Sans,16,&Hffffff,&Hffffff,&H0,&H0,0,0,0,0,100,100,0,0,1,1,0,2,10,10,10,0\r
        \r
        [Events]\r
        Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text\r

        """

    let context: UnsafeMutablePointer<AVCodecContext>

    /// Opens libavcodec's `mov_text` encoder. Wraps `avcodec_alloc_context3` and `avcodec_open2`.
    public init() throws(LibavError) {
        guard let codec = avcodec_find_encoder(AV_CODEC_ID_MOV_TEXT) else {
            throw LibavError(code: -ENOENT, operation: "avcodec_find_encoder(mov_text)")
        }
        let context = try LibavAllocation(avcodec_alloc_context3(codec), "avcodec_alloc_context3") {
            avcodec_free_context(&$0)
        }
        let bytes = Array(Self.header.utf8)
        // Freed with the context, so allocated by libav.
        let header = try checkAllocation(av_mallocz(bytes.count + 1), "av_mallocz")
        header.copyMemory(from: bytes, byteCount: bytes.count)
        context.pointer.pointee.subtitle_header = header.assumingMemoryBound(to: UInt8.self)
        context.pointer.pointee.subtitle_header_size = Int32(bytes.count)
        context.pointer.pointee.time_base = AVRational(num: 1, den: 1000)
        try check(avcodec_open2(context.pointer, codec, nil), "avcodec_open2(mov_text)")
        self.context = context.handOver()
    }

    /// One sample: `dialogue`, ASS text (its override tags and `\N` line breaks), as the track's
    /// sample bytes. Wraps `avcodec_encode_subtitle`.
    public func sample(dialogue: String) throws(LibavError) -> [UInt8] {
        // ASS's dialogue event: ReadOrder, Layer, Style, Name, MarginL, MarginR, MarginV, Effect, Text.
        let event = "0,0,Default,,0,0,0,," + dialogue
        var output = [UInt8](repeating: 0, count: 16 * 1024 + 8 * event.utf8.count)
        let written = event.withCString { text in
            var rect = AVSubtitleRect()
            rect.type = SUBTITLE_ASS
            rect.ass = UnsafeMutablePointer(mutating: text)
            return withUnsafeMutablePointer(to: &rect) { rectPointer in
                var rects: [UnsafeMutablePointer<AVSubtitleRect>?] = [rectPointer]
                return rects.withUnsafeMutableBufferPointer { list in
                    var subtitle = AVSubtitle()
                    subtitle.format = 1
                    subtitle.num_rects = 1
                    subtitle.rects = list.baseAddress
                    return output.withUnsafeMutableBufferPointer {
                        avcodec_encode_subtitle(context, $0.baseAddress, Int32($0.count), &subtitle)
                    }
                }
            }
        }
        try check(written, "avcodec_encode_subtitle(mov_text)")
        return Array(output.prefix(Int(written)))
    }

    deinit {
        var context: UnsafeMutablePointer<AVCodecContext>? = context
        avcodec_free_context(&context)
    }
}
