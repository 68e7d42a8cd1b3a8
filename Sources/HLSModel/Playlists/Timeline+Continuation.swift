extension Timeline {
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

    /// Where this run's numbering starts, and how many of an earlier run's segments it lists.
    public var continuation: (firstSequence: Int, earlierSegments: Int) {
        (firstSequence, segments.filter { $0.sequence < firstSequence }.count)
    }

    /// Takes up an earlier run: its numbering always, and its segments too when they can share a
    /// playlist with ours (same container and target duration) and their files are all there.
    mutating func restore(_ previous: PreviousRun) {
        let old = previous.playlist
        nextSequence = old.mediaSequence + old.segments.count
        firstSequence = nextSequence
        nextIsDiscontinuity = nextSequence > 0
        let format = configuration.format
        let compatible =
            old.targetDuration == configuration.targetDuration
            && old.segments.allSatisfy { segment in
                if case .segment(_, format) = MediaFileName(segment.uri) { return true }
                return false
            }
            && old.segments.allSatisfy { ($0.map == nil) == !format.hasInitSegment }
            && old.segments.allSatisfy { segment in segment.map.map { MediaFileName($0) != nil } ?? true }
        // The newest segments whose files (and init segment) are all there.
        let kept =
            compatible
            ? Array(
                old.segments.reversed().prefix { segment in
                    previous.files[segment.uri] != nil && segment.map.map { previous.files[$0] != nil } ?? true
                }.reversed()) : []
        let dropped = old.segments.dropLast(kept.count)
        discontinuitySequence = old.discontinuitySequence + dropped.filter(\.discontinuity).count
        // Their media times end where ours begin.
        var end = -kept.reduce(0) { $0 + $1.duration }
        for (offset, segment) in kept.enumerated() {
            end += segment.duration
            let sequence = nextSequence - kept.count + offset
            let map = segment.map.flatMap(MediaFileName.init)
            segments.append(
                Segment(
                    sequence: sequence, name: .segment(sequence, format), duration: segment.duration,
                    programDateTime: segment.programDateTime, bytes: previous.files[segment.uri]!, end: end, parts: [],
                    initSegment: map, discontinuity: segment.discontinuity))
            if let map, let mapText = segment.map { initSegments[map] = previous.files[mapText] }
        }
    }
}
