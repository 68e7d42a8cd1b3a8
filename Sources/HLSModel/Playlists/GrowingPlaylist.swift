/// A playlist that only ever grows (a recording's: `EVENT`, then `VOD`), kept small in memory: a
/// show of hours lists thousands of segments, and a ``MediaPlaylist/Segment`` each (about 100 bytes,
/// twice that while its array grows) would be most of what the publisher gains an hour. A segment
/// appended here costs 32 bytes: its name is its number (consecutive from `firstNumber`), and
/// its init segment is noted only where it changes.
///
/// What an earlier run left (a recording continued after a crash) stays as it was read, ahead of
/// the appended segments. Pure; ``playlist`` makes the whole value when it is to be written.
public struct GrowingPlaylist: Sendable {
    /// The header, the markers, and the segments read from an earlier run.
    public var head: MediaPlaylist
    private let format: ContainerFormat
    /// The number of the first appended segment (`seg<N>` and on).
    private var firstNumber: Int?
    private var entries: ContiguousArray<Entry> = []
    /// The init segment from an appended segment on, by its index, where it changes.
    private var maps: [Int: String] = [:]

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

    /// The playlist, every segment in it.
    public var playlist: MediaPlaylist {
        var playlist = head
        guard let firstNumber else { return playlist }
        playlist.segments.reserveCapacity(count)
        var map = head.segments.last?.map ?? head.initSegmentURI
        for (index, entry) in entries.enumerated() {
            let changed = maps[index]
            if let changed { map = changed }
            playlist.segments.append(
                MediaPlaylist.Segment(
                    uri: MediaFileName.segment(firstNumber + index, format).description, duration: entry.duration,
                    programDateTime: entry.programDateTime, discontinuity: entry.discontinuity,
                    map: changed == nil ? nil : map,
                    iFrame: entry.iFrameLength == 0
                        ? nil : IFrameRange(offset: Int(entry.iFrameOffset), length: Int(entry.iFrameLength))))
        }
        return playlist
    }
}
