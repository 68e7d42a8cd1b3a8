public import HLSModel

/// What viewers read of a channel published in several renditions: the multivariant playlist
/// (`index.m3u8`) over one ``LiveStore`` per rendition (the audio rendition's last, when it has one), each of which serves its own folder
/// (`720p/media.m3u8`, `720p/seg12.m4s`) as a single-rendition channel serves its own.
public final class LiveLadder: LiveChannel {
    /// Largest first.
    public let stores: [LiveStore]
    public let name: ChannelName

    /// `stores`: the renditions' stores, largest first, all of one channel.
    public init(stores: [LiveStore]) {
        precondition(!stores.isEmpty)
        self.stores = stores
        name = stores[0].name
    }

    /// The channel's figures are those of its largest rendition, with every video rendition listed.
    public func summary() -> ChannelSummary {
        var summary = stores[0].summary()
        summary.renditions = stores.map(\.timeline).filter { !$0.rendition.isAudioOnly }.map(
            ChannelSummary.Rendition.init)
        return summary
    }

    public var viewerWindow: Double { stores[0].viewerWindow }

    /// The multivariant playlist over every rendition as it stands now (their measured rates).
    public func multivariantPlaylist(session: String?) -> MultivariantPlaylist {
        let timelines = stores.map(\.timeline)
        return LadderView(
            entries: timelines.map(\.ladderEntry), version: timelines[0].configuration.format.playlistVersion
        ).multivariantPlaylist.carrying(session: session)
    }

    public func file(for request: LiveRequest) async throws(LiveFile.Refusal) -> LiveFile? {
        guard let rendition = request.rendition else {
            guard MediaFileName(request.file) == .multivariantPlaylist else { return nil }
            // The server renders a session's copy (``multivariantPlaylist(session:)``) from this one.
            return LiveFile(
                bytes: Array(multivariantPlaylist(session: nil).render().utf8),
                contentType: MediaFileName.multivariantPlaylist.contentType, immutable: false,
                perSession: request.session != nil)
        }
        guard let store = stores.first(where: { $0.timeline.rendition.id == rendition }),
            MediaFileName(request.file) != .multivariantPlaylist
        else { return nil }
        var inFolder = request
        inFolder.rendition = nil
        return try await store.file(for: inFolder)
    }
}
