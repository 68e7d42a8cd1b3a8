import Runtime

/// The playlists, rendered from a timeline: what viewers of a live origin get (with Low-Latency HLS
/// parts and delta updates), what a folder or a static destination holds (whole segments only), and
/// the multivariant playlist over a channel's renditions.
extension Timeline {
    /// The live media playlist, with parts and the preload hint when the timeline has them.
    public func mediaPlaylist() -> MediaPlaylist {
        let listed = segments.filter(\.isListed)
        let target = Double(configuration.targetDuration)
        let lowLatency = configuration.partDuration.map { partTarget in
            MediaPlaylist.LowLatency(
                partTarget: partTarget, openParts: openParts.map(\.listed),
                preloadHint: nextPart.description,
                canSkipUntil: 6 * target, openDiscontinuity: nextIsDiscontinuity,
                openMap: initSegmentName?.description)
        }
        var playlist = MediaPlaylist(
            version: configuration.format.playlistVersion,
            targetDuration: configuration.targetDuration,
            mediaSequence: listed.first?.sequence ?? nextSequence,
            discontinuitySequence: discontinuitySequence,
            initSegmentURI: initSegmentName?.description,
            segments: listed.map { segment in
                // Part tags go once the segment is more than three target durations from the edge.
                let recent = segment.end > edge - 3 * target
                return MediaPlaylist.Segment(
                    uri: segment.name.description, duration: segment.duration,
                    programDateTime: segment.programDateTime, discontinuity: segment.discontinuity,
                    map: segment.initSegment?.description, parts: recent ? segment.parts.map(\.listed) : [],
                    gap: segment.gap, iFrame: segment.iFrame)
            },
            ended: ended,
            lowLatency: lowLatency)
        // A marker is listed while the segment it starts in is; those of the segments still held
        // after leaving the playlist were removed lately.
        let firstListed = listed.first?.programDateTime ?? .max
        let oldestHeld = segments.first?.programDateTime ?? .max
        playlist.dateRanges = dateRanges.filter { $0.start >= firstListed }
        playlist.recentlyRemovedDateRanges = dateRanges.filter { (oldestHeld..<firstListed).contains($0.start) }
            .map(\.id)
        return playlist
    }

    /// The delta update (`_HLS_skip=YES`): the segments that ended more than CAN-SKIP-UNTIL ago are
    /// left out; with `_HLS_skip=v2` (`skippingDateRanges`) their markers too. Nil when there is
    /// nothing to skip, or no Low-Latency HLS.
    public func deltaPlaylist(skippingDateRanges: Bool = false) -> MediaPlaylist? {
        var playlist = mediaPlaylist()
        guard var lowLatency = playlist.lowLatency, let canSkipUntil = lowLatency.canSkipUntil else { return nil }
        lowLatency.skippedSegments = segments.filter { $0.isListed && $0.end < edge - canSkipUntil }.count
        lowLatency.skipsDateRanges = skippingDateRanges
        guard lowLatency.skippedSegments > 0 else { return nil }
        playlist.lowLatency = lowLatency
        return playlist
    }

    /// The playlist for a folder or a static destination: whole segments only, as players without
    /// Low-Latency HLS read it (a static store cannot hold blocking reloads).
    public func wholeSegmentPlaylist() -> MediaPlaylist {
        var playlist = mediaPlaylist()
        playlist.lowLatency = nil
        for index in playlist.segments.indices {
            playlist.segments[index].parts = []
        }
        return playlist
    }

    /// The I-frame playlist (`iframes.m3u8`): the keyframes of the listed segments; nil when the
    /// rendition has none to list (TS, sound only).
    public func iFramePlaylist() -> MediaPlaylist? {
        hasIFrames ? wholeSegmentPlaylist().iFramePlaylist() : nil
    }

    /// This rendition's `EXT-X-I-FRAME-STREAM-INF`, its rate measured once it has segments; nil
    /// when it has no keyframes to list.
    public func iFrameStream(uri: String) -> MultivariantPlaylist.IFrameStream? {
        guard hasIFrames else { return nil }
        // Until measured: a keyframe is rarely more than a third of a segment's bytes.
        let bandwidth = peakIFrameBitrate > 0 ? peakIFrameBitrate : max(1, rendition.estimatedBitrate / 3)
        return MultivariantPlaylist.IFrameStream(
            uri: uri, bandwidth: bandwidth, codecs: rendition.codecs.filter { !CodecFamily.isAudio($0) },
            width: rendition.width, height: rendition.height)
    }

    /// This rendition's entry in the multivariant playlist, its bit rates measured once it has segments.
    public func variant(uri: String) -> MultivariantPlaylist.Variant {
        let average = measuredBitrate > 0 ? measuredBitrate : rendition.estimatedBitrate
        return MultivariantPlaylist.Variant(
            uri: uri, bandwidth: max(peakBitrate, average), averageBandwidth: average, codecs: rendition.codecs,
            width: rendition.width, height: rendition.height, frameRate: Double(rendition.fps))
    }
}

extension MultivariantPlaylist {
    /// The channel's entry playlist over its renditions' timelines, in order, with each video
    /// rendition's I-frame playlist (`iframes.m3u8` beside its `media.m3u8`).
    public init(renditions: [Timeline]) {
        self.init(
            version: renditions.map(\.configuration.format.playlistVersion).max() ?? 6,
            variants: renditions.map { $0.variant(uri: MediaFileName.mediaPlaylist.description) },
            iFrameStreams: renditions.compactMap { $0.iFrameStream(uri: MediaFileName.iFramePlaylist.description) })
    }
}

extension Timeline.Part {
    var listed: MediaPlaylist.Part {
        MediaPlaylist.Part(uri: name.description, duration: duration, independent: independent)
    }
}
