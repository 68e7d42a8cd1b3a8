import Testing
import HLSModel

@testable import Server
import Runtime

@Suite struct ControlRoutesTests {
    @Test func onlyTheExactBearerTokenMatches() {
        let token = "s3cret-token-0123456789"
        #expect(ControlRoutes.bearerMatches("Bearer s3cret-token-0123456789", token: token))
        #expect(ControlRoutes.bearerMatches("bearer s3cret-token-0123456789", token: token))
        #expect(!ControlRoutes.bearerMatches(nil, token: token))
        #expect(!ControlRoutes.bearerMatches("Bearer", token: token))
        #expect(!ControlRoutes.bearerMatches("Bearer ", token: token))
        #expect(!ControlRoutes.bearerMatches("Basic s3cret-token-0123456789", token: token))
        #expect(!ControlRoutes.bearerMatches("Bearer s3cret-token-012345678", token: token))
        #expect(!ControlRoutes.bearerMatches("Bearer s3cret-token-01234567890", token: token))
        #expect(!ControlRoutes.bearerMatches("Bearer S3cret-token-0123456789", token: token))
        #expect(!ControlRoutes.bearerMatches("Bearer  s3cret-token-0123456789", token: token))
    }

    @Test func anEmptyTokenLetsNobodyIn() {
        #expect(!ControlRoutes.bearerMatches("Bearer ", token: ""))
        #expect(!ControlRoutes.bearerMatches("Bearer x", token: ""))
    }

    @Test func anEventIsOneServerSentEventWithItsNumberAndCode() {
        let event = BroadcastEvent(
            code: BroadcastEvent.Code("audio_device_lost", problem: true), message: "audio device \"pulse\" failed",
            time: 1_795_320_000_250, sequence: 7)
        #expect(
            String(decoding: ControlRoutes.serverSentEvent(event, channel: "demo"), as: UTF8.self)
                == "id: 7\nevent: audio_device_lost\n"
                + #"data: {"channel":"demo","code":"audio_device_lost","message":"audio device \"pulse\" failed","#
                + #""sequence":7,"time":"2026-11-22T04:00:00.250Z"}"# + "\n\n")
    }
}
