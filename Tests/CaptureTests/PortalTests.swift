import Synchronization
import Foundation
import Testing

@testable import Capture

struct RestoreTokenStoreTests {
    @Test func aTokenIsKeptPerChannelAndKindReadableByTheUserOnly() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = RestoreTokenStore(directory: folder + "/onair", channel: "talk") { Issue.record("warned: \($0)") }
        #expect(store.load(.monitor) == nil)
        store.save("4dd16f84-3194", for: .monitor)
        store.save("window-token", for: .window)
        #expect(store.load(.monitor) == "4dd16f84-3194" && store.load(.window) == "window-token")
        #expect(store.path(for: .monitor) == folder + "/onair/talk.portal-screen.token")
        #expect(store.path(for: .window) == folder + "/onair/talk.portal-window.token")
        let other = RestoreTokenStore(directory: folder + "/onair", channel: "demo") { Issue.record("warned: \($0)") }
        #expect(other.load(.monitor) == nil, "another channel's choice is not taken")
        let mode = try FileManager.default.attributesOfItem(atPath: store.path(for: .monitor))[.posixPermissions]
        #expect((mode as? NSNumber)?.intValue == 0o600)
        store.save("next", for: .monitor)
        #expect(store.load(.monitor) == "next")
    }

    @Test func aTokenKeptForEveryChannelIsTakenOnceByTheFirstChannel() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID())").path
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: folder + "/portal-screen.token", contents: Data("old-token\n".utf8))
        let store = RestoreTokenStore(directory: folder, channel: "talk") { Issue.record("warned: \($0)") }
        let other = RestoreTokenStore(directory: folder, channel: "demo") { Issue.record("warned: \($0)") }
        #expect(store.load(.window) == nil, "a screen's token is not a window's")
        #expect(store.load(.monitor) == "old-token")
        #expect(!FileManager.default.fileExists(atPath: folder + "/portal-screen.token"))
        #expect(other.load(.monitor) == nil, "used once")
        store.save("new-token", for: .monitor)
        _ = FileManager.default.createFile(atPath: folder + "/portal-screen.token", contents: Data("stale\n".utf8))
        #expect(store.load(.monitor) == "new-token", "the channel's own first")
    }

    @Test func anUnwritableFolderIsAWarningNotAFailure() {
        let warned = WarningBox()
        let store = RestoreTokenStore(directory: "/proc/onair", channel: "talk") { warned.add($0) }
        store.save("token", for: .monitor)
        #expect(
            warned.messages == ["cannot keep the portal's restore token in /proc/onair: the next start will ask again"])
    }
}

final class WarningBox: Sendable {
    private let stored = Mutex<[String]>([])
    func add(_ message: String) { stored.withLock { $0.append(message) } }
    var messages: [String] { stored.withLock { $0 } }
}

struct ScreenCastOfferTests {
    @Test func theOfferSaysWhatCanBeShared() {
        let wlroots = ScreenCastPortal.Offer(version: 4, sourceTypes: 1, cursorModes: 3)
        #expect(wlroots.monitors && !wlroots.windows && wlroots.embeddedCursor && wlroots.restoresSessions)
        #expect(
            wlroots.summary
                == "screens, the pointer drawn in, remembers the choice for unattended restarts (ScreenCast version 4)")
        let old = ScreenCastPortal.Offer(version: 1, sourceTypes: 3, cursorModes: 1)
        #expect(old.summary == "screens and windows, no pointer (ScreenCast version 1)")
        #expect(ScreenCastPortal.Kind.monitor.sourceType == 1 && ScreenCastPortal.Kind.window.sourceType == 2)
    }
}
