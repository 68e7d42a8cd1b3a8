import Runtime
internal import CX11
import Media

/// A top-level window, as `onair devices` lists it and `window:` finds it.
public struct WindowInfo: Sendable, Equatable {
    public var id: UInt
    public var title: String
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int
    public var viewable: Bool

    /// `0x400001 "Title" 640x480+10+20`
    public var summary: String {
        "0x" + String(id, radix: 16) + (title.isEmpty ? "" : " \"\(title)\"") + " \(width)x\(height)+\(x)+\(y)"
            + (viewable ? "" : " (hidden)")
    }
}

/// One connection to an X server. Owns the Display; used by one thread at a time.
// Unchecked Sendable: a C handle (Display *), used by one thread at a time.
public final class X11Display: @unchecked Sendable {
    let display: OpaquePointer
    public let name: String
    let root: Window
    /// Set by Xlib's exit handler when the connection to the server breaks.
    private let lost = UnsafeMutablePointer<Int32>.allocate(capacity: 1)

    /// Opens the display (`nil`: `$DISPLAY`). Wraps `XOpenDisplay`.
    public init(name: String?) throws(CaptureError) {
        CX11_installErrorHandler()
        guard let display = XOpenDisplay(name) else {
            lost.deallocate()
            throw .noDisplay(name ?? "(DISPLAY is not set)")
        }
        self.display = display
        self.name = String(cString: XDisplayString(display))
        root = XDefaultRootWindow(display)
        lost.initialize(to: 0)
        CX11_watchConnection(display, lost)
    }

    /// True once the X server went away (or closed the connection): nothing more can be read.
    var isLost: Bool { lost.pointee != 0 }
    /// True once ``close()`` ran: the connection must not be used again.
    private(set) var isClosed = false
    /// The connection can still be talked to: neither lost nor closed.
    var isOpen: Bool { !isClosed && !isLost }

    public var screenWidth: Int { Int(XDisplayWidth(display, XDefaultScreen(display))) }
    public var screenHeight: Int { Int(XDisplayHeight(display, XDefaultScreen(display))) }

    /// The root window's size now: unlike `screenWidth`, which Xlib caches at connection time,
    /// this follows a resolution change (xrandr). Wraps `XGetGeometry`.
    func currentScreen() -> PixelRect {
        var rootReturn: Window = 0
        var x: Int32 = 0, y: Int32 = 0
        var width: UInt32 = 0, height: UInt32 = 0, border: UInt32 = 0, depth: UInt32 = 0
        guard XGetGeometry(display, root, &rootReturn, &x, &y, &width, &height, &border, &depth) != 0 else {
            return PixelRect(x: 0, y: 0, width: screenWidth, height: screenHeight)
        }
        return PixelRect(x: 0, y: 0, width: Int(width), height: Int(height))
    }

    /// MIT-SHM is there (a local server): images arrive through shared memory.
    var hasSharedMemory: Bool { XShmQueryExtension(display) != 0 }

    /// Top-level windows with a title, front to back order reversed (as the server stacks them).
    public func windows() -> [WindowInfo] {
        var found: [WindowInfo] = []
        for child in children(of: root) {
            if let info = info(child), !info.title.isEmpty {
                found.append(info)
            } else {
                // Under a window manager the client is a child of its frame.
                found += children(of: child).compactMap { info($0) }.filter { !$0.title.isEmpty }
            }
        }
        return found
    }

    /// A window's place on the screen and state; nil once it no longer exists. The title costs a
    /// round trip of its own: the capture loop, which only needs the place, leaves it out.
    func info(_ window: Window, withTitle: Bool = true) -> WindowInfo? {
        var attributes = XWindowAttributes()
        _ = CX11_takeError()
        guard XGetWindowAttributes(display, window, &attributes) != 0, CX11_takeError() == 0 else { return nil }
        var x: Int32 = 0, y: Int32 = 0
        var child: Window = 0
        XTranslateCoordinates(display, window, root, 0, 0, &x, &y, &child)
        guard CX11_takeError() == 0 else { return nil }
        return WindowInfo(
            id: UInt(window), title: withTitle ? title(window) : "", x: Int(x), y: Int(y), width: Int(attributes.width),
            height: Int(attributes.height), viewable: attributes.map_state == IsViewable)
    }

    /// The process a window belongs to, as it says itself (`_NET_WM_PID`); nil when it names none.
    public func processID(of window: UInt) -> Int? {
        let atom = XInternAtom(display, "_NET_WM_PID", 1)
        guard atom != 0 else { return nil }
        var type: Atom = 0
        var format: Int32 = 0
        var count: UInt = 0, after: UInt = 0
        var data: UnsafeMutablePointer<UInt8>?
        _ = CX11_takeError()
        guard
            XGetWindowProperty(
                display, Window(window), atom, 0, 1, 0, Atom(0), &type, &format, &count, &after, &data) == 0,
            CX11_takeError() == 0, let data
        else { return nil }
        defer { XFree(data) }
        guard format == 32, count == 1 else { return nil }
        // Xlib hands 32-bit properties over as longs.
        let pid = data.withMemoryRebound(to: CLong.self, capacity: 1) { Int($0.pointee) }
        return pid > 0 ? pid : nil
    }

    private func title(_ window: Window) -> String {
        var name: UnsafeMutablePointer<CChar>?
        guard XFetchName(display, window, &name) != 0, let name else { return "" }
        defer { XFree(name) }
        return String(cString: name)
    }

    private func children(of window: Window) -> [Window] {
        var rootReturn: Window = 0, parent: Window = 0
        var list: UnsafeMutablePointer<Window>?
        var count: UInt32 = 0
        guard XQueryTree(display, window, &rootReturn, &parent, &list, &count) != 0, let list else { return [] }
        defer { XFree(list) }
        return Array(UnsafeBufferPointer(start: list, count: Int(count)))
    }

    /// Closes the connection (`XCloseDisplay`); once, and by the one thread that uses it. A
    /// broadcast closes its display as its capture ends, not whenever the last reference goes.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        // Closing a connection whose server went away blocks in Xlib for good: it is left as it is
        // (one small allocation, once per loss) and only its flag freed... which Xlib may still
        // write, so that stays too.
        guard !isLost else { return }
        XCloseDisplay(display)
        lost.deallocate()
    }

    deinit {
        close()
    }
}
