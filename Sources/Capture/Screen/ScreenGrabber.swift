internal import CX11
import Glibc
import Media

/// Reads a rectangle of the root window as 32-bit BGRX: through a shared-memory XImage where
/// the server offers MIT-SHM, with plain XGetImage otherwise. One shared segment, as large as the
/// largest rectangle read so far, serves every smaller one (a changed part of the screen). Owns
/// the image and its segment.
final class ScreenGrabber {
    private let display: X11Display
    private var image: UnsafeMutablePointer<XImage>?
    private var segment = XShmSegmentInfo()
    /// The pixels the segment holds.
    private var capacity = 0
    let sharedMemory: Bool

    init(display: X11Display) {
        self.display = display
        sharedMemory = display.hasSharedMemory
    }

    /// Grabs the rectangle and lends its pixels (BGRX, `stride` bytes a row) to `body`.
    func grab<R>(
        x: Int, y: Int, width: Int, height: Int,
        _ body: (_ pixels: UnsafeMutablePointer<UInt8>, _ stride: Int) throws -> R
    ) throws -> R {
        if sharedMemory {
            if image == nil || width * height > capacity {
                release()
                try attach(width: width, height: height)
            }
            // The server writes the rectangle's rows one after the other, so an image header of
            // the rectangle's own size over the same segment reads it.
            let screen = XDefaultScreen(display.display)
            guard
                let part = XShmCreateImage(
                    display.display, XDefaultVisual(display.display, screen),
                    UInt32(XDefaultDepth(display.display, screen)), ZPixmap, segment.shmaddr, &segment,
                    UInt32(width), UInt32(height))
            else { throw CaptureError.x11("XShmCreateImage failed for \(width)x\(height)") }
            defer {
                part.pointee.data = nil
                _ = CX11_destroyImage(part)
            }
            guard XShmGetImage(display.display, display.root, part, Int32(x), Int32(y), CX11_AllPlanes) != 0 else {
                throw CaptureError.x11("XShmGetImage failed for \(width)x\(height)+\(x)+\(y)")
            }
            return try part.pointee.data.withMemoryRebound(to: UInt8.self, capacity: 1) {
                try body($0, Int(part.pointee.bytes_per_line))
            }
        }
        guard
            let plain = XGetImage(
                display.display, display.root, Int32(x), Int32(y), UInt32(width), UInt32(height), CX11_AllPlanes,
                ZPixmap)
        else { throw CaptureError.x11("XGetImage failed for \(width)x\(height)+\(x)+\(y)") }
        defer { _ = CX11_destroyImage(plain) }
        return try plain.pointee.data.withMemoryRebound(to: UInt8.self, capacity: 1) {
            try body($0, Int(plain.pointee.bytes_per_line))
        }
    }

    /// Wraps `XShmCreateImage`, `shmget` and `XShmAttach`.
    private func attach(width: Int, height: Int) throws {
        let screen = XDefaultScreen(display.display)
        guard
            let created = XShmCreateImage(
                display.display, XDefaultVisual(display.display, screen),
                UInt32(XDefaultDepth(display.display, screen)),
                ZPixmap, nil, &segment, UInt32(width), UInt32(height))
        else { throw CaptureError.x11("XShmCreateImage failed") }
        guard created.pointee.bits_per_pixel == 32 else {
            _ = CX11_destroyImage(created)
            throw CaptureError.x11(
                "the display is not 24/32-bit colour (\(created.pointee.bits_per_pixel) bits per pixel)")
        }
        let shmid = shmget(
            IPC_PRIVATE, Int(created.pointee.bytes_per_line * created.pointee.height), IPC_CREAT | 0o600)
        guard shmid >= 0 else {
            let reason = String(cString: strerror(errno))
            _ = CX11_destroyImage(created)
            throw CaptureError.x11("shmget failed for a \(width)x\(height) picture: \(reason)")
        }
        // shmat returns (void *)-1 on failure.
        guard let address = shmat(shmid, nil, 0), address != UnsafeMutableRawPointer(bitPattern: -1) else {
            let reason = String(cString: strerror(errno))
            shmctl(shmid, IPC_RMID, nil)
            _ = CX11_destroyImage(created)
            throw CaptureError.x11("shmat failed: \(reason)")
        }
        segment.shmid = shmid
        segment.shmaddr = address.assumingMemoryBound(to: CChar.self)
        segment.readOnly = 0
        created.pointee.data = segment.shmaddr
        XShmAttach(display.display, &segment)
        XSync(display.display, 0)
        // Marked for removal now: the kernel frees it when both sides detach, even after a crash.
        shmctl(segment.shmid, IPC_RMID, nil)
        image = created
        capacity = width * height
    }

    /// Detaches and frees the shared segment and its image (a later grab makes new ones).
    func release() {
        guard let image else { return }
        // A server that went away has nothing to detach, and Xlib would wait for it forever.
        if display.isOpen { XShmDetach(display.display, &segment) }
        image.pointee.data = nil
        _ = CX11_destroyImage(image)
        shmdt(segment.shmaddr)
        self.image = nil
        capacity = 0
    }

    deinit {
        release()
    }
}
