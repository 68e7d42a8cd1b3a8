/// What a `Range` header asks of a file (RFC 9110 14.1.2, 14.2): one byte range of a representation
/// of `size` bytes. A header this server does not take (another unit, several ranges, a malformed
/// one) is ignored and the whole file served, as RFC 9110 allows.
public enum ByteRange: Equatable, Sendable {
    /// The whole file (200).
    case whole
    /// Bytes `lowerBound` through `upperBound`, both included (206 with `Content-Range`).
    case part(ClosedRange<Int>)
    /// Nothing of the file can answer it (416 with `Content-Range: bytes */size`).
    case unsatisfiable

    public init(header: String?, size: Int) {
        guard let header, header.hasPrefix("bytes=") else {
            self = .whole
            return
        }
        let spec = header.dropFirst("bytes=".count).trimmingSpaces
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else {
            self = .whole
            return
        }
        let first = spec[..<dash].trimmingSpaces
        let last = spec[spec.index(after: dash)...].trimmingSpaces
        if first.isEmpty {
            // A suffix: the last N bytes; N = 0 asks for nothing.
            guard let count = Self.number(last) else {
                self = .whole
                return
            }
            guard count > 0, size > 0 else {
                self = .unsatisfiable
                return
            }
            self = .part(max(0, size - count)...(size - 1))
            return
        }
        guard let start = Self.number(first) else {
            self = .whole
            return
        }
        let end: Int
        if last.isEmpty {
            end = Int.max
        } else {
            guard let number = Self.number(last), number >= start else {
                self = .whole
                return
            }
            end = number
        }
        guard start < size else {
            self = .unsatisfiable
            return
        }
        self = .part(start...min(end, size - 1))
    }

    /// Digits only; more than 18 of them read as Int.max (beyond any file).
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.allSatisfy({ (48...57).contains($0) }) else { return nil }
        return text.count > 18 ? Int.max : Int(text)
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return text
    }
}
