import Runtime
internal import CX11
import Media

/// XDamage on the root window: what changed on screen since the last look, as the rectangles
/// of the damaged region (XFixes). Owns the Damage object and the region it fetches into.
final class DamageWatch {
    private let display: X11Display
    private let handle: Damage
    private let parts: XserverRegion
    private let notify: Int32
    private var closed = false

    init?(display: X11Display) {
        var eventBase: Int32 = 0, errorBase: Int32 = 0, fixesEventBase: Int32 = 0, fixesErrorBase: Int32 = 0
        guard XDamageQueryExtension(display.display, &eventBase, &errorBase) != 0,
            XFixesQueryExtension(display.display, &fixesEventBase, &fixesErrorBase) != 0
        else { return nil }
        self.display = display
        notify = CX11_damageNotify(eventBase)
        handle = XDamageCreate(display.display, display.root, XDamageReportNonEmpty)
        parts = XFixesCreateRegion(display.display, nil, 0)
    }

    /// The rectangles that changed since the last call (root window coordinates); empty when
    /// nothing did. Takes them out of the damage (`XDamageSubtract` into a region), so the next
    /// change is reported again.
    func takeChanges() -> [PixelRect] {
        var damaged = false
        var event = XEvent()
        while XPending(display.display) > 0 {
            XNextEvent(display.display, &event)
            if event.type == notify { damaged = true }
        }
        guard damaged else { return [] }
        XDamageSubtract(display.display, handle, 0, parts)
        var count: Int32 = 0
        guard let rectangles = XFixesFetchRegion(display.display, parts, &count) else { return [] }
        defer { XFree(rectangles) }
        return (0..<Int(count)).map {
            let r = rectangles[$0]
            return PixelRect(x: Int(r.x), y: Int(r.y), width: Int(r.width), height: Int(r.height))
        }
    }

    /// Destroys the Damage object and the region while the connection is open; once.
    func close() {
        guard !closed else { return }
        closed = true
        guard display.isOpen else { return }
        XFixesDestroyRegion(display.display, parts)
        XDamageDestroy(display.display, handle)
    }

    deinit {
        close()
    }
}
