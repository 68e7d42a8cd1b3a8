/// The store's playlists, rendered from its state: once per change for viewers, and for the
/// `--hls-dir` folder, whole segments only.
extension SegmentStore {
    /// Renders what viewers are served: the media playlist, its delta update, the multivariant playlist.
    static func render(_ state: inout State, configuration: Configuration) {
        var playlist = mediaPlaylist(of: state, configuration: configuration)
        state.mediaPlaylist = Array(playlist.render().utf8)
        state.deltaPlaylist = nil
        if var lowLatency = playlist.lowLatency, let canSkipUntil = lowLatency.canSkipUntil {
            // A delta update leaves out the segments that ended more than CAN-SKIP-UNTIL ago.
            lowLatency.skippedSegments =
                state.segments.filter { $0.expiresAt == nil && $0.end < state.edge - canSkipUntil }.count
            if lowLatency.skippedSegments > 0 {
                playlist.lowLatency = lowLatency
                state.deltaPlaylist = Array(playlist.render().utf8)
            }
        }
        state.multivariantPlaylist = Array(multivariantPlaylist(of: state, configuration: configuration).render().utf8)
    }

    /// The playlist for `--hls-dir`: whole segments only, as players without LL-HLS read it.
    static func folderPlaylist(of state: State, configuration: Configuration) -> [UInt8] {
        var playlist = mediaPlaylist(of: state, configuration: configuration)
        playlist.lowLatency = nil
        for index in playlist.segments.indices {
            playlist.segments[index].parts = []
        }
        return Array(playlist.render().utf8)
    }

    static func mediaPlaylist(of state: State, configuration: Configuration) -> MediaPlaylist {
        let listed = state.segments.filter { $0.expiresAt == nil }
        let target = Double(configuration.targetDuration)
        let lowLatency = configuration.partDuration.map { partTarget in
            MediaPlaylist.LowLatency(
                partTarget: partTarget, openParts: state.openParts.map(\.listed),
                preloadHint:
                    "part\(state.nextSequence).\(state.openParts.count).\(configuration.format.segmentExtension)",
                canSkipUntil: 6 * target, openDiscontinuity: state.nextIsDiscontinuity, openMap: state.initSegmentName)
        }
        return MediaPlaylist(
            version: configuration.format.playlistVersion,
            targetDuration: configuration.targetDuration,
            mediaSequence: listed.first?.sequence ?? state.nextSequence,
            discontinuitySequence: state.discontinuitySequence,
            initSegmentURI: state.initSegmentName,
            segments: listed.map { segment in
                // Part tags go once the segment is more than three target durations from the edge.
                let recent = segment.end > state.edge - 3 * target
                return MediaPlaylist.Segment(
                    uri: segment.name, duration: segment.duration, programDateTime: segment.programDateTime,
                    discontinuity: segment.discontinuity, map: segment.map,
                    parts: recent ? segment.parts.map(\.listed) : [])
            },
            ended: state.ended,
            lowLatency: lowLatency)
    }

    static func multivariantPlaylist(of state: State, configuration: Configuration) -> MultivariantPlaylist {
        let average =
            state.totalDuration > 0
            ? Int(Double(state.totalBytes * 8) / state.totalDuration) : configuration.estimatedBitrate
        return MultivariantPlaylist(
            version: configuration.format.playlistVersion,
            variants: [
                .init(
                    uri: mediaPlaylistName, bandwidth: max(state.peakBitrate, average), averageBandwidth: average,
                    codecs: configuration.codecs, width: configuration.width, height: configuration.height,
                    frameRate: Double(configuration.fps))
            ])
    }
}
