public import Runtime
internal import CPipeWire
public import Media

/// The picture of a Wayland screen or window, shared through the ScreenCast portal: what the
/// compositor sends over PipeWire (or a rectangle of it), fitted into the output as the X11
/// source fits its screen.
///
/// A compositor sends a picture only when something changed, maybe none at all on a still
/// screen: until the first one the output is black, and then the pacer repeats the last one. A
/// picture with damage regions is converted only where they reach; a new size is fitted again
/// whole. When the stream ends (the user stopped sharing from the desktop), it is reported and
/// the broadcast ends cleanly.
// Unchecked Sendable: it holds the PipeWire stream (a C handle), read by the capture thread only.
public final class PortalSource: VideoSource, @unchecked Sendable {
    public let width: Int
    public let height: Int
    private let capture: PortalCapture
    /// `--source portal:region:…`: the rectangle of the shared picture to publish.
    private let region: PixelRect?
    private let stop: StopSignal
    private let report: EventReporter
    private let fitter: PictureFitter
    private let pool: VideoFramePool
    private var previous: VideoFrame?
    private var lastSize = (width: 0, height: 0)
    private var ended = false
    private let counts = CaptureWork()
    public var work: CaptureWork? { counts }

    public init(
        capture: PortalCapture, region: PixelRect? = nil, outputWidth: Int, outputHeight: Int, stop: StopSignal,
        report: @escaping EventReporter
    ) throws {
        self.capture = capture
        self.region = region
        self.width = outputWidth
        self.height = outputHeight
        self.stop = stop
        self.report = report
        fitter = PictureFitter(outputWidth: outputWidth, outputHeight: outputHeight)
        pool = try VideoFramePool(width: outputWidth, height: outputHeight)
    }

    /// Closes the stream and the portal session as capture ends.
    public func close() {
        capture.close()
    }

    public func capture(index: Int64, at seconds: Double) throws -> CapturedPicture? {
        if !ended { watchStream(at: seconds) }
        let taken = CPW_take(capture.stream)
        guard let buffer = taken.buffer, let data = taken.data else {
            counts.record(read: 0, converted: 0, at: seconds)
            guard previous == nil else { return nil }
            let black = try black(index: index)
            previous = black
            return CapturedPicture(black)
        }
        defer { CPW_release(capture.stream, buffer) }
        let shared = PixelRect(x: 0, y: 0, width: Int(taken.width), height: Int(taken.height))
        // The part shared, or the region of it asked for (within a screen made smaller since).
        let part = region?.clipped(to: shared) ?? shared
        guard part.width > 0, part.height > 0 else {
            counts.record(read: 0, converted: 0, at: seconds)
            return nil
        }
        let size = (width: part.width, height: part.height)
        let stride = Int(taken.stride)
        let pixels = UnsafeMutablePointer(mutating: data) + part.y * stride + part.x * 4
        // The first picture (after the black one), and a new size, are fitted whole.
        let whole = previous == nil || size != lastSize || taken.damageCount < 0
        let area = PixelRect(x: 0, y: 0, width: size.width, height: size.height)
        let boxes =
            whole
            ? [area]
            : DamageRegions.merge(
                withUnsafeBytes(of: taken.damage) { raw in
                    raw.bindMemory(to: CPW_rect.self).prefix(Int(taken.damageCount)).map {
                        PixelRect(
                            x: Int($0.x) - part.x, y: Int($0.y) - part.y, width: Int($0.width), height: Int($0.height))
                    }
                }, within: area)
        guard !boxes.isEmpty else {
            counts.record(read: 0, converted: 0, at: seconds)
            return nil
        }
        lastSize = size
        let frame = try pool.makeFrame(index: index)
        var changedAreas: [PixelRect]?
        if boxes.count == 1, boxes[0] == area {
            try fitter.fit(pixels, stride: stride, width: size.width, height: size.height, into: frame)
            counts.record(read: size.width * size.height, converted: width * height, at: seconds)
        } else {
            // The picture before, with the changed pieces redrawn from the picture in place.
            let work = try fitter.redraw(
                boxes, width: size.width, height: size.height, over: previous!, into: frame
            ) { band, convert in
                try convert(pixels + band.y * stride + band.x * 4, stride)
            }
            counts.record(read: work.read, converted: work.converted, at: seconds)
            changedAreas = work.areas
        }
        previous = frame
        return CapturedPicture(frame, changedAreas: changedAreas)
    }

    /// Ends the broadcast cleanly once the stream has ended: the user stopped sharing, or the
    /// compositor or PipeWire went away.
    private func watchStream(at seconds: Double) {
        // Once a frame: no buffer for the reason until there is one to say.
        guard CPW_status(capture.stream, nil, 0) < 0 else { return }
        var error = [CChar](repeating: 0, count: 256)
        _ = CPW_status(capture.stream, &error, error.count)
        ended = true
        report(
            .captureInterrupted,
            "screen sharing ended (\(error.cText)): stopping the broadcast; start it again to share anew")
        stop.requestStop(at: seconds)
    }

    /// Black until the compositor sends its first picture (a still screen may send none).
    private func black(index: Int64) throws -> VideoFrame {
        let frame = try pool.makeFrame(index: index)
        frame.paintBlack()
        return frame
    }
}

extension [CChar] {
    /// The text of a C buffer, up to its terminating zero.
    var cText: String { String(decoding: prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self) }
}
