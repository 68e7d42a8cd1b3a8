/// The two kinds of track a broadcast carries.
public enum MediaKind: Int, Sendable, Hashable, CaseIterable {
    case video = 0
    case audio = 1
}

/// A track of a broadcast, by a number of its own: a channel can carry several video tracks (one
/// per rendition) beside its sound, so tracks are not told apart by their kind.
public struct TrackID: Hashable, Sendable, Comparable, CustomStringConvertible {
    public let number: Int

    public init(_ number: Int) {
        self.number = number
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.number < rhs.number }
    public var description: String { "track \(number)" }
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
