public import Runtime

/// A new picture from a source, and what is new in it.
public struct CapturedPicture: Sendable {
    public let frame: VideoFrame
    /// The parts that differ from the picture before (the rest was copied from it); nil when all
    /// of it is new. Work done once per picture (the watermark) is done only there.
    public let changedAreas: [PixelRect]?

    public init(_ frame: VideoFrame, changedAreas: [PixelRect]? = nil) {
        self.frame = frame
        self.changedAreas = changedAreas
    }
}

/// A picture source the pacer pulls from once per output frame.
public protocol VideoSource: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// The picture for output frame `index`, captured now, `seconds` after the clock's anchor;
    /// nil when nothing changed since the last picture (the pacer repeats it); never nil the first time.
    func capture(index: Int64, at seconds: Double) throws -> CapturedPicture?
    /// True while the source cannot see what it shares (its X server is gone): the pacer then
    /// shows a "screen unavailable" card over the last picture.
    var isInterrupted: Bool { get }
    /// What capturing costs, for sources that read a screen.
    var work: CaptureWork? { get }
    /// Lets go of the connections the source holds, on the capture thread as capture ends; nothing
    /// is captured after. Not left to whichever thread drops the last reference: that can be a
    /// worker still unwinding while the process exits, when a library's exit-time teardown (Xlib
    /// frees its locks) has already run.
    func close()
}

extension VideoSource {
    public var isInterrupted: Bool { false }
    public var work: CaptureWork? { nil }
    public func close() {}
}

/// A sound source read on its own thread; `read` blocks until the next samples are captured.
public protocol AudioSource: AnyObject {
    /// The next run of samples, positioned on the broadcast clock; nil at end of stream.
    func read() throws -> AudioFrame?
}
