/// Why a capture source cannot start; each message says what to do.
public enum CaptureError: Error, CustomStringConvertible, Equatable {
    case noDisplay(String)
    case noWindow(String, closeMatches: [String])
    case severalWindows(String, matches: [String])
    case regionOutsideScreen(String, screenWidth: Int, screenHeight: Int)
    case x11(String)

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
        }
    }
}
