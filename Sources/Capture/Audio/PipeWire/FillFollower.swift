/// Keeps a stream's buffer at the level it settled at, so sound taken from PipeWire at the
/// broadcast clock's pace neither runs dry nor piles up when PipeWire's clock (a sound card's
/// crystal, or the graph's own timer) runs a little slow or fast against ours.
///
/// Each chunk the caller says how many frames the stream holds; the level is averaged (over ~5 s
/// of chunks, so PipeWire's 21 ms bursts do not count), and its average over the first 5 s is the
/// target. Then the chunk taken is a sample longer or shorter now and then, by at most 0.05 %
/// (`maximumRate`), to bring the average back to the target over about ten seconds; the encoder's
/// resampler stretches the chunk to its place on the clock, inaudibly. Pure.
public struct FillFollower: Sendable, Equatable {
    /// Chunks the average spans, and how many make the target: 5 s of 20 ms chunks.
    public static let span = 250
    /// The most a chunk is stretched or squeezed: 0.05 %, twice the worst crystal.
    public static let maximumRate = 0.0005
    /// Seconds over which a difference from the target is made up.
    public static let catchUp = 10.0

    public let rate: Int
    public private(set) var average = 0.0
    public private(set) var target: Double?
    private var seen = 0
    private var carried = 0.0

    public init(rate: Int) {
        self.rate = rate
    }

    /// The frames to take for a chunk of `chunk` frames, the stream holding `level` now.
    public mutating func take(level: Int, chunk: Int) -> Int {
        seen += 1
        if seen == 1 {
            average = Double(level)
        } else {
            average += (Double(level) - average) / Double(min(seen, Self.span))
        }
        guard let target else {
            if seen >= Self.span { target = average }
            return chunk
        }
        let difference = (average - target) / (Double(rate) * Self.catchUp)
        let stretch = min(Self.maximumRate, max(-Self.maximumRate, difference))
        carried += Double(chunk) * stretch
        let extra = Int(carried.rounded(.towardZero))
        carried -= Double(extra)
        return chunk + extra
    }
}
