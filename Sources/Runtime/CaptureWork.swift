import Synchronization

/// What a picture source's capture costs, in pixels read from the screen and converted to the
/// output: totals, and the rates over the last whole second of the broadcast clock.
public final class CaptureWork: Sendable {
    public struct Figures: Sendable, Equatable, Codable {
        public var pixelsRead = 0
        public var pixelsConverted = 0
        public var pixelsReadPerSecond = 0
        public var pixelsConvertedPerSecond = 0
    }

    private let state = Mutex<(figures: Figures, second: Int, read: Int, converted: Int)>((Figures(), 0, 0, 0))

    public init() {}

    /// Adds one frame slot's work, done `seconds` after the clock's anchor (zero for a slot with
    /// nothing new: the rates still move on).
    public func record(read: Int, converted: Int, at seconds: Double) {
        state.withLock { state in
            let second = Int(seconds.rounded(.down))
            if second != state.second {
                // The last whole second's rate; a second with no slot at all counts as idle.
                let finished = second == state.second + 1
                state.figures.pixelsReadPerSecond = finished ? state.read : 0
                state.figures.pixelsConvertedPerSecond = finished ? state.converted : 0
                (state.second, state.read, state.converted) = (second, 0, 0)
            }
            state.read += read
            state.converted += converted
            state.figures.pixelsRead += read
            state.figures.pixelsConverted += converted
        }
    }

    public var figures: Figures { state.withLock { $0.figures } }
}
