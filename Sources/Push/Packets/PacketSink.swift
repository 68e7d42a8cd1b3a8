public import Media

/// A destination fed the broadcast's encoded packets as they come from the encoders (RTMP, SRT),
/// rather than its HLS files: it never makes them wait.
public protocol PacketSink: Sendable {
    /// How logs, events and the status line name it.
    var destination: String { get }
    var status: PushStatus { get }
    /// Hands a packet over without waiting.
    func send(_ packet: EncodedPacket)
    /// Ends the stream; false when that took longer than `timeout` and the connection was abandoned.
    @discardableResult func finish(within timeout: Duration) -> Bool
}
