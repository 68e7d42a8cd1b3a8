import ArgumentParser
import Capture
import Foundation

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List what can be shared: the X screen, its windows, and the sound capture devices.",
        discussion:
            "Use a window's id or title with --source window:<id or title>, a device with --audio or --audio-mix.")

    @Option(help: ArgumentHelp("The X display to look at. (default: $DISPLAY)", valueName: "display"))
    var display: String?

    func run() throws {
        let sound = AlsaSource.captureDevices()
        defer {
            print(sound.isEmpty ? "no sound capture devices" : "sound capture devices (--audio, --audio-mix):")
            for name in sound { print("  " + name) }
        }
        guard display != nil || ProcessInfo.processInfo.environment["DISPLAY"] != nil else {
            print("no display (DISPLAY is not set): only the test pattern can be shared")
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
}
