import ArgumentParser
import Media
import Runtime

/// `WIDTHxHEIGHT`.
struct FrameSize: ExpressibleByArgument, CustomStringConvertible, Equatable {
    var width: Int
    var height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]) else { return nil }
        self.init(width: width, height: height)
    }

    var description: String { "\(width)x\(height)" }
    var defaultValueDescription: String { description }
}

/// Bits per second: `2500000`, `2500k`, `2.5M`.
struct Bitrate: ExpressibleByArgument, CustomStringConvertible, Equatable {
    var bitsPerSecond: Int

    init(bitsPerSecond: Int) {
        self.bitsPerSecond = bitsPerSecond
    }

    init?(argument: String) {
        guard let rate = Runtime.bitsPerSecond(Substring(argument)) else { return nil }
        self.init(bitsPerSecond: rate)
    }

    var description: String {
        bitsPerSecond % 1000 == 0 ? "\(bitsPerSecond / 1000)k" : "\(bitsPerSecond)"
    }
    var defaultValueDescription: String { description }
}

/// A number of bytes: `500M`, `20G`, `1.5T` (powers of 1000), or plain bytes.
struct ByteSize: ExpressibleByArgument, CustomStringConvertible, Equatable {
    var bytes: Int

    init(bytes: Int) {
        self.bytes = bytes
    }

    init?(argument: String) {
        let units: [Character: Double] = ["K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12]
        var text = Substring(argument.uppercased())
        if text.hasSuffix("B") { text = text.dropLast() }
        let scale = text.last.flatMap { units[$0] } ?? 1
        if scale != 1 { text = text.dropLast() }
        guard let number = Double(text), number.isFinite, number > 0, number * scale < 1e18 else { return nil }
        bytes = Int(number * scale)
    }

    /// The largest unit that says it exactly: `256M`, `2G`, `1500`.
    var description: String {
        for (unit, scale) in [("T", 1_000_000_000_000), ("G", 1_000_000_000), ("M", 1_000_000), ("K", 1000)]
        where bytes >= scale && bytes % scale == 0 {
            return "\(bytes / scale)\(unit)"
        }
        return "\(bytes)"
    }
}

/// A length of time: `30s`, `10m`, `1h`, `1.5h`, or plain seconds.
struct DurationValue: ExpressibleByArgument, CustomStringConvertible, Equatable {
    var seconds: Double

    init(seconds: Double) {
        self.seconds = seconds
    }

    init?(argument: String) {
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600]
        var text = Substring(argument)
        var unit = 1.0
        if let last = text.last, let value = units[last] {
            unit = value
            text = text.dropLast()
        }
        guard let number = Double(text), number.isFinite, number >= 0 else { return nil }
        // Held below what a Duration or an Int of nanoseconds can say; each option checks its range.
        self.init(seconds: min(number * unit, 1e9))
    }

    /// In the largest unit that gives a whole number: `1h`, `10m`, `30s`, `2.5s`.
    var description: String {
        for (suffix, unit) in [("h", 3600.0), ("m", 60.0)]
        where seconds >= unit && seconds.remainder(dividingBy: unit) == 0 {
            return "\(Int(seconds / unit))\(suffix)"
        }
        return seconds == seconds.rounded() ? "\(Int(seconds))s" : "\(seconds)s"
    }
    var defaultValueDescription: String { description }
}
