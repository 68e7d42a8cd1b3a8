public import Media

/// What the encoders send the packaging stage: packets, then each stream's end.
public enum PacketMessage: Sendable {
    case packet(EncodedPacket)
    case end(MediaKind)
}

/// The packaging thread: puts both encoders' packets in time order, cuts them into fragments
/// and segments on the grid, muxes them, and publishes each finished segment to the store
/// (and the mirror, when there is one).
public final class PackagingStage {
    public let store: SegmentStore
    private let packager: Packager
    private let mirror: DirectoryMirror?
    private let clock: MediaClock
    private var segmenter: Segmenter
    private var interleaver: Interleaver<EncodedPacket>
    /// Told of mirror failures and recoveries; the stream goes on from memory meanwhile.
    private let report: EventReporter

    public init(
        store: SegmentStore, streams: [StreamDescription], segmenter: Segmenter.Configuration,
        mirror: DirectoryMirror?, clock: MediaClock, report: @escaping EventReporter
    ) throws {
        self.store = store
        self.mirror = mirror
        self.clock = clock
        self.report = report
        self.segmenter = Segmenter(configuration: segmenter)
        self.interleaver = Interleaver(streams: Set(streams.map(\.kind)))
        packager = try Packager(format: store.configuration.format, streams: streams)
        _ = store.setInitSegment(packager.initSegment)
        if let mirror { tell(mirror.start(from: store.snapshot())) }
    }

    /// Runs until every stream has ended, then lists the last segment and ends the playlist.
    public func run(input: BoundedQueue<PacketMessage>) throws {
        while !interleaver.isFinished, let message = input.pop() {
            switch message {
            case .packet(let packet):
                interleaver.push(packet, kind: packet.kind, time: packet.decodeSeconds)
            case .end(let kind):
                interleaver.end(kind)
            }
            while let packet = interleaver.pop() {
                let events = segmenter.accept(
                    kind: packet.kind, time: packet.presentationSeconds, isKeyframe: packet.isKeyframe)
                try apply(events)
                try packager.write(packet)
            }
        }
        try apply(segmenter.finish(), last: true)
        publish(store.end())
    }

    /// Cuts what the events say; the last segment ends with the muxer's trailer.
    private func apply(_ events: [Segmenter.Event], last: Bool = false) throws {
        for event in events {
            switch event {
            case .fragmentEnded(let duration, let independent):
                store.appendFragment(
                    try packager.cutFragment(segmentStartsNext: false), duration: duration, independent: independent)
            case .segmentEnded(let segment):
                store.appendFragment(
                    try last ? packager.finish() : packager.cutFragment(segmentStartsNext: true),
                    duration: segment.lastFragmentDuration, independent: segment.lastFragmentIndependent)
                publish(store.closeSegment(programDateTime: clock.wallMilliseconds(at: segment.start)))
            }
        }
    }

    private func publish(_ change: SegmentStore.Change) {
        guard let mirror else { return }
        tell(mirror.apply(change, snapshot: store.snapshot))
    }

    /// Reports a change in the folder's health as an event.
    private func tell(_ outcome: DirectoryMirror.Outcome?) {
        guard let mirror else { return }
        switch outcome {
        case .failed(let error):
            report(
                .diskWriteFailed,
                "writing to \(mirror.folder.path) failed (\(error)): the stream goes on from memory, "
                    + "and the folder is brought up to date once it can be written")
        case .recovered:
            report(.diskWriteRecovered, "\(mirror.folder.path) can be written again: it is up to date")
        case nil:
            break
        }
    }
}
