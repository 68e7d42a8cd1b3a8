extension SegmentStore {
    /// What an earlier run of a channel left in its folder: its playlist and the files it names.
    public struct PreviousRun: Sendable {
        public var playlist: MediaPlaylist
        /// Segments and init segments by name, as read from the folder.
        public var files: [String: [UInt8]]

        public init(playlist: MediaPlaylist, files: [String: [UInt8]]) {
            self.playlist = playlist
            self.files = files
        }
    }

    /// Takes up an earlier run: its numbering always, and its segments too when they can share a
    /// playlist with ours (same container and target duration) and their files are all there.
    static func restore(_ previous: PreviousRun, into state: inout State, configuration: Configuration) {
        let old = previous.playlist
        state.nextSequence = old.mediaSequence + old.segments.count
        state.firstSequence = state.nextSequence
        state.nextIsDiscontinuity = state.nextSequence > 0
        let compatible =
            old.targetDuration == configuration.targetDuration
            && old.segments.allSatisfy { $0.uri.hasSuffix("." + configuration.format.segmentExtension) }
            && old.segments.allSatisfy { ($0.map == nil) == (configuration.format.initSegmentName == nil) }
        // The newest segments whose files (and init segment) are all there.
        let kept =
            compatible
            ? Array(
                old.segments.reversed().prefix { segment in
                    previous.files[segment.uri] != nil && segment.map.map { previous.files[$0] != nil } ?? true
                }.reversed()) : []
        let dropped = old.segments.dropLast(kept.count)
        state.discontinuitySequence = old.discontinuitySequence + dropped.filter(\.discontinuity).count
        // Their media times end where ours begin.
        var end = -kept.reduce(0) { $0 + $1.duration }
        for (offset, segment) in kept.enumerated() {
            end += segment.duration
            state.segments.append(
                Segment(
                    sequence: state.nextSequence - kept.count + offset, name: segment.uri, duration: segment.duration,
                    programDateTime: segment.programDateTime, bytes: previous.files[segment.uri]!, end: end, parts: [],
                    map: segment.map, discontinuity: segment.discontinuity))
            if let map = segment.map { state.initSegments[map] = previous.files[map] }
        }
    }

    /// Everything a mirror folder should hold now, in the order to write it: the init segments in
    /// use, the listed segments, then the playlists that name them (once there are any).
    public func snapshot() -> Change {
        state.withLock { state in
            var change = Change()
            change.written = state.initSegments.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
            let listed = state.segments.filter { $0.expiresAt == nil }
            change.written += listed.map { ($0.name, $0.bytes) }
            // No playlist before there is a segment to name.
            guard !listed.isEmpty || state.ended else { return change }
            change.written.append(
                (Self.mediaPlaylistName, Self.folderPlaylist(of: state, configuration: configuration)))
            change.written.append((Self.multivariantPlaylistName, state.multivariantPlaylist))
            return change
        }
    }
}
