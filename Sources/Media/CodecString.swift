import Runtime

/// RFC 6381 codec strings read from an encoder's extradata.
public enum CodecString {
    /// `avc1.PPCCLL` from the SPS in Annex B or avcC extradata; nil when there is no SPS.
    public static func avc(extradata: [UInt8]) -> String? {
        let sps: ArraySlice<UInt8>
        if extradata.first == 1, extradata.count >= 4 {
            sps = extradata[1...3]
        } else if let start = spsStart(annexB: extradata), start + 3 < extradata.count {
            sps = extradata[(start + 1)...(start + 3)]
        } else {
            return nil
        }
        return "avc1." + sps.map { hex($0) }.joined()
    }

    /// `av01.P.LLT.DD` (profile, level, tier, bit depth) from an AV1 sequence header: the header's OBU
    /// (what libaom hands over with its first packet) or an `av1C` record. Nil when it is neither.
    public static func av1(sequenceHeader bytes: [UInt8]) -> String? {
        if bytes.count >= 4, bytes[0] == 0x81 {
            // av1C: marker and version, then profile (3) and level (5), then tier, high bit depth, 12 bits.
            let profile = Int(bytes[1] >> 5)
            let level = Int(bytes[1] & 0x1f)
            let tier = bytes[2] >> 7
            let depth = bytes[2] & 0x40 == 0 ? 8 : (bytes[2] & 0x20 == 0 ? 10 : 12)
            return av1String(profile: profile, level: level, highTier: tier == 1, depth: depth)
        }
        guard let payload = sequenceHeaderPayload(bytes) else { return nil }
        var reader = BitReader(payload)
        return try? AV1SequenceHeader(&reader).codecString
    }

    static func av1String(profile: Int, level: Int, highTier: Bool, depth: Int) -> String {
        "av01.\(profile).\(String(zeroPadded: level, width: 2))\(highTier ? "H" : "M").\(String(zeroPadded: depth, width: 2))"
    }

    /// The payload of the sequence header OBU (type 1) these bytes start with.
    private static func sequenceHeaderPayload(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        guard let header = bytes.first, (header >> 3) & 0xf == 1 else { return nil }
        var index = 1 + Int((header >> 2) & 1)  // an extension byte follows when its flag is set
        guard header & 0x2 != 0 else { return bytes[min(index, bytes.count)...] }  // no size: the rest
        var size = 0
        for shift in stride(from: 0, to: 56, by: 7) {
            guard index < bytes.count else { return nil }
            let byte = bytes[index]
            index += 1
            size |= Int(byte & 0x7f) << shift
            if byte & 0x80 == 0 { break }
        }
        guard size <= bytes.count - index else { return nil }
        return bytes[index..<(index + size)]
    }

    /// `mp4a.40.N`, N the audio object type in the AudioSpecificConfig (2 for AAC-LC).
    public static func aac(extradata: [UInt8]) -> String {
        let objectType = extradata.first.map { $0 >> 3 } ?? 2
        return "mp4a.40.\(objectType)"
    }

    /// The offset of the first NAL unit of type 7 (SPS) after a start code.
    static func spsStart(annexB bytes: [UInt8]) -> Int? {
        var index = 0
        while index + 3 < bytes.count {
            if bytes[index] == 0, bytes[index + 1] == 0, bytes[index + 2] == 1 {
                if bytes[index + 3] & 0x1f == 7 { return index + 3 }
                index += 3
            } else {
                index += 1
            }
        }
        return nil
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0xf)]])
    }
}
