/// Where a channel's publications go: the live store viewers read, a folder, and (next) remote
/// origins, object storage and recordings. A sink is handed publications by a ``SinkRunner`` on a
/// thread of its own, so however slow it is, it never delays packaging, the server or another sink.
///
/// A sink may be handed only some of the publications: when it falls behind, the runner keeps the
/// newest and says how many it left out. Every publication carries the whole timeline after it, so
/// a sink that brings its destination up to the newest timeline loses nothing but intermediate states.
public protocol PublicationSink: AnyObject, Sendable {
    /// Where it publishes, for logs and events: the folder it writes, the URL it sends to.
    var destination: String { get }
    /// Applies a publication.
    func receive(_ publication: Publication, backlog: SinkBacklog)
}

/// How far behind a sink is when it is handed a publication.
public struct SinkBacklog: Sendable, Equatable {
    /// Publications left out since the last one handed over, because the queue was full.
    public var skipped: Int
    /// Publications still queued behind this one.
    public var waiting: Int

    public init(skipped: Int, waiting: Int) {
        self.skipped = skipped
        self.waiting = waiting
    }
}
