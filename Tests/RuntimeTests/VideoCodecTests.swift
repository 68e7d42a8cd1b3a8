import Testing

import Runtime

@Suite struct VideoCodecTests {
    @Test func namesAreReadWhateverTheirCase() {
        #expect(VideoCodec(name: "AV1") == .av1)
        #expect(VideoCodec(name: "h264") == .h264)
        #expect(VideoCodec(name: "hevc") == nil)
        #expect(VideoCodec.names == "h264, av1")
    }

    @Test func av1TravelsInFMP4OnlyAndAtHalfTheRate() {
        #expect(VideoCodec.h264.travelsInMPEGTSAndFLV)
        #expect(!VideoCodec.av1.travelsInMPEGTSAndFLV)
        #expect(VideoCodec.av1.rateShare == 0.5)
        #expect(VideoCodec.av1.encoderName == "libaom-av1")
    }

    @Test func soundIsToldFromPictureByTheCodecStringsFirstPart() {
        for sound in ["mp4a.40.2", "ac-3", "ec-3", "opus", "flac", "MP4A.40.5"] {
            #expect(CodecFamily.isAudio(sound), "\(sound)")
        }
        for picture in ["avc1.64001f", "av01.0.08M.08", "hvc1.1.6.L93.B0", "vp09.00.10.08", "mp4"] {
            #expect(!CodecFamily.isAudio(picture), "\(picture)")
        }
    }
}
