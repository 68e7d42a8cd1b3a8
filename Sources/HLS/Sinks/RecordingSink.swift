public import FoundationEssentials
public import HLSModel
public import Runtime
import Synchronization

/// Keeps the whole broadcast (`--record DIR`): every segment of one rendition, written into the
/// recording's folder as it is listed, under the recording's own numbers, with a playlist that
/// lists all of them: `EXT-X-PLAYLIST-TYPE:EVENT` while the broadcast runs, `VOD` with
/// `EXT-X-ENDLIST` once it has ended. Files are written atomically, segments before the playlist
/// that names them, so the folder is a valid HLS recording at every moment, a SIGKILL included.
///
/// It holds no media: each segment is read from the live timeline while that still has it, so
/// memory stays bounded however long the broadcast. A recording continued after a crash goes on
/// after an EXT-X-DISCONTINUITY with an init segment of its own (`init<N>.mp4`). A folder that
/// cannot be written is said once (`record_failed`) and retried with every publication; segments
/// the live timeline let go meanwhile are missing from the recording, after a discontinuity.
public final class RecordingSink: PublicationSink {
    public let destination: String
    private let report: EventReporter
    private let plan: RecordingDestination
    /// Rooted where the plan's folders are: `/` on disk, the bucket's prefix in object storage.
    private let store: any FileStore
    private let rendition: String?
    private let writesIndex: Bool
    private let announces: Bool
    // Used by the runner's thread only.
    /// The rendition's folder in the recording, and the recording's folder for the rendition that
    /// writes its multivariant playlist; nil until the recording is planned and its folder made.
    private var folder: URL?
    private var indexFolder: URL?
    private var recording: URL?
    private var playlist: GrowingPlaylist?
    /// The playlist a crashed run left, which this one goes on from.
    private var continuing: MediaPlaylist?
    /// The recording's number for its next segment.
    private var nextNumber = 0
    /// The live timeline's number of the newest segment recorded.
    private var lastRecorded: Int?
    /// The live init segment in use, and its name in the recording.
    private var liveInit: MediaFileName?
    private var recordedInit: String?
    /// The next segment follows something other than the one before it (a restart, a loss).
    private var discontinuity = false
    private var failing = false
    private var lastIndex: [UInt8] = []
    /// Older recordings to prune as this one grows (the sink that writes the index only).
    private let retention: RecordingRetention?
    /// Segments written since retention was last applied.
    private var sincePruned = Int.max

    /// `recording`: the recording's folder; `rendition`: this rendition's folder in it, for a
    /// ladder; `continuing`: the playlist a crashed run left there, which this one goes on from;
    /// `sequence`: the live timeline's last segment before this recording (an origin's channel
    /// whose publisher came back goes on in the same timeline); nil: this broadcast's first.
    public convenience init(
        recording: URL, rendition: String? = nil, writesIndex: Bool = true, continuing: MediaPlaylist? = nil,
        retention: RecordingRetention? = nil, after sequence: Int? = nil, report: @escaping EventReporter
    ) throws {
        let folder = rendition.map { recording.appendingPathComponent($0) } ?? recording
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        self.init(
            plan: RecordingDestination(
                RecordingPlan(folder: recording, continuing: continuing.map { [rendition: $0] } ?? [:])),
            rendition: rendition, writesIndex: writesIndex, retention: retention, after: sequence,
            destination: folder.path, report: report)
    }

    /// A recording planned by `plan` when its first publication comes, on the runner's thread
    /// (planning reads the disk), shared by the recording's renditions.
    /// `announces`: says where the recording goes (`record_started`) once it is planned.
    public init(
        plan: RecordingDestination, rendition: String?, writesIndex: Bool, retention: RecordingRetention?,
        after sequence: Int?, destination: String, announces: Bool = false,
        store: any FileStore = DiskStore(root: URL(fileURLWithPath: "/")), report: @escaping EventReporter
    ) {
        self.store = store
        self.announces = announces
        self.plan = plan
        self.rendition = rendition
        self.writesIndex = writesIndex
        self.retention = writesIndex ? retention : nil
        lastRecorded = sequence
        self.destination = destination
        self.report = report
    }

    /// The rendition's folder, made on first use, with where a crashed run left the recording.
    private func prepare() throws -> URL {
        if let folder { return folder }
        let planned = plan.resolved
        let made = rendition.map { planned.folder.appendingPathComponent($0) } ?? planned.folder
        if store is DiskStore {
            // On disk, the folder is there from the start, marked as a recording for retention;
            // object storage has no folders to make, and keeps no mark.
            try FileManager.default.createDirectory(at: made, withIntermediateDirectories: true)
            try RecordingLibrary.markRecording(planned.folder)
        }
        let continuing = planned.continuing[rendition] ?? nil
        self.continuing = continuing
        nextNumber = continuing.map(Self.nextNumber(after:)) ?? 0
        recordedInit = continuing?.segments.last?.map ?? continuing?.initSegmentURI
        discontinuity = continuing.map { !$0.segments.isEmpty } ?? false
        recording = planned.folder
        indexFolder = writesIndex ? planned.folder : nil
        folder = made
        if announces { report(.recordStarted, "recording \(destination) to \(planned.folder.path)") }
        return made
    }

    /// Where the recording is, for messages: its folder on disk, or where it is sent.
    private var place: String {
        store is DiskStore ? folder?.path ?? destination : destination
    }

    /// The number after the highest segment a recording's playlist names.
    static func nextNumber(after playlist: MediaPlaylist) -> Int {
        let numbers = playlist.segments.compactMap { segment -> Int? in
            if case .segment(let number, _) = MediaFileName(segment.uri) { number } else { nil }
        }
        return (numbers.max() ?? -1) + 1
    }

    public func receive(_ publication: Publication, backlog: SinkBacklog) {
        do {
            let before = nextNumber
            let folder = try prepare()
            try record(publication, in: folder)
            sincePruned = sincePruned == .max ? .max : sincePruned + nextNumber - before
            prune()
            if failing {
                failing = false
                report(.recordRecovered, "the recording in \(place) can be written again")
            }
        } catch {
            if !failing {
                report(
                    .recordFailed,
                    "the recording in \(place) cannot be written (\(error)): the live stream goes on, "
                        + "and the recording goes on once it can be written")
            }
            failing = true
        }
    }

    /// Applies the retention at the start and every 15 segments after (a walk of the folders).
    private func prune() {
        guard let retention, let recording, sincePruned >= 15 else { return }
        sincePruned = 0
        for (folder, bytes) in retention.apply(sparing: recording) {
            let megabytes = String(fixed: Double(bytes) / 1e6, decimals: 1)
            let limits = [
                retention.keep.map { "--record-keep \($0)" },
                retention.maxBytes.map { "--record-max-size \($0)" },
            ].compactMap { $0 }.joined(separator: ", ")
            report(.recordingRemoved, "removed the recording \(folder.path) (\(megabytes) MB) to keep to \(limits)")
        }
    }

    private func record(_ publication: Publication, in folder: URL) throws {
        let timeline = publication.timeline
        let format = timeline.configuration.format
        // Taken out while it changes, so appending never copies it; put back whatever happens.
        var playlist =
            self.playlist
            ?? GrowingPlaylist(
                head: continuing ?? MediaPlaylist(version: format.playlistVersion, targetDuration: 1), format: format)
        var changed = self.playlist == nil
        self.playlist = nil
        defer { self.playlist = playlist }
        playlist.head.targetDuration = max(playlist.head.targetDuration, timeline.configuration.targetDuration)
        // This broadcast's segments only: an earlier run's that the live playlist still lists are not its.
        if lastRecorded == nil { lastRecorded = timeline.continuation.firstSequence - 1 }
        for segment in timeline.segments where segment.sequence > lastRecorded! && !segment.gap {
            // Segments the live timeline let go before they could be written are not in the recording.
            if let lastRecorded, segment.sequence > lastRecorded + 1 { discontinuity = true }
            var map: String?
            if let initName = segment.initSegment {
                if initName != liveInit {
                    guard let bytes = timeline.initSegments[initName] else { continue }
                    let name = MediaFileName.initSegment(continuing: nextNumber == 0 ? nil : nextNumber).description
                    try write(bytes, as: name, in: folder)
                    liveInit = initName
                    recordedInit = name
                }
                map = recordedInit
            }
            try write(segment.bytes, as: MediaFileName.segment(nextNumber, format).description, in: folder)
            playlist.append(
                number: nextNumber, duration: segment.duration, programDateTime: segment.programDateTime,
                discontinuity: playlist.count > 0 && (discontinuity || segment.discontinuity), map: map,
                iFrame: segment.iFrame)
            discontinuity = false
            nextNumber += 1
            lastRecorded = segment.sequence
            changed = true
        }
        // Markers of the recorded segments, kept for good (a recording is a VOD with its chapters).
        let recordedFrom = playlist.firstProgramDateTime ?? .max
        if playlist.head.dateRanges.merge(timeline.dateRanges, where: { $0.start >= recordedFrom }) { changed = true }
        if timeline.ended, !playlist.head.ended {
            playlist.head.ended = true
            changed = true
        }
        playlist.head.playlistType = playlist.head.ended ? .vod : .event
        guard changed, playlist.count > 0 else { return }
        // Written a piece at a time: on disk, the text of a show of hours is never whole in memory.
        try store.put(Self.path(of: MediaFileName.mediaPlaylist.description, in: folder), timeout: 15) {
            emit throws(StoreFailure) in try playlist.render(emit)
        }
        if timeline.hasIFrames {
            try store.put(Self.path(of: MediaFileName.iFramePlaylist.description, in: folder), timeout: 15) {
                emit throws(StoreFailure) in try playlist.render(iFrames: true, emit)
            }
        }
        if let indexFolder, publication.ladder?.isComplete ?? true {
            let index = Array(
                (publication.ladder?.multivariantPlaylist ?? MultivariantPlaylist(renditions: [timeline])).render()
                    .utf8)
            if index != lastIndex {
                try write(index, as: MediaFileName.multivariantPlaylist.description, in: indexFolder)
                lastIndex = index
            }
        }
    }

    /// Writes `name` in `folder` (a folder of the plan) through the store, whole or not at all.
    private func write(_ bytes: [UInt8], as name: String, in folder: URL) throws(StoreFailure) {
        try store.put(Self.path(of: name, in: folder), bytes: bytes, timeout: 15)
    }

    /// The path of `name` in a folder of the plan, below the store's root: on disk the folder's own
    /// path, in a bucket its key under the prefix (`demo/2026-11-24T07-05-09Z/720p/seg3.m4s`).
    static func path(of name: String, in folder: URL) -> String {
        (folder.path.split(separator: "/").map(String.init) + [name]).joined(separator: "/")
    }
}

/// Where a recording goes: planned once, by whichever of its renditions' sinks needs it first.
public final class RecordingDestination: Sendable {
    private let planned: Mutex<RecordingPlan?>
    private let make: @Sendable () -> RecordingPlan

    /// Already planned (a broadcast plans before it starts).
    public init(_ plan: RecordingPlan) {
        planned = Mutex(plan)
        make = { plan }
    }

    /// Planned on first use, off the caller's thread (an origin's ingest never waits on the disk).
    public init(planning make: @escaping @Sendable () -> RecordingPlan) {
        planned = Mutex(nil)
        self.make = make
    }

    public var resolved: RecordingPlan {
        planned.withLock { plan in
            if plan == nil { plan = make() }
            return plan!
        }
    }
}
