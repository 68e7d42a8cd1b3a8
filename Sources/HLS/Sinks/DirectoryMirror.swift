public import FoundationEssentials
public import HLSModel
public import Runtime
#if canImport(Glibc)
    import Glibc
#endif

/// Mirrors a channel to DIR/live/<channel>/ for nginx, a CDN origin or a recording.
///
/// Each publication brings the folder up to that publication's timeline in one idempotent step:
/// the media files it lists that are not there yet (init segments, then segments, oldest first),
/// then the playlists that name them, then the removal of what the timeline no longer holds. So
/// the same step serves every case: the next segment, a sink that fell behind and skips to the
/// newest state, and a folder that can be written again after a full disk. Every file is written
/// to a temporary name and renamed into place, so a reader never sees a partial segment or
/// playlist, and the playlist never names a file that is not there.
///
/// It removes only what it can prove it wrote: files it wrote in this run, and the files an
/// earlier run's playlist names under exactly the names this program writes, as plain files.
/// Failures, recoveries and segments skipped while behind are each said once per episode.
public final class DirectoryMirror: PublicationSink {
    /// Where the rendition's files go: the channel's folder, or a rendition's folder in it.
    public let folder: URL
    public var destination: String { folder.path }
    /// The rendition's folder, and where the multivariant playlist goes (the channel's folder); nil
    /// when another rendition's mirror writes it.
    private let store: DiskStore
    private let indexStore: DiskStore?
    private let report: EventReporter
    /// What this folder holds that this program wrote, and what it needs next: the plan every live
    /// mirror of a channel follows (whole segments only: a folder is read by players that poll).
    private var plan = DestinationPlan(sendsParts: false)
    /// The newest segment written: a segment between it and the first one still listed was skipped.
    private var newestWritten: Int?
    private var failing = false
    private var skippedSegments = 0
    /// The folder has been made.
    private var made = false

    /// A mirror of the channel's folder, made on its runner's thread with the first publication (a
    /// slow disk never holds up the start). `earlier`: what ``previousRun(root:channel:)`` read there,
    /// the same run the timeline continues; the files it found (named by its playlist, under this
    /// program's names, as plain files) are this mirror's to remove once the timeline no longer holds them.
    ///
    /// `rendition`: for a channel published in several, the folder of the one this mirror writes;
    /// `writesIndex`: this one writes the channel's multivariant playlist (the largest rendition's does).
    public init(
        root: URL, channel: ChannelName, rendition: String? = nil, writesIndex: Bool = true,
        earlier: Timeline.PreviousRun? = nil, report: @escaping EventReporter
    ) {
        folder = Self.folder(root: root, channel: channel, rendition: rendition)
        store = DiskStore(root: folder)
        indexStore = writesIndex ? DiskStore(root: Self.folder(root: root, channel: channel)) : nil
        self.report = report
        plan.stored = Set(earlier?.files.keys.compactMap(MediaFileName.init) ?? [])
    }

    /// Creates the channel's folder and checks it can be written: before a broadcast starts, so a
    /// folder that cannot be used is one line at the command, not an event later.
    public static func checkWritable(root: URL, channel: ChannelName) throws {
        let folder = folder(root: root, channel: channel)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let probe = folder.appendingPathComponent(".onair-write-test")
        try Data().write(to: probe)
        try FileManager.default.removeItem(at: probe)
    }

    static func folder(root: URL, channel: ChannelName, rendition: String? = nil) -> URL {
        let channelFolder = root.appendingPathComponent("live").appendingPathComponent(channel.text)
        return rendition.map { channelFolder.appendingPathComponent($0) } ?? channelFolder
    }

    /// What an earlier run left in the channel's (or its rendition's) folder, if its playlist is
    /// there and readable.
    public static func previousRun(root: URL, channel: ChannelName, rendition: String? = nil) -> Timeline.PreviousRun? {
        let folder = folder(root: root, channel: channel, rendition: rendition)
        guard let playlist = readPlaylist(in: folder) else { return nil }
        var files: [String: [UInt8]] = [:]
        for name in named(by: playlist) {
            let path = folder.appendingPathComponent(name.description)
            // A file too large to be one of ours is left as it is, as a missing one would be.
            if isPlainFile(path), let bytes = try? RegularFile.read(path.path, limit: 64 << 20) {
                files[name.description] = bytes
            }
        }
        return Timeline.PreviousRun(playlist: playlist, files: files)
    }

    private static func readPlaylist(in folder: URL) -> MediaPlaylist? {
        let path = folder.appendingPathComponent(MediaFileName.mediaPlaylist.description)
        guard isPlainFile(path), let bytes = try? RegularFile.read(path.path, limit: 4 << 20) else { return nil }
        return MediaPlaylist.parse(String(decoding: bytes, as: UTF8.self))
    }

    /// The media files a playlist names under names this program writes.
    private static func named(by playlist: MediaPlaylist) -> Set<MediaFileName> {
        let uris = playlist.segments.flatMap { [$0.uri] + ($0.map.map { [$0] } ?? []) }
        return Set(uris.compactMap(MediaFileName.init).filter { !$0.isPlaylist })
    }

    public func receive(_ publication: Publication, backlog: SinkBacklog) {
        let timeline = publication.timeline
        if newestWritten == nil { newestWritten = timeline.firstSequence - 1 }
        do {
            if failing {
                // What failed may have been lost with the folder: trust only what is there.
                plan.stored = plan.stored.filter { isPlainFile(folder.appendingPathComponent($0.description)) }
                plan.playlists.removeAll()
            }
            if !made {
                try store.makeFolder()
                made = true
            }
            let skipped = try synchronize(with: timeline, ladder: publication.ladder)
            if failing {
                // Segments missed while failing are the failure's, said already.
                failing = false
                report(.diskWriteRecovered, "\(folder.path) can be written again: it is up to date")
            } else {
                noteSkipped(skipped, backlog: backlog)
            }
        } catch {
            if !failing {
                report(
                    .diskWriteFailed,
                    "writing to \(folder.path) failed (\(error)): the stream goes on from memory, "
                        + "and the folder is brought up to date once it can be written")
            }
            failing = true
        }
    }

    /// Says once when the folder fell so far behind that segments left the playlist unwritten, and
    /// once when it has caught up.
    private func noteSkipped(_ skipped: Int, backlog: SinkBacklog) {
        if skipped > 0 {
            if skippedSegments == 0 {
                report(
                    .diskWriteBehind,
                    "\(folder.path) is too slow to keep up: \(skipped) segment\(skipped == 1 ? "" : "s") left the "
                        + "playlist before \(skipped == 1 ? "it" : "they") could be written (its playlist names only "
                        + "what it holds; viewers of the built-in server are not affected)")
            }
            skippedSegments += skipped
        } else if skippedSegments > 0, backlog.waiting == 0, backlog.skipped == 0 {
            report(
                .diskWriteCaughtUp,
                "\(folder.path) has caught up: \(skippedSegments) segment\(skippedSegments == 1 ? " was" : "s were") "
                    + "skipped in all")
            skippedSegments = 0
        }
    }

    /// Brings the folder up to `timeline`; returns how many segments left the playlist before they
    /// could be written.
    private func synchronize(with timeline: Timeline, ladder: LadderView?) throws -> Int {
        var skipped = 0
        for name in plan.missing(in: timeline) {
            guard let bytes = timeline.bytes(of: name) else { continue }
            try store.put(name.description, bytes: bytes)
            plan.stored.insert(name)
            guard case .segment(let sequence, _) = name else { continue }
            if let newest = newestWritten, sequence > newest + 1, sequence >= timeline.firstSequence {
                skipped += sequence - max(newest + 1, timeline.firstSequence)
            }
            newestWritten = max(newestWritten ?? sequence, sequence)
        }
        // No playlist before there is a segment to name.
        if timeline.segments.contains(where: \.isListed) || timeline.ended {
            let playlist = plan.playlist(for: timeline)
            try writePlaylist(Array(playlist.render().utf8), as: .mediaPlaylist, in: store)
            if timeline.hasIFrames {
                try writePlaylist(Array(playlist.iFramePlaylist().render().utf8), as: .iFramePlaylist, in: store)
            }
            if let indexStore, ladder?.isComplete ?? true {
                let index = ladder?.multivariantPlaylist ?? MultivariantPlaylist(renditions: [timeline])
                try writePlaylist(Array(index.render().utf8), as: .multivariantPlaylist, in: indexStore)
            }
        }
        for name in plan.removable(in: timeline) where (try? store.delete(name.description)) != nil {
            plan.stored.remove(name)
        }
        return skipped
    }

    private func writePlaylist(_ bytes: [UInt8], as name: MediaFileName, in store: DiskStore) throws(StoreFailure) {
        guard plan.playlists[name] != bytes else { return }
        try store.put(name.description, bytes: bytes)
        plan.playlists[name] = bytes
    }
}

/// True for a regular file, not a link to one, a folder, a device or a FIFO.
func isPlainFile(_ url: URL) -> Bool {
    var status = stat()
    return lstat(url.path, &status) == 0 && status.st_mode & S_IFMT == S_IFREG
}
