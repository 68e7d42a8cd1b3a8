import ArgumentParser
import Capture
import Foundation

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "List what can be shared: the desktop's screen-sharing portal (Wayland), the X screen, its windows, and the sound capture devices.",
        discussion:
            "Use a window's id or title with --source window:<id or title>, the portal with --source portal, a device with --audio or --audio-mix."
    )

    @Option(help: ArgumentHelp("The X display to look at. (default: $DISPLAY)", valueName: "display"))
    var display: String?

    func run() throws {
        let sound = AlsaSource.captureDevices()
        defer { Self.printSound(sound) }
        let portal = Self.printPortal()
        guard display != nil || ProcessInfo.processInfo.environment["DISPLAY"] != nil else {
            print(
                portal
                    ? "no X display (DISPLAY is not set)"
                    : "no display (DISPLAY is not set): only the test pattern can be shared")
            return
        }
        let connection: X11Display
        do {
            connection = try X11Display(name: display ?? ProcessInfo.processInfo.environment["DISPLAY"])
        } catch {
            throw UsageError(message: error.description)
        }
        print("screen \(connection.name)  \(connection.screenWidth)x\(connection.screenHeight)")
        let windows = connection.windows()
        print(windows.isEmpty ? "no windows with a title" : "windows:")
        for window in windows {
            print("  " + window.summary)
        }
    }

    /// The ScreenCast portal: what it offers, or why there is none (said on Wayland sessions, or
    /// wherever a portal answers).
    /// Whether one was found.
    private static func printPortal() -> Bool {
        let environment = ProcessInfo.processInfo.environment
        let wayland = VideoSourceResolver.isWaylandSession(environment)
        switch ScreenCastPortal.probe() {
        case .success(let offer):
            print("screen-sharing portal (--source portal\(offer.windows ? ", portal:window" : "")): \(offer.summary)")
            return true
        case .failure(let error) where wayland:
            print("no screen-sharing portal on this Wayland session: \(error.description)")
            return false
        case .failure:
            return false
        }
    }

    private static func printSound(_ devices: [CaptureDevice]) {
        guard !devices.isEmpty else { return print("no sound capture devices") }
        print("sound capture devices (--audio, --audio-mix):")
        let width = devices.map(\.name.count).max() ?? 0
        for device in devices {
            let name = device.name.padding(toLength: width, withPad: " ", startingAt: 0)
            print(device.description.map { "  \(name)  \($0)" } ?? "  \(device.name)")
        }
        if devices.contains(where: { $0.name == "pulse" }) {
            print(
                """
                through PulseAudio (or PipeWire's pulse server): pulse is the default input (a microphone),
                  pulse:@DEFAULT_MONITOR@ what the desktop plays, pulse:<source> any source (pactl list short sources)
                """)
        }
    }
}
