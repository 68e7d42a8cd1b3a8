public import Runtime
public import Media

/// The sound's thread: capture and AAC encoding together (encoding 20 ms of sound takes well
/// under 1 ms), each packet handed to every packaging that carries the sound, the track's end
/// behind the last.
public final class AudioEncodingStage {
    /// What the stage feeds besides packaging.
    public struct Outlets: Sendable {
        /// While paused, the device is still read, so the clock and the sample count stay
        /// together; what is sent is silence.
        public var pause: PauseSwitch
        /// Given every run of samples as sent (the captions' program).
        public var listener: (@Sendable (AudioFrame) -> Void)?
        /// Also given every packet (the packet destinations), and must never wait.
        public var tap: (@Sendable (EncodedPacket) -> Void)?
        /// The bytes of every packet encoded.
        public var bytes: Counter

        public init(
            pause: PauseSwitch, listener: (@Sendable (AudioFrame) -> Void)? = nil,
            tap: (@Sendable (EncodedPacket) -> Void)? = nil, bytes: Counter
        ) {
            self.pause = pause
            self.listener = listener
            self.tap = tap
            self.bytes = bytes
        }
    }

    private let source: any AudioSource
    private let encoder: AudioEncoder

    public init(source: any AudioSource, encoder: AudioEncoder) {
        self.source = source
        self.encoder = encoder
    }

    /// Reads and encodes until the source ends, then flushes the encoder and ends the track in
    /// every queue of `packets`.
    public func run(into packets: [BoundedQueue<PacketMessage>], _ outlets: Outlets) throws {
        defer { packets.forEach { $0.push(.end(encoder.stream.track)) } }
        func send(_ packet: EncodedPacket) {
            outlets.bytes.add(packet.size)
            for queue in packets { queue.push(.packet(packet)) }
            outlets.tap?(packet)
        }
        while let samples = try source.read() {
            if outlets.pause.isPaused { samples.silence() }
            outlets.listener?(samples)
            for packet in try encoder.encode(samples) { send(packet) }
        }
        for packet in try encoder.flush() {
            send(packet)
        }
    }
}
