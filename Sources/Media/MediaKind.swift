/// The two kinds of track a broadcast carries.
public enum MediaKind: Int, Sendable, Hashable, CaseIterable {
    case video = 0
    case audio = 1
}

/// A rational time base (seconds per tick), as libav counts time.
public struct TimeBase: Sendable, Hashable {
    public let numerator: Int32
    public let denominator: Int32

    public init(_ numerator: Int32, _ denominator: Int32) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// Seconds for a tick count in this time base.
    public func seconds(_ ticks: Int64) -> Double {
        Double(ticks) * Double(numerator) / Double(denominator)
    }

}
