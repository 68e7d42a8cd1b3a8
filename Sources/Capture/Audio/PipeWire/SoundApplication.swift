import FoundationEssentials
import Runtime

/// An audio node of the user's PipeWire, as onair matches and lists it.
public struct AudioNode: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// An application's playback stream (`Stream/Output/Audio`).
        case applicationStream
        /// Somewhere sound plays (`Audio/Sink`): its monitor is what it plays.
        case sink
        /// A microphone or other input (`Audio/Source`).
        case source
    }

    public var id: UInt32
    /// PipeWire's never-reused number for the node: what a capture targets.
    public var serial: UInt32
    public var kind: Kind
    /// `node.name`: what `pipewire:` takes.
    public var name: String
    public var description: String
    /// `application.name`.
    public var application: String
    /// `application.process.binary`, or the process's own name.
    public var binary: String
    /// `application.process.id`, or its client's process id; 0 when not known.
    public var processID: Int
    /// The processes `processID` was started by, parent first (a browser's audio service is a
    /// child of the browser).
    public var parentProcessIDs: [Int]

    public init(
        id: UInt32, serial: UInt32, kind: Kind, name: String, description: String = "", application: String = "",
        binary: String = "", processID: Int = 0, parentProcessIDs: [Int] = []
    ) {
        self.id = id
        self.serial = serial
        self.kind = kind
        self.name = name
        self.description = description
        self.application = application
        self.binary = binary
        self.processID = processID
        self.parentProcessIDs = parentProcessIDs
    }
}

/// Which application's sound `--audio app:NAME` takes. A number is a process id, matching the
/// streams of that process and of the processes it started (a browser plays through a child
/// process); anything else matches an application's PipeWire name (`application.name`:
/// "Firefox", "Chromium") or its binary (`firefox`, `pw-play`), ignoring case. Every playback
/// stream that matches is taken.
public enum SoundApplication: Sendable, Equatable, CustomStringConvertible {
    case named(String)
    case processID(Int)

    /// `NAME` of `app:NAME`; nil when empty.
    public init?(_ text: String) {
        let trimmed = text.trimmingWhitespace()
        guard !trimmed.isEmpty else { return nil }
        if let pid = Int(trimmed), pid > 0 {
            self = .processID(pid)
        } else {
            self = .named(trimmed)
        }
    }

    public func matches(_ node: AudioNode) -> Bool {
        guard node.kind == .applicationStream else { return false }
        switch self {
        case .processID(let pid): return node.processID == pid || node.parentProcessIDs.contains(pid)
        case .named(let name):
            let wanted = name.lowercased()
            return node.application.lowercased() == wanted || node.binary.lowercased() == wanted
        }
    }

    public var description: String {
        switch self {
        case .named(let name): "application \(name)"
        case .processID(let pid): "process \(pid)"
        }
    }
}

/// Follows the streams a capture should take as they come and go: given the nodes there now,
/// which to start capturing and which to let go. Pure; `PipeWireSource` acts on its answers.
public struct StreamFollower: Sendable {
    public struct Change: Sendable, Equatable {
        /// Streams to start capturing, by serial, in the order PipeWire listed them.
        public var start: [UInt32]
        /// Streams captured until now that are gone or no longer match.
        public var stop: [UInt32]
        /// Whether any stream is taken after the change, and whether that is news: the
        /// application started or stopped playing (for the notice and the event).
        public var playing: Bool
        public var playingChanged: Bool
    }

    public let application: SoundApplication
    public private(set) var following: [UInt32] = []
    private var wasPlaying: Bool?

    public init(application: SoundApplication) {
        self.application = application
    }

    public mutating func update(nodes: [AudioNode]) -> Change {
        let wanted = nodes.filter { application.matches($0) }.map(\.serial)
        let start = wanted.filter { !following.contains($0) }
        let stop = following.filter { !wanted.contains($0) }
        following = following.filter { wanted.contains($0) } + start
        let playing = !following.isEmpty
        let changed = wasPlaying != playing
        wasPlaying = playing
        return Change(start: start, stop: stop, playing: playing, playingChanged: changed)
    }

    /// Everything is let go (the connection broke): the next update starts afresh, and says
    /// whether the application plays.
    public mutating func reset() {
        following = []
        wasPlaying = nil
    }
}

/// Where PipeWire sound comes from: `--audio app:NAME`, `--audio window`, `pipewire:…`.
public enum PipeWireTarget: Sendable, Equatable, CustomStringConvertible {
    /// Every playback stream of one application, followed as they come and go.
    case application(SoundApplication)
    /// The default source (a microphone): `pipewire` or `pipewire:default`.
    case defaultSource
    /// What the default sink plays: `pipewire:monitor`.
    case defaultMonitor
    /// A sink's monitor or a source, by `node.name`: `pipewire:NAME`.
    case node(String)

    /// The part after `pipewire:`.
    public init(device: String) {
        switch device {
        case "", "default": self = .defaultSource
        case "monitor": self = .defaultMonitor
        default: self = .node(device)
        }
    }

    public var description: String {
        switch self {
        case .application(let application): application.description
        case .defaultSource: "PipeWire's default source"
        case .defaultMonitor: "what PipeWire's default sink plays"
        case .node(let name): "PipeWire node \(name)"
        }
    }
}
