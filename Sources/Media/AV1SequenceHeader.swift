/// Reads bits, most significant first, from bytes; past their end it throws.
struct BitReader {
    struct PastTheEnd: Error {}

    private let bytes: ArraySlice<UInt8>
    private var position = 0

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    /// The next `count` bits (at most 32) as a number.
    mutating func read(_ count: Int) throws(PastTheEnd) -> Int {
        var value = 0
        for _ in 0..<count {
            let byte = position / 8
            guard byte < bytes.count else { throw PastTheEnd() }
            let bit = (bytes[bytes.startIndex + byte] >> (7 - UInt8(position % 8))) & 1
            value = value << 1 | Int(bit)
            position += 1
        }
        return value
    }

    mutating func flag() throws(PastTheEnd) -> Bool { try read(1) == 1 }

    /// AV1's `uvlc()`: leading zeros, then as many bits.
    mutating func skipVariableLength() throws(PastTheEnd) {
        var zeros = 0
        while try read(1) == 0 {
            zeros += 1
            guard zeros < 32 else { throw PastTheEnd() }
        }
        _ = try read(zeros)
    }
}

/// What a codec string needs of an AV1 sequence header (`sequence_header_obu()`, AV1 spec 5.5):
/// the profile, the first operating point's level and tier, and the bit depth from the colour
/// configuration, read past every field between.
struct AV1SequenceHeader {
    var profile = 0
    var level = 0
    var highTier = false
    var depth = 8

    var codecString: String { CodecString.av1String(profile: profile, level: level, highTier: highTier, depth: depth) }

    init(_ bits: inout BitReader) throws(BitReader.PastTheEnd) {
        profile = try bits.read(3)
        _ = try bits.read(1)  // still_picture
        let reduced = try bits.flag()
        if reduced {
            level = try bits.read(5)
        } else {
            try readOperatingPoints(&bits)
        }
        let widthBits = try bits.read(4) + 1
        let heightBits = try bits.read(4) + 1
        _ = try bits.read(widthBits)
        _ = try bits.read(heightBits)
        if !reduced, try bits.flag() {  // frame_id_numbers_present_flag
            _ = try bits.read(4 + 3)
        }
        _ = try bits.read(3)  // 128x128 superblocks, filter intra, intra edge filter
        if !reduced { try readInterTools(&bits) }
        _ = try bits.read(3)  // superres, CDEF, loop restoration
        let highBitdepth = try bits.flag()
        if profile == 2, highBitdepth {
            depth = try bits.flag() ? 12 : 10
        } else {
            depth = highBitdepth ? 10 : 8
        }
    }

    /// Timing and decoder model information, then each operating point (the first one's level).
    private mutating func readOperatingPoints(_ bits: inout BitReader) throws(BitReader.PastTheEnd) {
        var decoderModel = false
        var bufferDelayLength = 0
        if try bits.flag() {  // timing_info_present_flag
            _ = try bits.read(32)  // num_units_in_display_tick
            _ = try bits.read(32)  // time_scale
            if try bits.flag() { try bits.skipVariableLength() }  // num_ticks_per_picture_minus_1
            decoderModel = try bits.flag()
            if decoderModel {
                bufferDelayLength = try bits.read(5) + 1
                _ = try bits.read(32)  // num_units_in_decoding_tick
                _ = try bits.read(5 + 5)  // buffer removal time and presentation time lengths
            }
        }
        let initialDisplayDelay = try bits.flag()
        let points = try bits.read(5) + 1
        for point in 0..<points {
            _ = try bits.read(12)  // operating_point_idc
            let pointLevel = try bits.read(5)
            var pointTier = false
            if pointLevel > 7 { pointTier = try bits.flag() }
            if decoderModel, try bits.flag() {
                _ = try bits.read(bufferDelayLength)
                _ = try bits.read(bufferDelayLength)
                _ = try bits.read(1)
            }
            if initialDisplayDelay, try bits.flag() { _ = try bits.read(4) }
            if point == 0 {
                level = pointLevel
                highTier = pointTier
            }
        }
    }

    /// The inter-prediction tools, screen content tools and order hints of a full header.
    private func readInterTools(_ bits: inout BitReader) throws(BitReader.PastTheEnd) {
        _ = try bits.read(4)  // interintra compound, masked compound, warped motion, dual filter
        let orderHint = try bits.flag()
        if orderHint { _ = try bits.read(2) }  // jnt_comp, ref_frame_mvs
        var screenContentTools = 2  // seq_choose_screen_content_tools: chosen per frame
        if !(try bits.flag()) { screenContentTools = try bits.read(1) }
        if screenContentTools > 0, !(try bits.flag()) {  // seq_choose_integer_mv
            _ = try bits.read(1)  // seq_force_integer_mv
        }
        if orderHint { _ = try bits.read(3) }  // order_hint_bits_minus_1
    }
}
