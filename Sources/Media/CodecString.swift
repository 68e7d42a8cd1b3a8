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
