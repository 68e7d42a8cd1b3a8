/// Why a capture source cannot start or goes on no more (the screen, the portal, ALSA, PipeWire
/// sound): the one error family of `Capture`; each message says what to do.
public enum CaptureError: Error, CustomStringConvertible, Equatable {
    case noDisplay(String)
    case noWindow(String, closeMatches: [String])
    case severalWindows(String, matches: [String])
    case regionOutsideScreen(String, screenWidth: Int, screenHeight: Int)
    case x11(String)
    case noSessionBus
    case noPortal
    case portalOffersNo(String)
    case portalRefused
    case portalNoFormat(String)
    case portal(String)
    /// A failed ALSA call: its code and what was attempted.
    case alsa(code: Int32, operation: String)
    /// PipeWire sound that cannot be had, said in one line with what to use instead.
    case pipeWireSound(String)
    /// Rows redrawn before the whole picture was read once: a caller's mistake, said rather than drawn.
    case redrawBeforeRead

    public var description: String {
        switch self {
        case .noDisplay(let name):
            "cannot open X display '\(name)': set DISPLAY, pass --display, run under Xvfb, or use --source test"
        case .noWindow(let query, let close):
            "no window matches '\(query)'"
                + (close.isEmpty ? "; list windows with `onair devices`" : "; close: \(close.joined(separator: ", "))")
        case .severalWindows(let query, let matches):
            "\(matches.count) windows match '\(query)': \(matches.joined(separator: ", ")); use window:<id>"
        case .regionOutsideScreen(let region, let width, let height):
            "region \(region) is not inside the \(width)x\(height) screen"
        case .x11(let message): message
        case .noSessionBus:
            "no D-Bus session bus to reach the desktop's screen-sharing portal: run onair inside the desktop session (DBUS_SESSION_BUS_ADDRESS), or share an X display with --display"
        case .noPortal:
            "no ScreenCast portal on the session bus: install xdg-desktop-portal and the desktop's backend (xdg-desktop-portal-gnome, -kde or -wlr), or share an X display with --display"
        case .portalOffersNo(let what):
            "this desktop's ScreenCast portal does not share \(what)"
                + (what == "windows"
                    ? ": use --source portal for a screen" : ": use --source portal:window for a window")
                + " (`onair devices` says what it offers)"
        case .portalRefused:
            "screen sharing was refused in the desktop's dialog: run again and choose what to share"
        case .portalNoFormat(let why):
            "the compositor offered no picture onair can read (BGRx or BGRA in shared memory)"
                + (why.isEmpty ? "" : ": \(why)")
        case .portal(let message): "screen-sharing portal: \(message)"
        case .alsa(let code, let operation): "\(operation) failed: \(alsaMessage(code))"
        case .pipeWireSound(let message): message
        case .redrawBeforeRead: "a redraw of rows before the whole area was read"
        }
    }
}
