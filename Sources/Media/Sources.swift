/// A picture source the pacer pulls from once per output frame.
public protocol VideoSource: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// The picture for output frame `index`, captured now, `seconds` after the clock's anchor;
    /// nil when nothing changed since the last picture (the pacer repeats it); never nil the first time.
    func capture(index: Int64, at seconds: Double) throws -> VideoFrame?
    /// True while the source cannot see what it shares (its X server is gone): the pacer then
    /// shows a "screen unavailable" card over the last picture.
    var isInterrupted: Bool { get }
}

extension VideoSource {
    public var isInterrupted: Bool { false }
}

/// A sound source read on its own thread; `read` blocks until the next samples are captured.
public protocol AudioSource: AnyObject {
    /// The next run of samples, positioned on the broadcast clock; nil at end of stream.
    func read() throws -> AudioFrame?
}
