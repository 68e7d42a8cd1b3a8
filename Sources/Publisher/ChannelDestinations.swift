public import FoundationEssentials
public import HLS
public import HLSModel
public import Push
public import Runtime
import Synchronization

/// Where a channel goes besides its live store, as `onair publish` and `onair serve` describe it from
/// the same options (`--push`, `--record`, `--dvr`): the one place where a destination becomes a
/// sink. A published channel and a hosted one are sent to the same places the same way; a new
/// segment destination is a case of ``PushDestination`` (chosen by its URL's scheme) and its sink.
public struct ChannelDestinations: ChannelOutputs {
    /// `--record DIR`, and how much of it to keep.
    public struct DiskRecording: Sendable {
        public var root: URL
        public var keep: Int?
        public var maxBytes: Int?

        public init(root: URL, keep: Int? = nil, maxBytes: Int? = nil) {
            self.root = root
            self.keep = keep
            self.maxBytes = maxBytes
        }

        func retention(of channel: ChannelName) -> RecordingRetention? {
            keep == nil && maxBytes == nil
                ? nil : RecordingRetention(root: root, channel: channel, keep: keep, maxBytes: maxBytes)
        }
    }

    /// `--dvr DURATION` and `--dvr-dir`: how far back viewers may go, and where the window is kept.
    public struct Rewind: Sendable {
        public var root: URL
        public var seconds: Double
        /// Each channel's board of windows, so every value of a channel's folder (the sinks', the
        /// server's) posts to and reads from the same one.
        let boards = Boards()

        public init(root: URL, seconds: Double) {
            self.root = root
            self.seconds = seconds
        }

        final class Boards: Sendable {
            private let table = Mutex<[ChannelName: DVRFolder.Windows]>([:])

            func windows(of channel: ChannelName) -> DVRFolder.Windows {
                table.withLock { table in
                    if let windows = table[channel] { return windows }
                    let windows = DVRFolder.Windows()
                    table[channel] = windows
                    return windows
                }
            }
        }
    }

    /// Segment destinations: HTTP ingests and buckets (packet destinations take encoded packets,
    /// which only a publisher has: see ``PacketPusher``).
    public var push: [PushDestination]
    /// Whom the pushes' and the bucket recording's TLS trusts (`--push-ca`).
    public var trust: PushTrust
    public var record: DiskRecording?
    public var recordS3: PushDestination.S3Location?
    public var rewind: Rewind?
    /// `push` names where every channel goes, each in a folder of its own named after it (an
    /// origin's channels); otherwise where the one channel goes.
    public var pushesInFolders: Bool
    /// A recording says where it goes (`record_started`) once planned: an origin's channels start
    /// at any time, while a publisher says it before it starts.
    public var announcesRecordings: Bool
    public var report: EventReporter

    public init(
        push: [PushDestination] = [], trust: PushTrust = .system, record: DiskRecording? = nil,
        recordS3: PushDestination.S3Location? = nil, rewind: Rewind? = nil, pushesInFolders: Bool = false,
        announcesRecordings: Bool = false, report: @escaping EventReporter
    ) {
        self.trust = trust
        self.pushesInFolders = pushesInFolders
        self.push = push.filter { if case .packets = $0 { false } else { true } }
        self.record = record
        self.recordS3 = recordS3
        self.rewind = rewind
        self.announcesRecordings = announcesRecordings
        self.report = report
    }

    public func rewindWindow(of channel: ChannelName) -> DVRFolder? {
        rewind.map {
            DVRFolder.ofThisProcess(
                root: $0.root, channel: channel, seconds: $0.seconds, windows: $0.boards.windows(of: channel))
        }
    }

    public func lastingSinks(of channel: ChannelName, rendition: String?, writesIndex: Bool) -> [SinkRunner] {
        startLastingSinks(of: channel, rendition: rendition, writesIndex: writesIndex).runners
    }

    /// Starts one rendition's lasting sinks, and says how each push destination fares.
    public func startLastingSinks(of channel: ChannelName, rendition: String?, writesIndex: Bool) -> (
        runners: [SinkRunner], pushes: [PushStatus]
    ) {
        var runners: [SinkRunner] = []
        var pushes: [PushStatus] = []
        for destination in push {
            guard
                let sink = PushSink.make(
                    pushesInFolders ? destination.inFolder(channel.text) : destination, channel: channel,
                    rendition: rendition, writesIndex: writesIndex, trust: trust, report: report)
            else { continue }
            pushes.append(sink.status)
            runners.append(SinkRunner(sink))
        }
        if let window = rewindWindow(of: channel) {
            runners.append(SinkRunner(DVRSink(window: window, rendition: rendition, report: report)))
        }
        return (runners, pushes)
    }

    public func recordings(of channel: ChannelName, renditions: [String?], format: ContainerFormat, startedAt: Int64)
        -> (any ChannelRecordings)?
    {
        run(of: channel, renditions: renditions, format: format, startedAt: startedAt)
    }

    /// One run's recordings: on disk planned by the first recorder to need it (a folder of its
    /// own, or the one a killed run left unfinished), in object storage under the run's start time.
    public func run(of channel: ChannelName, renditions: [String?], format: ContainerFormat, startedAt: Int64)
        -> Recordings?
    {
        guard record != nil || recordS3 != nil else { return nil }
        let disk = record.map { record in
            RecordingDestination(planning: {
                RecordingPlan.plan(
                    root: record.root, channel: channel, renditions: renditions, format: format, startedAt: startedAt)
            })
        }
        let cloud = recordS3.map { location in
            // A recording's playlists change until its broadcast ends: stored `no-cache`.
            let storage = S3Store(location: location, playlistCaching: "no-cache", trust: trust)
            let path = "\(channel)/\(RecordingPlan.folderName(startedAt: startedAt))"
            return Recordings.Cloud(
                plan: RecordingDestination(RecordingPlan(folder: URL(fileURLWithPath: "/" + path), continuing: [:])),
                storage: storage, address: storage.address + path + "/")
        }
        if announcesRecordings, let cloud {
            report(.recordStarted, "recording channel \(channel) to \(cloud.address)")
        }
        return Recordings(
            channel: channel, disk: disk, retention: record?.retention(of: channel), cloud: cloud,
            announces: announcesRecordings, report: report)
    }

    public struct Recordings: ChannelRecordings {
        struct Cloud {
            let plan: RecordingDestination
            let storage: S3Store
            let address: String
        }

        let channel: ChannelName
        /// The recording on disk, planned on first use.
        public let disk: RecordingDestination?
        let retention: RecordingRetention?
        let cloud: Cloud?
        let announces: Bool
        let report: EventReporter

        /// Where the recording in object storage goes (`https://…/bucket/channel/start/`).
        public var cloudAddress: String? { cloud?.address }

        public func sinks(rendition: String?, writesIndex: Bool, after: Int?) -> [SinkRunner] {
            let named = "channel \(channel)" + (rendition.map { " (\($0))" } ?? "")
            var runners: [SinkRunner] = []
            if let plan = disk {
                let sink = RecordingSink(
                    plan: plan, rendition: rendition, writesIndex: writesIndex, retention: retention, after: after,
                    destination: announces
                        ? named
                        : (rendition.map { plan.resolved.folder.appendingPathComponent($0) } ?? plan.resolved.folder)
                            .path,
                    announces: announces && writesIndex, report: report)
                runners.append(SinkRunner(sink))
            }
            if let cloud {
                let sink = RecordingSink(
                    plan: cloud.plan, rendition: rendition, writesIndex: writesIndex, retention: nil, after: after,
                    destination: cloud.address + (rendition.map { $0 + "/" } ?? ""), store: cloud.storage,
                    report: report)
                runners.append(SinkRunner(sink))
            }
            return runners
        }
    }
}
