import ArgumentParser
import Capture
import Foundation

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List what can be shared: the X screen and its windows.",
        discussion: "Use a window's id or title with --source window:<id or title>.")

    @Option(help: ArgumentHelp("The X display to look at. (default: $DISPLAY)", valueName: "display"))
    var display: String?

    func run() throws {
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
