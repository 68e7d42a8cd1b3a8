/// A caption as people give it: text, and the wall times it shows between (program date-times,
/// milliseconds since 1970). A broadcast places it on its media time as a ``Cue``.
public struct Caption: Sendable, Equatable {
    public var text: String
    public var start: Int64
    public var end: Int64

    public init(text: String, start: Int64, end: Int64) {
        self.text = text
        self.start = start
        self.end = end
    }

    /// The cue of a broadcast whose media time 0 is `anchor` (milliseconds since 1970).
    public func cue(anchor: Int64) -> Cue {
        Cue(start: Double(start - anchor) / 1000, end: Double(end - anchor) / 1000, text: text)
    }

    /// The caption a broadcast's cue stands for.
    public init(_ cue: Cue, anchor: Int64) {
        self.init(
            text: cue.text, start: anchor + Int64((cue.start * 1000).rounded()),
            end: anchor + Int64((cue.end * 1000).rounded()))
    }
}
