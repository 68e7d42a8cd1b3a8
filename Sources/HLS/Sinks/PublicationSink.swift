public import HLSModel

/// Where a channel's publications go: the live store viewers read, a folder, and (next) remote
/// origins, object storage and recordings. A sink is handed publications by a ``SinkRunner`` on a
/// thread of its own, so however slow it is, it never delays packaging, the server or another sink.
///
/// A sink may be handed only some of the publications: when it falls behind, the runner keeps the
/// newest and says how many it left out. Every publication carries the whole timeline after it, so
/// a sink that brings its destination up to the newest timeline loses nothing but intermediate states.
public protocol PublicationSink: AnyObject {
    /// Where it publishes, for logs and events: the folder it writes, the URL it sends to.
    var destination: String { get }
    /// Applies a publication.
    func receive(_ publication: Publication, backlog: SinkBacklog)
}

/// How far behind a sink is when it is handed a publication, and a way to learn of newer ones
/// while it works on this one (a sink that retries stops when a newer publication supersedes).
public struct SinkBacklog: Sendable, Equatable {
    /// Publications left out since the last one handed over, because the queue was full.
    public var skipped: Int
    /// Publications still queued behind this one.
    public var waiting: Int
    /// Waits up to the given seconds for a newer publication; true once one is queued.
    private let newer: @Sendable (Double) -> Bool
    /// True once the stream has ended upstream: nothing newer will come.
    private let closed: @Sendable () -> Bool

    public init(
        skipped: Int, waiting: Int, newer: @escaping @Sendable (Double) -> Bool = { _ in false },
        closed: @escaping @Sendable () -> Bool = { false }
    ) {
        self.skipped = skipped
        self.waiting = waiting
        self.newer = newer
        self.closed = closed
    }

    /// Waits up to `seconds` for a newer publication (returns at once when one is queued); true
    /// when there is one.
    public func waitForNewer(seconds: Double) -> Bool { newer(seconds) }

    /// True once no more publications will come: the stream has ended and this may be the last.
    public var isStreamClosed: Bool { closed() }

    public static func == (lhs: SinkBacklog, rhs: SinkBacklog) -> Bool {
        lhs.skipped == rhs.skipped && lhs.waiting == rhs.waiting
    }
}
