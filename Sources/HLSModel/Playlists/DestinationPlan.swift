/// What a live destination (a push, the `--hls-dir` folder) holds of one rendition, as far as its
/// sink knows, and what it needs next to show a timeline: the one plan of what to send, list and
/// remove that every live mirror of a channel follows. Pure (the time is an argument), so the rules
/// are tested with exact values:
/// - media files go before any playlist naming them: init segments, then the parts the playlist
///   will list, then segments oldest first;
/// - the playlist it may hold names only what it holds: a segment given up is listed as EXT-X-GAP,
///   a segment's part tags only when all its parts are there, the open parts only as far as they are;
/// - what the timeline no longer holds is removed.
public struct DestinationPlan: Sendable {
    /// Sends Low-Latency HLS parts and the playlist that lists them.
    public let sendsParts: Bool
    /// Media files this sink has stored at the destination.
    public var stored: Set<MediaFileName> = []
    /// Segments given up: listed with EXT-X-GAP until they leave the playlist.
    public var gaps: Set<Int> = []
    /// Media files whose sending failed midway: they may have arrived all the same, so they are
    /// removed like stored ones once the timeline lets go of them.
    public var attempted: Set<MediaFileName> = []
    /// The playlists as last stored.
    public var playlists: [MediaFileName: [UInt8]] = [:]

    public init(sendsParts: Bool) {
        self.sendsParts = sendsParts
    }

    /// The media files the destination lacks, in the order they must go.
    public func missing(in timeline: Timeline) -> [MediaFileName] {
        var names = timeline.initSegments.keys.sorted()
        if sendsParts { names += partsListed(in: timeline) }
        names += timeline.segments.filter { $0.isListed && !gaps.contains($0.sequence) }.map(\.name)
        return names.filter { !stored.contains($0) }
    }

    /// The parts worth sending: those of the segment being built and of the newest segment (its
    /// last part is cut together with it). Older parts are left out: their segments stand for them.
    private func partsListed(in timeline: Timeline) -> [MediaFileName] {
        let newest = timeline.segments.last { $0.isListed && !gaps.contains($0.sequence) }
        return (newest?.parts ?? []).map(\.name) + timeline.openParts.map(\.name)
    }

    /// True when every file the timeline's playlist names is at the destination or given up: the
    /// playlist may go.
    public func canList(_ timeline: Timeline) -> Bool {
        let listed = timeline.segments.filter(\.isListed)
        let maps = Set(listed.compactMap(\.initSegment) + (timeline.initSegmentName.map { [$0] } ?? []))
        return listed.allSatisfy { stored.contains($0.name) || gaps.contains($0.sequence) }
            && maps.allSatisfy(stored.contains)
    }

    /// The media playlist the destination may hold now.
    public func playlist(for timeline: Timeline) -> MediaPlaylist {
        var playlist = sendsParts ? timeline.mediaPlaylist() : timeline.wholeSegmentPlaylist()
        let listed = timeline.segments.filter(\.isListed)
        for (index, segment) in zip(playlist.segments.indices, listed) {
            if gaps.contains(segment.sequence) {
                playlist.segments[index].gap = true
                playlist.segments[index].parts = []
            } else if !segment.parts.allSatisfy({ stored.contains($0.name) }) {
                playlist.segments[index].parts = []
            }
        }
        if var lowLatency = playlist.lowLatency {
            let held = timeline.openParts.prefix { stored.contains($0.name) }.count
            lowLatency.openParts = Array(lowLatency.openParts.prefix(held))
            lowLatency.preloadHint =
                MediaFileName.part(timeline.nextSequence, held, timeline.configuration.format)
                .description
            playlist.lowLatency = lowLatency
        }
        return playlist
    }

    /// The destination says it lacks files this sink stored there (an origin that restarted): none
    /// is counted as there any more, so the next pass sends every one the playlist names again.
    public mutating func destinationLostFiles() {
        attempted.formUnion(stored)
        stored.removeAll()
        playlists.removeAll()
    }

    /// Files at the destination that the timeline no longer holds, to remove.
    public func removable(in timeline: Timeline) -> [MediaFileName] {
        var held = Set(timeline.initSegments.keys)
        for segment in timeline.segments {
            held.insert(segment.name)
            held.formUnion(segment.parts.map(\.name))
        }
        held.formUnion(timeline.openParts.map(\.name))
        return stored.union(attempted).subtracting(held).sorted()
    }

    /// Forgets segments given up that have left the timeline.
    public mutating func forgetGaps(leaving timeline: Timeline) {
        let held = Set(timeline.segments.map(\.sequence))
        gaps = gaps.filter(held.contains)
    }

    /// A segment not stored one segment duration after it was cut is given up: later ones go on.
    public static func isLate(_ segment: Timeline.Segment, nowMilliseconds: Int64) -> Bool {
        let duration = Int64((segment.duration * 1000).rounded())
        return nowMilliseconds - (segment.programDateTime + duration) > duration
    }
}
