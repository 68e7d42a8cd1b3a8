/// Numbers as text without Foundation's locale machinery (which loads ICU): playlists, the
/// test pattern's clock and the status line all need exactly these digits.
extension String {
    /// Decimal digits with leading zeros up to `width`: `String(zeroPadded: 7, width: 3)` is `007`.
    public init(zeroPadded value: some BinaryInteger, width: Int) {
        let digits = String(value)
        self = String(repeating: "0", count: Swift.max(0, width - digits.count)) + digits
    }

    /// Exactly `decimals` digits after the point, rounded: `String(fixed: 2, decimals: 3)` is `2.000`.
    public init(fixed value: Double, decimals: Int) {
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        // Held where an Int64 can say it (NaN reads as 0): no value can trap, whatever reaches it.
        let bounded = value.isNaN ? 0 : Swift.min(Swift.max(0, value), 9e15 / Double(scale))
        let scaled = Int64((bounded * Double(scale)).rounded())
        self = "\(scaled / scale)." + String(zeroPadded: scaled % scale, width: decimals)
    }
}

/// Bits per second as people write them: `2500000`, `2500k`, `2.5M`; nil for anything else or
/// not above 0. Held below what an Int can say, so any number reaches its caller's range check.
public func bitsPerSecond(_ text: Substring) -> Int? {
    var number = text
    var multiplier = 1.0
    if let last = number.last, let value = ["k": 1e3, "K": 1e3, "m": 1e6, "M": 1e6][last] {
        multiplier = value
        number = number.dropLast()
    }
    guard let value = Double(number), value.isFinite, value > 0 else { return nil }
    return Int(min(value * multiplier, 1e15).rounded())
}
