import Foundation
import Testing
import Logging

@testable import onair

@Suite struct ConsoleLogTests {
    @Test func textPutsTheEventCodeBeforeTheMessage() {
        #expect(
            ConsoleLogHandler.line(
                format: .text, time: "2026-11-22T04:00:00.250Z", level: .warning, message: "audio device pulse failed",
                fields: ["event": "audio_device_lost", "channel": "demo"])
                == "2026-11-22T04:00:00.250Z warning [audio_device_lost] audio device pulse failed")
        #expect(
            ConsoleLogHandler.line(
                format: .text, time: "2026-11-22T04:00:00.250Z", level: .info, message: "hello", fields: [:])
                == "2026-11-22T04:00:00.250Z info hello")
    }

    @Test func jsonIsOneObjectWithSortedKeys() {
        #expect(
            ConsoleLogHandler.line(
                format: .json, time: "2026-11-22T04:00:00.250Z", level: .notice, message: "paused \"now\"",
                fields: ["event": "paused", "channel": "demo"])
                == #"{"channel":"demo","event":"paused","level":"notice","message":"paused \"now\"","#
                + #""time":"2026-11-22T04:00:00.250Z"}"#)
    }

    @Test func theTokenFileFollowsXDGStateHome() {
        #expect(
            ControlToken.file(channel: "demo", environment: ["XDG_STATE_HOME": "/var/state"]).path
                == "/var/state/onair/demo.token")
        #expect(
            ControlToken.file(channel: "demo", environment: ["HOME": "/home/ana"]).path
                == "/home/ana/.local/state/onair/demo.token")
        #expect(
            ControlToken.file(channel: "demo", environment: ["XDG_STATE_HOME": "state", "HOME": "/home/ana"]).path
                == "/home/ana/.local/state/onair/demo.token")
        #expect(ControlToken.file(channel: "demo", environment: [:]).path.hasSuffix("/.local/state/onair/demo.token"))
    }

    @Test func theStateFolderFollowsXDGStateHomeThenHome() {
        #expect(StateFolder.path(environment: ["XDG_STATE_HOME": "/s", "HOME": "/h"]) == "/s/onair")
        // A relative XDG_STATE_HOME or HOME is to be ignored (the base directory specification).
        #expect(StateFolder.path(environment: ["XDG_STATE_HOME": "s", "HOME": "/h"]) == "/h/.local/state/onair")
        #expect(StateFolder.path(environment: ["HOME": "/home/ann"]) == "/home/ann/.local/state/onair")
        let account = FileManager.default.homeDirectoryForCurrentUser.path
        #expect(StateFolder.path(environment: ["HOME": "home"]) == account + "/.local/state/onair")
        #expect(StateFolder.path(environment: [:]) == account + "/.local/state/onair")
    }

    @Test func randomTokensAre32URLSafeCharacters() {
        let tokens = (0..<50).map { _ in ControlToken.random() }
        #expect(Set(tokens).count == 50)
        for token in tokens {
            #expect(token.count == 32)
            #expect(token.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        }
    }
}
