public import Runtime

/// What encoding says of itself: falling behind real time, and catching up.
extension BroadcastEvent.Code {
    /// Frames dropped because encoding cannot keep up.
    public static let encoderOverloaded = Self("encoder_overloaded", problem: true)
    /// The largest rendition of a ladder cannot be encoded in real time: it repeats pictures
    /// (the others keep every frame) until it can again.
    public static let renditionOverloaded = Self("rendition_overloaded", problem: true)
    public static let renditionRecovered = Self("rendition_recovered")
}
