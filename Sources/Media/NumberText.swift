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
        let scaled = Int64((Swift.max(0, value) * Double(scale)).rounded())
        self = "\(scaled / scale)." + String(zeroPadded: scaled % scale, width: decimals)
    }
}
