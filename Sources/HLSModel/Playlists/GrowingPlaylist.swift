/// A playlist that only ever grows (a recording's: `EVENT`, then `VOD`), kept small in memory: a
/// show of hours lists thousands of segments, and a ``MediaPlaylist/Segment`` each (about 100 bytes,
/// twice that while its array grows) would be most of what the publisher gains an hour. A segment
/// appended here costs 32 bytes: its name is its number (consecutive from `firstNumber`), and
/// its init segment is noted only where it changes.
///
/// What an earlier run left (a recording continued after a crash) stays as it was read, ahead of
/// the appended segments. Pure; ``render(iFrames:piece:_:)`` writes out its text a piece at a time.
public struct GrowingPlaylist: Sendable {
    /// The header, the markers, and the segments read from an earlier run.
    public var head: MediaPlaylist
    private let format: ContainerFormat
    /// The number of the first appended segment (`seg<N>` and on).
    private var firstNumber: Int?
    private var entries: ContiguousArray<Entry> = []
    /// The init segment from an appended segment on, by its index, where it changes.
    private var maps: [Int: String] = [:]
    /// An appended segment has no keyframe listed (a gap in the I-frame playlist).
    private var appendedWithoutIFrame = false

    struct Entry: Sendable {
        var programDateTime: Int64
        var duration: Double
        /// The keyframe's range (0, 0 when none), in 32 bits: a segment is well under 4 GB.
        var iFrameOffset: UInt32
        var iFrameLength: UInt32
        var discontinuity: Bool
    }

    /// Goes on from `head` (empty for a new recording).
    public init(head: MediaPlaylist, format: ContainerFormat) {
        self.head = head
        self.format = format
    }

    /// How many segments it lists.
    public var count: Int { head.segments.count + entries.count }

    /// The first segment's wall time (ms since 1970), nil before one is listed.
    public var firstProgramDateTime: Int64? {
        head.segments.first?.programDateTime ?? entries.first?.programDateTime
    }

    /// Appends segment `number` (`seg<number>` in the playlist's format), which follows the last one
    /// appended.
    public mutating func append(
        number: Int, duration: Double, programDateTime: Int64, discontinuity: Bool, map: String?,
        iFrame: IFrameRange?
    ) {
        precondition(firstNumber.map { $0 + entries.count == number } ?? true, "recorded segments are consecutive")
        if firstNumber == nil { firstNumber = number }
        if head.initSegmentURI == nil, count == 0 { head.initSegmentURI = map }
        if let map, map != currentMap { maps[entries.count] = map }
        let range = iFrame.flatMap { range -> (UInt32, UInt32)? in
            guard let offset = UInt32(exactly: range.offset), let length = UInt32(exactly: range.length) else {
                return nil
            }
            return (offset, length)
        }
        if range == nil { appendedWithoutIFrame = true }
        entries.append(
            Entry(
                programDateTime: programDateTime, duration: duration, iFrameOffset: range?.0 ?? 0,
                iFrameLength: range?.1 ?? 0, discontinuity: discontinuity))
    }

    /// The init segment of the last segment listed.
    private var currentMap: String? {
        if let index = maps.keys.max() { return maps[index] }
        return head.segments.last?.map ?? head.initSegmentURI
    }

    /// Its text, as the whole playlist's `render()` would make it (a recording's: no Low-Latency
    /// tags; with `iFrames`, its I-frame playlist's), handed to `emit` in pieces of about `piece`
    /// bytes, in order. Made a segment at a time: the whole playlist as a value, and the text as a string a line, would be thousands of
    /// allocations alive at once, made again at every segment, each time more.
    public func render<Failure: Error>(
        iFrames: Bool = false, piece: Int = 1 << 16, _ emit: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) {
        var header = head
        header.segments = []
        header.lowLatency = nil
        header.iFramesOnly = iFrames
        // A segment with no keyframe is a gap in the I-frame playlist, and EXT-X-GAP needs version 8.
        let gaps =
            head.segments.contains { $0.gap || (iFrames && $0.iFrame == nil) } || (iFrames && appendedWithoutIFrame)
        var map = head.segments.first?.map ?? (head.segments.isEmpty ? maps[0] : nil) ?? head.initSegmentURI
        var text = ""
        header.appendHeader(to: &text, version: gaps ? max(head.version, 8) : head.version, map: map)
        var markers = head.dateRanges[...]
        func add(_ segment: MediaPlaylist.Segment) throws(Failure) {
            var segment = segment
            if iFrames {
                segment.parts = []
                if segment.iFrame == nil { segment.gap = true }
            }
            MediaPlaylist.append(segment, iFramesOnly: iFrames, map: &map, markers: &markers, to: &text)
            if text.utf8.count >= piece {
                try emit(Array(text.utf8))
                text.removeAll(keepingCapacity: true)
            }
        }
        for segment in head.segments { try add(segment) }
        for index in entries.indices { try add(self.segment(at: index)) }
        header.appendTrailer(to: &text, markers: markers, map: map)
        try emit(Array(text.utf8))
    }

    /// The appended segment at `index` as a playlist's segment.
    private func segment(at index: Int) -> MediaPlaylist.Segment {
        let entry = entries[index]
        return MediaPlaylist.Segment(
            uri: MediaFileName.segment(firstNumber! + index, format).description, duration: entry.duration,
            programDateTime: entry.programDateTime, discontinuity: entry.discontinuity, map: maps[index],
            iFrame: entry.iFrameLength == 0
                ? nil : IFrameRange(offset: Int(entry.iFrameOffset), length: Int(entry.iFrameLength)))
    }
}
