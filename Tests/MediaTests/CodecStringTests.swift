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
}
