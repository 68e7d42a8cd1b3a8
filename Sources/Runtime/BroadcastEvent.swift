/// Something that happened to a broadcast: a change of state or a problem, with a code that
/// never changes (hosts match on it) and a message for people.
public struct BroadcastEvent: Sendable, Equatable {
    /// A stable code: hosts match on it, and its raw value is its wire name in logs, the API and
    /// Server-Sent Events. Each feature declares its codes beside it (`CaptureEvents`,
    /// `EncodingEvents`, `SinkEvents`, `PushEvents`); a broadcast's own changes of state are here.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        public let rawValue: String
        /// Problems are logged as warnings; changes of state and recoveries as information.
        public let isProblem: Bool

        public init(_ rawValue: String, problem: Bool = false) {
            self.rawValue = rawValue
            isProblem = problem
        }

        public var description: String { rawValue }

        public static func == (lhs: Code, rhs: Code) -> Bool { lhs.rawValue == rhs.rawValue }
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }

        public static let started = Code("started")
        public static let paused = Code("paused")
        public static let resumed = Code("resumed")
        public static let stopped = Code("stopped")
        /// A marker (a chapter) was added to the broadcast.
        public static let markerAdded = Code("marker_added")
    }

    public var code: Code
    public var message: String
    /// Wall time, milliseconds since 1970.
    public var time: Int64
    /// Its place in the broadcast's events, from 1: the Server-Sent Events id.
    public var sequence: Int

    public init(code: Code, message: String, time: Int64, sequence: Int) {
        self.code = code
        self.message = message
        self.time = time
        self.sequence = sequence
    }
}

/// Where the stages report events: the broadcast stamps, numbers, logs and streams them.
public typealias EventReporter = @Sendable (_ code: BroadcastEvent.Code, _ message: String) -> Void
