public import Runtime
public import Media

/// One rendition's encoder thread: its picture scaled from the captured one (a rung of the
/// captured size takes it as it is), then encoded, each packet handed to the rendition's packaging
/// and the track's end behind the last. A stage that sheds (the top rung of a ladder) holds its
/// last picture where it cannot take a new one in real time (``RungShedding``).
public final class VideoEncodingStage {
    /// What the stage counts as it goes, read by the status line and the control API.
    public struct Counts: Sendable {
        /// Raised once per frame encoded: the broadcast's count (top rendition) and the rung's.
        public var encoded: [Counter]
        /// Raised by the frames its queue dropped before the encoder took them.
        public var dropped: [Counter]
        /// Raised by each picture repeated while shedding.
        public var shed: Counter?
        /// The bytes of every packet encoded.
        public var bytes: Counter

        public init(encoded: [Counter], dropped: [Counter], shed: Counter? = nil, bytes: Counter) {
            self.encoded = encoded
            self.dropped = dropped
            self.shed = shed
            self.bytes = bytes
        }
    }

    /// What the stage feeds besides its rendition's packaging, and what it says.
    public struct Outlets: Sendable {
        public var counts: Counts
        /// Sheds pictures when the queue drops frames, saying so once each way.
        public var sheds: Bool
        /// Slots in a Low-Latency HLS part (nil without parts): while shedding, the first frame of
        /// every part is still encoded, as the first of every segment is.
        public var partSlots: Int?
        /// Offered every picture encoded, to keep one now and then.
        public var thumbnailer: Thumbnailer?
        /// Also given every packet (the packet destinations), and must never wait.
        public var tap: (@Sendable (EncodedPacket) -> Void)?
        public var report: EventReporter

        public init(
            counts: Counts, sheds: Bool = false, partSlots: Int? = nil, thumbnailer: Thumbnailer? = nil,
            tap: (@Sendable (EncodedPacket) -> Void)? = nil, report: @escaping EventReporter
        ) {
            self.counts = counts
            self.sheds = sheds
            self.partSlots = partSlots
            self.thumbnailer = thumbnailer
            self.tap = tap
            self.report = report
        }
    }

    public let id: String
    private let encoder: VideoEncoder
    private let scaler: RungScaler?

    public init(id: String, encoder: VideoEncoder, scaler: RungScaler?) {
        self.id = id
        self.encoder = encoder
        self.scaler = scaler
    }

    /// Encodes every frame of `frames` until it is closed, then flushes the encoder and ends the
    /// track in `packets`.
    public func run(
        from frames: BoundedQueue<VideoFrame>, into packets: BoundedQueue<PacketMessage>, _ outlets: Outlets
    )
        throws
    {
        defer { packets.push(.end(encoder.stream.track)) }
        let counts = outlets.counts
        var shedding = outlets.sheds ? RungShedding() : nil
        var lastPicture: VideoFrame?
        /// A frame shed and not encoded, the newest: the last one is encoded at the end.
        var held: Int64?
        var dropped = 0
        func send(_ packet: EncodedPacket) {
            counts.bytes.add(packet.size)
            packets.push(.packet(packet))
            outlets.tap?(packet)
        }
        func encode(_ picture: VideoFrame) throws {
            let frame = try scaler?.scale(picture) ?? picture
            outlets.thumbnailer?.offer(frame)
            for packet in try encoder.encode(frame) { send(packet) }
            counts.encoded.forEach { $0.add() }
        }
        while let captured = frames.pop() {
            let newlyDropped = frames.droppedCount - dropped
            dropped = frames.droppedCount
            if newlyDropped > 0 { counts.dropped.forEach { $0.add(newlyDropped) } }
            var picture = captured
            if var policy = shedding {
                switch policy.observe(dropped: newlyDropped, at: Double(captured.index) / Double(encoder.settings.fps))
                {
                case .started:
                    outlets.report(
                        .renditionOverloaded,
                        "rendition \(id) cannot be encoded in real time: it takes fewer new pictures "
                            + "until it can (the other renditions keep every frame)")
                case .ended:
                    outlets.report(.renditionRecovered, "rendition \(id) is encoded in real time again")
                case nil:
                    break
                }
                shedding = policy
                if !policy.takesNewPicture(index: captured.index), let lastPicture {
                    counts.shed?.add()
                    // The picture before stays on screen. Encoding it again would cost x264 about
                    // 60 % of a new one (7 against 11.5 ms a 720p frame); skipped, it costs
                    // nothing. Only a frame that starts a segment or a part is encoded: a part
                    // must start on its slot, or it lasts past PART-TARGET.
                    let starts = Pacer.startsSegmentOrPart(
                        captured.index, keyframeInterval: encoder.settings.keyframeInterval,
                        partSlots: outlets.partSlots)
                    guard starts else {
                        held = captured.index
                        continue
                    }
                    picture = try lastPicture.reference(index: captured.index)
                } else {
                    lastPicture = captured
                }
            }
            held = nil
            try encode(picture)
        }
        // The picture lasts to the end of the stream, on this rung as on the others.
        if let held, let lastPicture { try encode(try lastPicture.reference(index: held)) }
        for packet in try encoder.flush() {
            send(packet)
        }
    }
}
