import HLS
import HLSModel

/// What a request adds to a playlist the channel holds: the viewer's `session=` in the variants'
/// URIs, every pathway of twin origins (`--pathway`), a private channel's `token=` in every URI.
/// The channel's file is the source, and the view renders from it once per change of it and
/// decoration, on a miss of the body cache, whose ``BodyKey`` names every decoration; a route
/// never renders again what it served before.
struct PlaylistView {
    let request: LiveRequest
    /// Twin origins offered to players; empty with one origin.
    let pathways: [Pathway]
    /// The token carried into every URI, for a private channel's playlist.
    let token: String?

    /// The bytes `file` is served as.
    func render(_ file: LiveFile, of channel: any LiveChannel) -> [UInt8] {
        var bytes = file.bytes
        if request.rendition == nil, MediaFileName(request.file) == .multivariantPlaylist,
            request.session != nil || !pathways.isEmpty
        {
            var playlist = channel.multivariantPlaylist(session: request.session)
            if !pathways.isEmpty {
                playlist = playlist.steered(
                    over: pathways, channelPath: "/live/\(request.channel)/",
                    steeringURI: LiveRoutes.steeringPath(channel: request.channel))
            }
            bytes = Array(playlist.render().utf8)
        }
        if let token { bytes = PlaylistQuery.appending("token=" + token, to: bytes) }
        return bytes
    }
}
