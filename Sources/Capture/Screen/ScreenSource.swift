public import Runtime
internal import CX11
public import Media

/// The picture of an X screen, one window of it, or a rectangle of it.
///
/// An unchanged picture (no XDamage report, the pointer still) is neither read nor converted:
/// `capture` returns nil and the pacer repeats the last frame. A window is followed when it
/// moves or is resized; while hidden the last picture stays, and once it is gone the broadcast
/// ends cleanly after the grace period. When the X server goes away, the pacer shows a "screen
/// unavailable" card while the source reconnects once a second; if the display is not back
/// within the reconnect timeout, the broadcast ends cleanly.
// Unchecked Sendable: it holds an X connection (a C handle), used by the capture thread only.
public final class ScreenSource: VideoSource, @unchecked Sendable {
    public enum Target: Sendable, Equatable {
        case screen
        case region(PixelRect)
        case window(UInt)
    }

    public let width: Int
    public let height: Int
    private var display: X11Display
    private let target: Target
    private let cursor: Bool
    private let windowGrace: Double
    private let reconnectTimeout: Double
    private let stop: StopSignal
    private let warn: @Sendable (String) -> Void
    private let report: EventReporter
    private var grabber: ScreenGrabber
    private let fitter: PictureFitter
    private let pool: VideoFramePool
    private var damage: DamageWatch?
    private var lastRect: PixelRect?
    private var lastPointer: (x: Int16, y: Int16, serial: UInt) = (0, 0, 0)
    private var lastPointerPlace: PixelRect?
    /// The last picture sent: a frame with a few changes is this one with those parts redrawn.
    private var previous: VideoFrame?
    private let counts = CaptureWork()
    public var work: CaptureWork? { counts }
    private var hiddenWarned = false
    private var goneSince: Double?
    /// When the X server went away, and when to try it again.
    private var lostSince: Double?
    private var nextReconnect = 0.0

    public var isInterrupted: Bool { lostSince != nil }

    public init(
        display: X11Display, target: Target, outputWidth: Int, outputHeight: Int, cursor: Bool, windowGrace: Double,
        reconnectTimeout: Double, stop: StopSignal, warn: @escaping @Sendable (String) -> Void,
        report: @escaping EventReporter
    ) throws {
        self.reconnectTimeout = reconnectTimeout
        self.report = report
        self.display = display
        self.target = target
        self.width = outputWidth
        self.height = outputHeight
        self.cursor = cursor
        self.windowGrace = windowGrace
        self.stop = stop
        self.warn = warn
        grabber = ScreenGrabber(display: display)
        fitter = PictureFitter(outputWidth: outputWidth, outputHeight: outputHeight)
        pool = try VideoFramePool(width: outputWidth, height: outputHeight)
        damage = DamageWatch(display: display)
        if !grabber.sharedMemory {
            warn(
                "the X server offers no shared memory (a remote display?): reading the screen with XGetImage, which is slower"
            )
        }
    }

    public func capture(index: Int64, at seconds: Double) throws -> CapturedPicture? {
        if lostSince != nil, !reconnect(at: seconds) { return nil }
        do {
            let picture = try read(index: index, at: seconds)
            if display.isLost { return lose(at: seconds) }
            return picture
        } catch  where display.isLost {
            return lose(at: seconds)
        }
    }

    /// Frees the shared memory, the Damage object and the X connection as capture ends.
    public func close() {
        grabber.release()
        damage?.close()
        display.close()
    }

    /// Notes that the X server went away; the pacer shows the card from now on.
    private func lose(at seconds: Double) -> CapturedPicture? {
        lostSince = seconds
        nextReconnect = seconds + 1
        report(
            .captureInterrupted,
            "the X server of \(display.name) went away: viewers see \"screen unavailable\"; reconnecting every second for up to \(Int(reconnectTimeout)) s"
        )
        return nil
    }

    /// Tries the display again once a second; ends the broadcast once the timeout has passed.
    private func reconnect(at seconds: Double) -> Bool {
        guard let lostSince, seconds >= nextReconnect else { return false }
        nextReconnect = seconds + 1
        guard let fresh = try? X11Display(name: display.name) else {
            if seconds - lostSince >= reconnectTimeout {
                report(
                    .captureInterrupted,
                    "the X server of \(display.name) did not come back in \(Int(reconnectTimeout)) s: ending the broadcast"
                )
                stop.requestStop(at: seconds)
            }
            return false
        }
        display = fresh
        grabber = ScreenGrabber(display: fresh)
        damage = DamageWatch(display: fresh)
        lastRect = nil
        previous = nil
        self.lostSince = nil
        report(.captureRecovered, "the X server of \(fresh.name) is back: capturing again")
        return true
    }

    private func read(index: Int64, at seconds: Double) throws -> CapturedPicture? {
        // Read every frame: after a resolution change the picture is fitted again into the same output.
        let screen = display.currentScreen()
        guard let rect = area(on: screen, at: seconds) else {
            counts.record(read: 0, converted: 0, at: seconds)
            return lastRect == nil ? CapturedPicture(try black(index: index)) : nil
        }
        // Root coordinates; nil: not known (no XDamage), so everything.
        var changes = damage?.takeChanges()
        // One round trip a frame for the pointer: whether it moved, and its picture to draw.
        let pointer = cursor ? XFixesGetCursorImage(display.display) : nil
        defer { if let pointer { XFree(pointer) } }
        if let pointer, let moved = moved(pointer) { changes?.append(contentsOf: moved) }
        let whole = rect != lastRect || previous == nil || changes == nil
        let boxes =
            whole
            ? [PixelRect(x: 0, y: 0, width: rect.width, height: rect.height)]
            : DamageRegions.merge(
                changes!.map { PixelRect(x: $0.x - rect.x, y: $0.y - rect.y, width: $0.width, height: $0.height) },
                within: PixelRect(x: 0, y: 0, width: rect.width, height: rect.height))
        guard !boxes.isEmpty else {
            counts.record(read: 0, converted: 0, at: seconds)
            return nil
        }
        lastRect = rect
        let frame = try pool.makeFrame(index: index)
        // Each band of a piece or of the whole picture in one request. What changes between two
        // of them is in XDamage's next report, so the next frame redraws it.
        let read: PictureFitter.Read = { band, convert in
            let source = PixelRect(x: rect.x + band.x, y: rect.y + band.y, width: band.width, height: band.height)
            try self.grabber.grab(x: source.x, y: source.y, width: source.width, height: source.height) {
                pixels, stride in
                if let pointer { self.draw(pointer.pointee, into: pixels, stride: stride, area: source) }
                try convert(pixels, stride)
            }
        }
        var changedAreas: [PixelRect]?
        if boxes.count == 1, boxes[0].width == rect.width, boxes[0].height == rect.height {
            try fitter.fit(width: rect.width, height: rect.height, into: frame, read: read)
            counts.record(read: rect.width * rect.height, converted: width * height, at: seconds)
        } else {
            // The picture before, with the changed pieces read from the screen and redrawn.
            let work = try fitter.redraw(
                boxes, width: rect.width, height: rect.height, over: previous!, into: frame, read: read)
            counts.record(read: work.read, converted: work.converted, at: seconds)
            changedAreas = work.areas
        }
        previous = frame
        return CapturedPicture(frame, changedAreas: changedAreas)
    }

    /// What to read now; nil while a window is hidden or gone.
    private func area(on screen: PixelRect, at seconds: Double) -> PixelRect? {
        switch target {
        case .screen:
            return screen
        case .region(let region):
            return region.clipped(to: screen)
        case .window(let id):
            guard let info = display.info(Window(id), withTitle: false) else {
                if goneSince == nil {
                    goneSince = seconds
                    report(
                        .captureInterrupted,
                        "window 0x\(String(id, radix: 16)) is gone: the broadcast ends in \(Int(windowGrace)) s unless it returns"
                    )
                }
                if seconds - goneSince! >= windowGrace { stop.requestStop(at: seconds) }
                return nil
            }
            if goneSince != nil, info.viewable { report(.captureRecovered, "window \(info.summary) is back") }
            goneSince = nil
            guard info.viewable else {
                if !hiddenWarned {
                    report(
                        .captureInterrupted,
                        "window \(info.summary) is hidden: showing its last picture until it is back")
                }
                hiddenWarned = true
                return nil
            }
            if hiddenWarned { report(.captureRecovered, "window \(info.summary) is back") }
            hiddenWarned = false
            return PixelRect(x: info.x, y: info.y, width: info.width, height: info.height).clipped(to: screen)
        }
    }

    private func black(index: Int64) throws -> VideoFrame {
        let frame = try pool.makeFrame(index: index)
        frame.paintBlack()
        return frame
    }

    /// Where the pointer was drawn and is now, when it moved or changed shape since the last
    /// frame (root coordinates); nil when it did not.
    private func moved(_ image: UnsafeMutablePointer<XFixesCursorImage>) -> [PixelRect]? {
        let cursor = image.pointee
        let now = (cursor.x, cursor.y, UInt(cursor.cursor_serial))
        let place = PixelRect(
            x: Int(cursor.x) - Int(cursor.xhot), y: Int(cursor.y) - Int(cursor.yhot), width: Int(cursor.width),
            height: Int(cursor.height))
        defer {
            lastPointer = (now.0, now.1, now.2)
            lastPointerPlace = place
        }
        guard now != lastPointer else { return nil }
        return [place] + (lastPointerPlace.map { [$0] } ?? [])
    }

    /// Draws the pointer's image (premultiplied ARGB) over the grabbed BGRX pixels.
    private func draw(
        _ cursor: XFixesCursorImage, into pixels: UnsafeMutablePointer<UInt8>, stride: Int, area: PixelRect
    ) {
        let left = Int(cursor.x) - Int(cursor.xhot) - area.x, top = Int(cursor.y) - Int(cursor.yhot) - area.y
        for row in 0..<Int(cursor.height) {
            let y = top + row
            guard y >= 0, y < area.height else { continue }
            for column in 0..<Int(cursor.width) {
                let x = left + column
                guard x >= 0, x < area.width else { continue }
                let argb = UInt32(truncatingIfNeeded: cursor.pixels[row * Int(cursor.width) + column])
                let alpha = argb >> 24
                guard alpha > 0 else { continue }
                let pixel = pixels + y * stride + x * 4
                for (channel, shift) in [(0, 0), (1, 8), (2, 16)] as [(Int, UInt32)] {
                    let over = argb >> shift & 0xff
                    pixel[channel] = UInt8(min(255, over + (UInt32(pixel[channel]) * (255 - alpha) + 127) / 255))
                }
            }
        }
    }
}
