extension X11Display {
    /// A window by id (`0x400001` or decimal) or by title text (case-insensitive, the exact title
    /// preferred when several contain it); the error names the windows that come close.
    public func window(matching query: String) throws(CaptureError) -> WindowInfo {
        let windows = windows()
        let id = query.lowercased().hasPrefix("0x") ? UInt(query.dropFirst(2), radix: 16) : UInt(query)
        if let id {
            if let window = windows.first(where: { $0.id == id }) { return window }
            throw .noWindow(query, closeMatches: windows.prefix(5).map(\.summary))
        }
        let needle = query.lowercased()
        let matches = windows.filter { $0.title.lowercased().contains(needle) }
        let exact = matches.filter { $0.title.lowercased() == needle }
        if matches.count == 1 { return matches[0] }
        if exact.count == 1 { return exact[0] }
        if matches.isEmpty {
            let words = needle.split(separator: " ")
            let close = windows.filter { window in words.contains { window.title.lowercased().contains($0) } }
            throw .noWindow(query, closeMatches: (close.isEmpty ? windows : close).prefix(5).map(\.summary))
        }
        throw .severalWindows(query, matches: matches.map(\.summary))
    }
}
