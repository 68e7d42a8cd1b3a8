import Capture
import Encoding
import HLS
import Media
import Push
import Testing
import Runtime

/// The event codes, declared beside their features: their wire names, and which are problems.
@Suite struct EventCodeTests {
    @Test func eachCodeKeepsItsWireNameAndSaysWhetherItIsAProblem() {
        let codes: [BroadcastEvent.Code] = [
            .started, .paused, .resumed, .stopped, .captureInterrupted, .captureRecovered, .audioDeviceLost,
            .audioDeviceRecovered, .audioAppSilent, .audioAppPlaying, .encoderOverloaded, .renditionOverloaded,
            .renditionRecovered, .diskWriteFailed, .diskWriteRecovered, .diskWriteBehind, .diskWriteCaughtUp,
            .pushFailed, .pushRecovered, .recordFailed, .recordRecovered, .recordStarted, .recordingRemoved,
            .dvrFailed, .dvrRecovered,
        ]
        #expect(Set(codes.map(\.rawValue)).count == 25)
        #expect(
            codes.filter(\.isProblem).map(\.rawValue) == [
                "capture_interrupted", "audio_device_lost", "audio_app_silent", "encoder_overloaded",
                "rendition_overloaded", "disk_write_failed", "disk_write_behind", "push_failed", "record_failed",
                "dvr_failed",
            ])
        #expect(BroadcastEvent.Code.diskWriteCaughtUp.rawValue == "disk_write_caught_up")
        #expect(BroadcastEvent.Code("push_failed") == .pushFailed)
    }
}
