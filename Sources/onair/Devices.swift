import ArgumentParser
import Capture
import FoundationEssentials

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract:
            "List what can be shared: the desktop's screen-sharing portal (Wayland), the X screen, its windows, the applications playing sound and PipeWire's sources and sinks, and the ALSA capture devices.",
        discussion:
            "Use a window's id or title with --source window:<id or title>, the portal with --source portal, an application with --audio app:<name>, a source, sink or device with --audio or --audio-mix."
    )

    @Option(help: ArgumentHelp("The X display to look at. (default: $DISPLAY)", valueName: "display"))
    var display: String?

    func run() throws {
        let sound = AlsaSource.captureDevices()
        let pipeWire = PipeWireSource.nodes()
        defer {
            Self.printPipeWire(pipeWire)
            Self.printSound(sound)
        }
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

    /// What PipeWire offers: the applications playing now (one line per application, with its
    /// streams counted), then its sources and sinks, each with the option that takes it.
    private static func printPipeWire(_ nodes: [AudioNode]?) {
        guard let nodes else { return print("no PipeWire running: per-application sound needs it") }
        let streams = nodes.filter { $0.kind == .applicationStream }
        var applications: [(name: String, binary: String, pid: Int, streams: Int)] = []
        for stream in streams {
            let name = stream.application.isEmpty ? stream.binary : stream.application
            if let index = applications.firstIndex(where: { $0.name == name && $0.pid == stream.processID }) {
                applications[index].streams += 1
            } else {
                applications.append((name, stream.binary, stream.processID, 1))
            }
        }
        print(
            applications.isEmpty
                ? "no applications playing sound now" : "applications playing sound (--audio app:<name>):")
        for application in applications {
            let option = "app:\(application.name.contains(" ") ? application.binary : application.name)"
            let details = [
                application.binary.isEmpty || application.binary == application.name ? nil : application.binary,
                application.pid > 0 ? "pid \(application.pid)" : nil,
                application.streams > 1 ? "\(application.streams) streams" : nil,
            ].compactMap { $0 }
            print("  \(option)" + (details.isEmpty ? "" : "  (\(details.joined(separator: ", ")))"))
        }
        let devices = nodes.filter { $0.kind != .applicationStream }
        guard !devices.isEmpty else { return }
        print(
            "PipeWire sources and sinks (--audio, --audio-mix; pipewire:monitor is what the default sink plays, pipewire:default the default source):"
        )
        let width = devices.map { $0.name.count + 9 }.max() ?? 0
        for device in devices {
            let option = padded("pipewire:\(device.name)", to: width)
            let what = device.kind == .sink ? "what it plays" : "source"
            print("  \(option)  \(device.description.isEmpty ? what : "\(device.description), \(what)")")
        }
    }

    /// The text with spaces after it up to `width` characters: a column.
    private static func padded(_ text: String, to width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    private static func printSound(_ devices: [CaptureDevice]) {
        guard !devices.isEmpty else { return print("no sound capture devices") }
        print("sound capture devices (--audio, --audio-mix):")
        let width = devices.map(\.name.count).max() ?? 0
        for device in devices {
            let name = padded(device.name, to: width)
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
