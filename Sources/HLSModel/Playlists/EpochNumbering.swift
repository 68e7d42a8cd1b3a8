/// Where a broadcast's segment numbers start: a function of when its media starts, on a fixed epoch
/// (1970, the epoch of PROGRAM-DATE-TIME), never of a server's state.
///
/// Time is cut into slots one segment long since the epoch; a broadcast starting at wall time `t`
/// numbers its first segment one past `t`'s slot, and each segment after it one more (segment `k`
/// starts `k` segment durations or a frame more after `t`, so its number never runs ahead of its
/// slot). Every server fed by one publisher therefore serves the same names, and a publisher
/// restarted without its folder gives numbers past every number of its earlier run, unless it
/// starts within the slot in which that run's last segment began: what it remembers of its last
/// run (``Start``, kept by the caller: its start, and its last number once it stopped cleanly)
/// closes that case on the same machine.
///
/// Pure.
public enum EpochNumbering {
    /// A run's first segment number, when its media started and how long its segments were: enough
    /// to bound every number it can have given since.
    public struct Start: Sendable, Equatable {
        public var sequence: Int
        public var wallMilliseconds: Int64
        public var segmentMilliseconds: Int64
        /// The run's last number, once it has stopped cleanly; nil while it runs (or if it was killed).
        public var lastSequence: Int?

        public init(sequence: Int, wallMilliseconds: Int64, segmentMilliseconds: Int64, lastSequence: Int? = nil) {
            self.sequence = sequence
            self.wallMilliseconds = wallMilliseconds
            self.segmentMilliseconds = segmentMilliseconds
            self.lastSequence = lastSequence
        }

        /// `<sequence> <wall ms> <segment ms>[ <last>]`: what the caller keeps between runs.
        public var text: String {
            "\(sequence) \(wallMilliseconds) \(segmentMilliseconds)\(lastSequence.map { " \($0)" } ?? "")\n"
        }

        public init?(text: String) {
            let words = text.split(whereSeparator: \.isWhitespace)
            let fields = words.compactMap { Int64($0) }
            // Every field far below Int64.max (a file edited by hand cannot make the arithmetic trap),
            // and the numbers within what origins take of a publisher (IngestRules.publisherNumbers):
            // a record past it is not this program's, and the run numbers from the epoch instead.
            let bound: Int64 = 1 << 50
            let numbers = Int64(IngestRules.publisherNumbers.upperBound)
            guard (3...4).contains(words.count), fields.count == words.count,
                fields.allSatisfy({ (0..<bound).contains($0) }), fields[2] > 0, fields[0] < numbers,
                fields.count == 3 || fields[3] < numbers,
                fields.count == 3 || fields[3] >= fields[0] - 1
            else { return nil }
            self.init(
                sequence: Int(fields[0]), wallMilliseconds: fields[1], segmentMilliseconds: fields[2],
                lastSequence: fields.count == 4 ? Int(fields[3]) : nil)
        }

        /// The highest number the run can have given by `wallMilliseconds`: its last, once it has
        /// stopped cleanly; else one per segment begun since its start, each at least a segment long
        /// but the last.
        public func highestSequence(by wallMilliseconds: Int64) -> Int {
            lastSequence ?? sequence + Int(max(0, wallMilliseconds - self.wallMilliseconds) / segmentMilliseconds)
        }
    }

    /// The number of the first segment of a broadcast whose media starts at `wallMilliseconds`
    /// (since 1970), cut into segments of `segmentDuration` seconds; past every number the run that
    /// started at `earlier` can have given, when it had segments of the same length.
    public static func start(at wallMilliseconds: Int64, segmentDuration: Double, after earlier: Start? = nil) -> Start
    {
        let slot = max(1, Int64((segmentDuration * 1000).rounded()))
        var sequence = Int(max(0, wallMilliseconds) / slot) + 1
        // Runs with other segment lengths number far apart (wall time over another length): only a
        // run of the same length can meet this one's numbers.
        if let earlier, earlier.segmentMilliseconds == slot {
            sequence = max(sequence, earlier.highestSequence(by: wallMilliseconds) + 1)
        }
        return Start(sequence: sequence, wallMilliseconds: wallMilliseconds, segmentMilliseconds: slot)
    }
}
