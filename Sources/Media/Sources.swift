/// A picture source the pacer pulls from once per output frame.
public protocol VideoSource: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// The picture for output frame `index`, captured now, `seconds` after the clock's anchor;
    /// nil when nothing changed since the last picture (the pacer repeats it); never nil the first time.
    func capture(index: Int64, at seconds: Double) throws -> VideoFrame?
}

/// A sound source read on its own thread; `read` blocks until the next samples are captured.
public protocol AudioSource: AnyObject {
    /// The next run of samples, positioned on the broadcast clock; nil at end of stream.
    func read() throws -> AudioFrame?
}
