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

/// Turns the source options into the picture's description, opened and checked, and the output size.
struct VideoSourceResolver {
    let choice: SourceChoice?
    /// The channel published: the portal's remembered choice is kept per channel.
    let channel: String
    let display: String?
    let cursor: Bool
    let windowGrace: Double
    let size: FrameSize?
    let quality: Quality?

    /// What a source resolves to: its description, the description opened (whose captured size
    /// a ladder's rungs are planned for), and the output size.
    typealias Resolved = (input: BroadcastConfiguration.VideoInput, opened: OpenedVideo, output: FrameSize)

    /// `notice` is said when the source was chosen for the user, and what the portal shares.
    func resolve(notice: (String) -> Void) throws -> Resolved {
        let input = try describe(notice: notice)
        let opened: OpenedVideo
        do {
            if case .portal = input {
                opened = try whileTheDialogIsOpen {
                    try OpenedVideo(opening: input, remembered: tokens) { writeToStandardError("\($0)\n") }
                }
            } else {
                opened = try OpenedVideo(opening: input, remembered: nil) { _ in }
            }
        } catch let error as CaptureError {
            throw UsageError(message: error.description)
        }
        let output =
            size
            ?? {
                let fitted = FrameGeometry.size(
                    sourceWidth: opened.capturedWidth, sourceHeight: opened.capturedHeight,
                    shortSide: quality?.shortSide ?? 720, upscale: input == .testPattern)
                return FrameSize(width: fitted.width, height: fitted.height)
            }()
        switch input {
        case .screen where self.choice == nil:
            notice("sharing the screen of display \(opened.displayName ?? "?") (pick another with --source)")
        case .portal(let kind, let region, _):
            let what =
                "a \(opened.portalWidth ?? 0)x\(opened.portalHeight ?? 0) \(kind == .monitor ? "screen" : "window")"
            notice(
                "sharing \(region.map { "the \($0.description) region of " } ?? "")\(what) through the desktop's portal"
            )
        default:
            break
        }
        return (input, opened, output)
    }

    /// The source the options name, or the one chosen for the user: the test pattern without a
    /// display, the portal on a Wayland desktop that offers one, the X screen otherwise.
    private func describe(notice: (String) -> Void) throws -> BroadcastConfiguration.VideoInput {
        let environment = ProcessInfo.processInfo.environment
        let display = self.display ?? environment["DISPLAY"]
        var choice = self.choice ?? (display == nil ? .test : .screen)
        // On a Wayland desktop an X11 grab sees only XWayland's windows: the screen is shared
        // through the portal unless an X display is named.
        if Self.isWaylandSession(environment), self.display == nil, choice == .screen || self.choice == nil {
            switch ScreenCastPortal.probe() {
            case .success: choice = .portal(.monitor)
            case .failure(let error) where self.choice != nil:
                throw UsageError(message: error.description)
            case .failure(let error):
                notice("a Wayland session, but \(error.description.prefix { $0 != ":" })")
            }
        }
        switch choice {
        case .test:
            if self.choice == nil {
                notice("no display (DISPLAY is not set): publishing the built-in test pattern and tone")
            }
            return .testPattern
        case .portal(let kind, let region):
            return .portal(kind, region: region, cursor: cursor)
        case .screen:
            return .screen(display: display, area: .whole, cursor: cursor, windowGrace: windowGrace)
        case .region(let rect):
            return .screen(display: display, area: .region(rect), cursor: cursor, windowGrace: windowGrace)
        case .window(let query):
            return .screen(display: display, area: .window(query), cursor: cursor, windowGrace: windowGrace)
        }
    }

    /// Where the portal's remembered choice is kept.
    private var tokens: RestoreTokenStore {
        RestoreTokenStore(directory: StateFolder.path(), channel: channel) { writeToStandardError("warning: \($0)\n") }
    }

    /// Runs `body` (which may show the desktop's dialog) with Ctrl-C ending onair with a line
    /// saying so; the broadcast's own shutdown takes over once the source is agreed.
    private func whileTheDialogIsOpen<T>(_ body: () throws -> T) rethrows -> T {
        let interrupt = signal(SIGINT, Self.stopWhileTheDialogIsOpen)
        let terminate = signal(SIGTERM, Self.stopWhileTheDialogIsOpen)
        defer {
            signal(SIGINT, interrupt)
            signal(SIGTERM, terminate)
        }
        return try body()
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
}
