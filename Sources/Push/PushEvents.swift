public import Runtime

/// What pushing says: a destination out of reach or refusing, and back.
extension BroadcastEvent.Code {
    /// A push destination cannot be reached or refuses what is sent.
    public static let pushFailed = Self("push_failed", problem: true)
    public static let pushRecovered = Self("push_recovered")
}
