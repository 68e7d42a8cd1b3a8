import Testing

@testable import Media

@Suite struct CodecStringTests {
    @Test func avcFromAnnexBExtradataReadsProfileConstraintsAndLevel() {
        // x264's global header: start code, SPS (type 7) with profile 100, constraints 0, level 31.
        let extradata: [UInt8] = [0, 0, 0, 1, 0x67, 0x64, 0x00, 0x1f, 0xac, 0, 0, 0, 1, 0x68, 0xeb]
        #expect(CodecString.avc(extradata: extradata) == "avc1.64001f")
    }

    @Test func avcFromAvcCExtradata() {
        #expect(CodecString.avc(extradata: [1, 0x42, 0xc0, 0x1e, 0xff]) == "avc1.42c01e")
    }

    @Test func avcWithoutSPSIsNil() {
        #expect(CodecString.avc(extradata: [0, 0, 1, 0x68, 1, 2, 3]) == nil)
    }

    @Test func aacObjectTypeComesFromTheAudioSpecificConfig() {
        #expect(CodecString.aac(extradata: [0x11, 0x90]) == "mp4a.40.2")
        #expect(CodecString.aac(extradata: [0x2b, 0x92]) == "mp4a.40.5")
    }

    // Sequence header OBUs libaom 3.6 made (real-time, 8-bit 4:2:0), checked against ffprobe's
    // reading of the same streams: level 8 (4.0) at 1920x1080, 5 (3.1) at 1280x720, 1 (2.1) at 640x360.
    @Test func av1FromLibaomSequenceHeaders() {
        let headers: [(String, [UInt8])] = [
            ("av01.0.08M.08", [0x0a, 0x0b, 0x00, 0x00, 0x00, 0x42, 0xab, 0xbf, 0xc3, 0x77, 0x6b, 0xe4, 0x01]),
            ("av01.0.05M.08", [0x0a, 0x0b, 0x00, 0x00, 0x00, 0x2d, 0x4c, 0xff, 0xb3, 0xcd, 0xaf, 0x90, 0x04]),
            ("av01.0.01M.08", [0x0a, 0x0b, 0x00, 0x00, 0x00, 0x0c, 0xc4, 0xff, 0x67, 0x36, 0xbe, 0x40, 0x10]),
        ]
        for (expected, header) in headers {
            #expect(CodecString.av1(sequenceHeader: header) == expected)
        }
    }

    /// With timing information (1/30 s ticks, one a picture) and 10 bits a sample: the fields
    /// between are read past, and the depth comes from the colour configuration.
    @Test func av1ReadsPastTimingInformationToTheBitDepth() {
        let header: [UInt8] = [
            0x0a, 0x14, 0x04, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x7b, 0x40, 0x00, 0x01, 0xbc, 0xc4, 0xff,
            0x67, 0x36, 0xbe, 0x50, 0x10,
        ]
        #expect(CodecString.av1(sequenceHeader: header) == "av01.0.01M.10")
    }

    @Test func av1FromAnAv1CRecord() {
        #expect(CodecString.av1(sequenceHeader: [0x81, 0x08, 0x0c, 0x00]) == "av01.0.08M.08")
        #expect(CodecString.av1(sequenceHeader: [0x81, 0x01, 0x4c, 0x00]) == "av01.0.01M.10")
        // Profile 2, level 13 (5.1), high tier, 12 bits.
        #expect(CodecString.av1(sequenceHeader: [0x81, 0x4d, 0xe0, 0x00]) == "av01.2.13H.12")
    }

    @Test func av1OfWhatIsNoSequenceHeaderIsNil() {
        #expect(CodecString.av1(sequenceHeader: []) == nil)
        // A temporal delimiter (type 2), and a sequence header cut short.
        #expect(CodecString.av1(sequenceHeader: [0x12, 0x00]) == nil)
        #expect(CodecString.av1(sequenceHeader: [0x0a, 0x0b, 0x00, 0x00, 0x00, 0x42]) == nil)
    }
}
