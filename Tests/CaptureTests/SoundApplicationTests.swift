import Testing

@testable import Capture

struct SoundApplicationTests {
    private func stream(_ serial: UInt32, application: String = "", binary: String = "", pid: Int = 0) -> AudioNode {
        AudioNode(
            id: serial, serial: serial, kind: .applicationStream, name: "node\(serial)", application: application,
            binary: binary, processID: pid)
    }

    private typealias Change = StreamFollower.Change

    @Test func aNameMatchesTheApplicationNameOrTheBinaryIgnoringCase() {
        let firefox = stream(1, application: "Firefox", binary: "firefox-esr", pid: 4242)
        #expect(SoundApplication("firefox")!.matches(firefox))
        #expect(SoundApplication("FIREFOX-ESR")!.matches(firefox))
        #expect(!SoundApplication("fire")!.matches(firefox))
        #expect(!SoundApplication("chromium")!.matches(firefox))
    }

    @Test func aNumberIsAProcessID() {
        #expect(SoundApplication("4242") == .processID(4242))
        #expect(SoundApplication("4242")!.matches(stream(1, application: "Firefox", pid: 4242)))
        #expect(!SoundApplication("4243")!.matches(stream(1, application: "Firefox", pid: 4242)))
        // A number is a process id, even where an application calls itself by it.
        #expect(!SoundApplication("4242")!.matches(stream(1, application: "4242", pid: 7)))
        #expect(SoundApplication("0") == .named("0"))
    }

    @Test func aProcessIDMatchesTheProcessesItStarted() {
        // A browser (4242) playing through its audio service (4300), started by it.
        let service = AudioNode(
            id: 1, serial: 1, kind: .applicationStream, name: "n", application: "Chromium", processID: 4300,
            parentProcessIDs: [4242, 1000])
        #expect(SoundApplication("4242")!.matches(service))
        #expect(SoundApplication("4300")!.matches(service))
        #expect(SoundApplication("1000")!.matches(service))
        #expect(!SoundApplication("4301")!.matches(service))
    }

    @Test func onlyPlaybackStreamsMatch() {
        let sink = AudioNode(id: 3, serial: 3, kind: .sink, name: "firefox", application: "firefox")
        #expect(!SoundApplication("firefox")!.matches(sink))
    }

    @Test func anEmptyNameIsRefused() {
        #expect(SoundApplication("") == nil)
        #expect(SoundApplication("  ") == nil)
        #expect(SoundApplication(" mpv ") == .named("mpv"))
    }

    @Test func streamsAreFollowedAsTheyComeAndGo() {
        var follower = StreamFollower(application: .named("mpv"))
        let mpv1 = stream(10, application: "mpv")
        let mpv2 = stream(11, binary: "mpv")
        let other = stream(12, application: "vlc")
        #expect(follower.update(nodes: [other]) == Change(start: [], stop: [], playing: false, playingChanged: true))
        #expect(follower.update(nodes: [other]) == Change(start: [], stop: [], playing: false, playingChanged: false))
        #expect(
            follower.update(nodes: [mpv1, other]) == Change(start: [10], stop: [], playing: true, playingChanged: true))
        #expect(
            follower.update(nodes: [mpv1, other, mpv2])
                == Change(start: [11], stop: [], playing: true, playingChanged: false))
        #expect(follower.following == [10, 11])
        #expect(follower.update(nodes: [mpv2]) == Change(start: [], stop: [10], playing: true, playingChanged: false))
        #expect(follower.update(nodes: []) == Change(start: [], stop: [11], playing: false, playingChanged: true))
    }

    @Test func afterAResetTheStreamsAreStartedAgainAndThePlayingSaidAgain() {
        var follower = StreamFollower(application: .processID(7))
        let playing = stream(5, pid: 7)
        _ = follower.update(nodes: [playing])
        follower.reset()
        #expect(follower.following == [])
        #expect(follower.update(nodes: [playing]) == Change(start: [5], stop: [], playing: true, playingChanged: true))
    }

    @Test func devicesAreParsedByTheirPrefix() throws {
        #expect(try SoundDevice(parsing: "app:Firefox") == .pipeWire(.application(.named("Firefox"))))
        #expect(try SoundDevice(parsing: "app:1234") == .pipeWire(.application(.processID(1234))))
        #expect(try SoundDevice(parsing: "pipewire") == .pipeWire(.defaultSource))
        #expect(try SoundDevice(parsing: "pipewire:default") == .pipeWire(.defaultSource))
        #expect(try SoundDevice(parsing: "pipewire:monitor") == .pipeWire(.defaultMonitor))
        #expect(try SoundDevice(parsing: "pipewire:alsa_input.usb-mic") == .pipeWire(.node("alsa_input.usb-mic")))
        #expect(try SoundDevice(parsing: "pulse:desk.monitor") == .alsa("pulse:desk.monitor"))
        #expect(try SoundDevice(parsing: "hw:1,0") == .alsa("hw:1,0"))
        #expect(
            throws: CaptureError.pipeWireSound(
                "app: needs an application: its name, its binary or its process id (app:firefox, app:1234); onair devices lists the applications playing now"
            )
        ) { try SoundDevice(parsing: "app:") }
    }
}
