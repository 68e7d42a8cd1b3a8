import ArgumentParser
import Capture
import FoundationEssentials
import Media
import Publisher
import Runtime
#if canImport(Glibc)
    import Glibc
#endif

/// `--source` values.
enum SourceChoice: ExpressibleByArgument, Equatable {
    case test
    case screen
    case window(String)
    case region(PixelRect)
    /// The ScreenCast portal (Wayland desktops): a screen, a window, or a rectangle of the screen.
    case portal(ScreenCastPortal.Kind, region: PixelRect? = nil)

    init?(argument: String) {
        switch argument {
        case "test": self = .test
        case "screen": self = .screen
        case "portal", "portal:screen": self = .portal(.monitor)
        case "portal:window": self = .portal(.window)
        case _ where argument.hasPrefix("portal:region:"):
            guard let rect = Self.geometry(String(argument.dropFirst(14))) else { return nil }
            self = .portal(.monitor, region: rect)
        case _ where argument.hasPrefix("window:") && argument.count > 7:
            self = .window(String(argument.dropFirst(7)))
        case _ where argument.hasPrefix("region:"):
            guard let rect = Self.geometry(String(argument.dropFirst(7))) else { return nil }
            self = .region(rect)
        default: return nil
        }
    }

    /// `WxH+X+Y`.
    static func geometry(_ text: String) -> PixelRect? {
        let size = text.split(separator: "+", maxSplits: 1)
        guard size.count == 2, let frame = FrameSize(argument: String(size[0])) else { return nil }
        let offset = size[1].split(separator: "+")
        guard offset.count == 2, let x = Int(offset[0]), let y = Int(offset[1]), x >= 0, y >= 0,
            frame.width > 0, frame.height > 0
        else { return nil }
        return PixelRect(x: x, y: y, width: frame.width, height: frame.height)
    }
}

/// `--quality`: the short side of the output.
enum Quality: String, ExpressibleByArgument, CaseIterable {
    case p360 = "360p", p480 = "480p", p540 = "540p", p720 = "720p", p1080 = "1080p"

    var shortSide: Int { Int(rawValue.dropLast())! }
}

/// Turns the source options into an opened, checked source and the output size.
struct VideoSourceResolver {
    let choice: SourceChoice?
    /// The channel published: the portal's remembered choice is kept per channel.
    let channel: String
    let display: String?
    let cursor: Bool
    let windowGrace: Double
    let size: FrameSize?
    let quality: Quality?

    /// The source, the output size and the size of what is captured (for a ladder's rungs);
    /// `notice` is said when the source was chosen for the user.
    /// What a source resolves to: the input, the output size, the size of what is captured.
    typealias Resolved = (BroadcastConfiguration.VideoInput, FrameSize, FrameSize)

    func resolve(notice: (String) -> Void) throws -> Resolved {
        let environment = ProcessInfo.processInfo.environment
        let displayName = display ?? environment["DISPLAY"]
        var choice = self.choice ?? (displayName == nil ? .test : .screen)
        let short = quality?.shortSide ?? 720
        // On a Wayland desktop an X11 grab sees only XWayland's windows: the screen is shared
        // through the portal unless an X display is named.
        if Self.isWaylandSession(environment), display == nil, choice == .screen || self.choice == nil {
            switch ScreenCastPortal.probe() {
            case .success: choice = .portal(.monitor)
            case .failure(let error) where self.choice != nil:
                throw UsageError(message: error.description)
            case .failure(let error):
                notice("a Wayland session, but \(error.description.prefix { $0 != ":" })")
            }
        }
        if case .portal(let kind, let region) = choice {
            return try portal(kind, region: region, short: short, notice: notice)
        }
        if choice == .test {
            if self.choice == nil {
                notice("no display (DISPLAY is not set): publishing the built-in test pattern and tone")
            }
            let base = FrameGeometry.size(sourceWidth: 1280, sourceHeight: 720, shortSide: short, upscale: true)
            return (
                .testPattern, size ?? FrameSize(width: base.width, height: base.height),
                FrameSize(width: 1280, height: 720)
            )
        }
        let connection: X11Display
        do {
            connection = try X11Display(name: displayName)
        } catch {
            throw UsageError(message: error.description)
        }
        let screen = PixelRect(x: 0, y: 0, width: connection.screenWidth, height: connection.screenHeight)
        let target: ScreenSource.Target
        let area: PixelRect
        switch choice {
        case .test, .screen, .portal:
            target = .screen
            area = screen
        case .region(let rect):
            guard rect.clipped(to: screen) == rect else {
                throw UsageError(
                    message: CaptureError.regionOutsideScreen(
                        rect.description, screenWidth: screen.width, screenHeight: screen.height
                    )
                    .description)
            }
            target = .region(rect)
            area = rect
        case .window(let query):
            let window = try Self.findWindow(query, on: connection)
            target = .window(window.id)
            area = PixelRect(x: 0, y: 0, width: window.width, height: window.height)
        }
        let output =
            size
            ?? {
                let fitted = FrameGeometry.size(sourceWidth: area.width, sourceHeight: area.height, shortSide: short)
                return FrameSize(width: fitted.width, height: fitted.height)
            }()
        if self.choice == nil {
            notice("sharing the screen of display \(connection.name) (pick another with --source)")
        }
        return (
            .screen(connection, target, cursor: cursor, windowGrace: windowGrace), output,
            FrameSize(width: area.width, height: area.height)
        )
    }

    /// What SIGINT and SIGTERM do while the desktop's dialog is open: nothing has started, so one
    /// line and the signal's exit status (128 + its number). Only async-signal-safe calls.
    private static let stopWhileTheDialogIsOpen: @convention(c) (Int32) -> Void = { signal in
        let line: StaticString = "onair: stopped while the desktop's dialog was open: nothing was shared\n"
        _ = write(STDERR_FILENO, line.utf8Start, line.utf8CodeUnitCount)
        _exit(128 + signal)
    }

    /// Whether onair runs in a Wayland desktop session.
    static func isWaylandSession(_ environment: [String: String]) -> Bool {
        environment["XDG_SESSION_TYPE"] == "wayland" || !(environment["WAYLAND_DISPLAY"] ?? "").isEmpty
    }

    /// Asks the desktop's ScreenCast portal for a screen or a window; the stream it gives is
    /// checked (a picture format agreed) before the broadcast starts.
    private func portal(
        _ kind: ScreenCastPortal.Kind, region: PixelRect?, short: Int, notice: (String) -> Void
    ) throws -> Resolved {
        let tokens = RestoreTokenStore(directory: StateFolder.path(), channel: channel) {
            writeToStandardError("warning: \($0)\n")
        }
        let capture: PortalCapture
        do {
            // Ctrl-C while the dialog is open ends onair with a line saying so; the broadcast's own
            // shutdown takes over once the source is agreed.
            let interrupt = signal(SIGINT, Self.stopWhileTheDialogIsOpen)
            let terminate = signal(SIGTERM, Self.stopWhileTheDialogIsOpen)
            defer {
                signal(SIGINT, interrupt)
                signal(SIGTERM, terminate)
            }
            // Said at once: the desktop may be showing its dialog while this waits.
            capture = try ScreenCastPortal.open(kind, cursor: cursor, remembered: tokens) {
                writeToStandardError("\($0)\n")
            }
        } catch {
            throw UsageError(message: error.description)
        }
        let shared = PixelRect(x: 0, y: 0, width: capture.width, height: capture.height)
        if let region, region.clipped(to: shared) != region {
            throw UsageError(
                message: CaptureError.regionOutsideScreen(
                    region.description, screenWidth: shared.width, screenHeight: shared.height
                )
                .description)
        }
        let area = region ?? shared
        let output =
            size
            ?? {
                let fitted = FrameGeometry.size(sourceWidth: area.width, sourceHeight: area.height, shortSide: short)
                return FrameSize(width: fitted.width, height: fitted.height)
            }()
        let what = "a \(capture.width)x\(capture.height) \(kind == .monitor ? "screen" : "window")"
        notice("sharing \(region.map { "the \($0.description) region of " } ?? "")\(what) through the desktop's portal")
        return (.portal(capture, region: region), output, FrameSize(width: area.width, height: area.height))
    }

    /// A window by id (`0x400001` or decimal) or by title text (case-insensitive, exact title preferred).
    static func findWindow(_ query: String, on display: X11Display) throws -> WindowInfo {
        let windows = display.windows()
        let id = query.lowercased().hasPrefix("0x") ? UInt(query.dropFirst(2), radix: 16) : UInt(query)
        if let id {
            if let window = windows.first(where: { $0.id == id }) { return window }
            throw UsageError(
                message: CaptureError.noWindow(query, closeMatches: windows.prefix(5).map(\.summary)).description)
        }
        let needle = query.lowercased()
        let matches = windows.filter { $0.title.lowercased().contains(needle) }
        let exact = matches.filter { $0.title.lowercased() == needle }
        if matches.count == 1 { return matches[0] }
        if exact.count == 1 { return exact[0] }
        if matches.isEmpty {
            let words = needle.split(separator: " ")
            let close = windows.filter { window in words.contains { window.title.lowercased().contains($0) } }
            throw UsageError(
                message: CaptureError.noWindow(
                    query, closeMatches: (close.isEmpty ? windows : close).prefix(5).map(\.summary)
                )
                .description)
        }
        throw UsageError(message: CaptureError.severalWindows(query, matches: matches.map(\.summary)).description)
    }
}
