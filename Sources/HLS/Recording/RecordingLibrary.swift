public import FoundationEssentials
public import HLSModel
import Runtime
import Synchronization
#if canImport(Glibc)
    import Glibc
#endif

/// `--record-keep` / `--record-max-size`: how much of a channel's recordings to keep.
public struct RecordingRetention: Sendable, Equatable {
    public var root: URL
    public var channel: ChannelName
    public var keep: Int?
    public var maxBytes: Int?

    public init(root: URL, channel: ChannelName, keep: Int?, maxBytes: Int?) {
        self.root = root
        self.channel = channel
        self.keep = keep
        self.maxBytes = maxBytes
    }

    /// Removes the oldest recordings beyond the limits, never `sparing`; returns each removed
    /// with its size in bytes.
    public func apply(sparing: URL) -> [(folder: URL, bytes: Int)] {
        RecordingLibrary.prune(root: root, channel: channel, keep: keep, maxBytes: maxBytes, sparing: sparing)
    }
}

/// One recording as the server lists it (`GET /api/recordings`).
public struct RecordingEntry: Sendable, Equatable, Encodable {
    public var channel: String
    /// The folder's name: the start time, `2026-11-24T01-40-05Z`.
    public var name: String
    /// The start time in ISO 8601.
    public var startedAt: String
    /// The largest picture's length: the sum of its segments' durations.
    public var seconds: Double
    /// False while the broadcast runs (or when it was killed and not continued yet).
    public var ended: Bool
    /// The recording's multivariant playlist, and its MP4 when there is one, as server paths.
    public var playlist: String
    public var mp4: String?
    public var mp4Bytes: Int?
    /// Everything the recording's folder holds.
    public var bytes: Int
    /// Its markers (chapters), in order.
    public var markers: [Marker] = []

    /// A marker of a recording: its id, title and wall time, and where it is in the recording.
    public struct Marker: Sendable, Equatable, Encodable {
        public var id: String
        public var title: String
        public var start: String
        /// Seconds from the recording's start, as its playlist and its MP4 play.
        public var seconds: Double
    }
}

/// The recordings under a `--record` folder (`DIR/<channel>/<start time>/`): listed for the
/// server, and pruned oldest first for `--record-keep` / `--record-max-size`. Reads the disk:
/// never called on the live path or an event loop.
public enum RecordingLibrary {
    /// The file that marks a folder as a recording onair made: retention removes no other folder.
    public static let mark = ".onair-recording"

    /// Marks `folder` as a recording onair made, the only kind retention may remove.
    public static func markRecording(_ folder: URL) throws(StoreFailure) {
        guard !isPlainFile(folder.appendingPathComponent(mark)) else { return }
        try DiskStore(root: folder).put(mark, bytes: [])
    }

    /// One recording as listed; nil when the folder holds none (yet).
    static func entry(channel: ChannelName, folder: URL) -> RecordingEntry? {
        guard let tracks = try? RecordingTracks(recording: folder) else { return nil }
        let name = folder.lastPathComponent
        let base = "/recordings/\(channel)/\(name)/"
        let mp4 = fileSize(folder.appendingPathComponent(RecordingExport.fileName))
        return RecordingEntry(
            channel: channel.text, name: name, startedAt: startTime(of: name),
            seconds: (tracks.picture.playlist.segments.reduce(0) { $0 + $1.duration } * 1000).rounded() / 1000,
            ended: tracks.picture.playlist.ended,
            playlist: base + MediaFileName.multivariantPlaylist.description,
            mp4: mp4.map { _ in base + RecordingExport.fileName }, mp4Bytes: mp4, bytes: size(of: folder),
            markers: RecordingExport.places(of: tracks.picture.playlist).map { place in
                RecordingEntry.Marker(
                    id: place.marker.id, title: place.marker.title,
                    start: ProgramDateTime.format(milliseconds: place.marker.start), seconds: place.seconds)
            })
    }

    /// A channel's recording folders, oldest first.
    public static func recordings(of channel: ChannelName, in root: URL) -> [URL] {
        let folder = root.appendingPathComponent(channel.text)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        return names.filter(RecordingPlan.isStartTime).sorted().map { folder.appendingPathComponent($0) }
    }

    /// Removes `channel`'s oldest recordings, never `sparing` (the one being written), until at most
    /// `keep` are left and together they take at most `maxBytes`. Only folders onair marked as its
    /// recordings are counted and removed, and of them only the files onair writes: a folder left
    /// holding anything else stays, unmarked. Returns what it removed.
    @discardableResult
    static func prune(root: URL, channel: ChannelName, keep: Int?, maxBytes: Int?, sparing: URL) -> [(
        folder: URL, bytes: Int
    )] {
        var folders = recordings(of: channel, in: root).filter { isPlainFile($0.appendingPathComponent(mark)) }
        var sizes = folders.map(size(of:))
        var removed: [(folder: URL, bytes: Int)] = []
        while let oldest = folders.first, oldest.standardizedFileURL != sparing.standardizedFileURL,
            folders.count > (keep ?? .max) || sizes.reduce(0, +) > (maxBytes ?? .max)
        {
            removed.append((oldest, removeRecording(oldest)))
            folders.removeFirst()
            sizes.removeFirst()
        }
        return removed
    }

    /// Removes the files a recording's folder holds that onair wrote (playlists, init segments,
    /// segments, the MP4, their temporary files, in it and in its renditions' folders), then the
    /// mark, then each folder left empty. Returns the bytes removed.
    static func removeRecording(_ folder: URL) -> Int {
        func ours(_ name: String) -> Bool {
            let plain = name.hasPrefix(".") && name.hasSuffix(".tmp") ? String(name.dropFirst().dropLast(4)) : name
            return MediaFileName(plain) != nil || plain == RecordingExport.fileName
        }
        func clear(_ folder: URL) -> Int {
            var bytes = 0
            for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [] where ours(name) {
                let file = folder.appendingPathComponent(name)
                guard let size = fileSize(file), isPlainFile(file), unlink(file.path) == 0 else { continue }
                bytes += size
            }
            return bytes
        }
        var bytes = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        where LiveRequest.isRenditionName(name) {
            let rendition = folder.appendingPathComponent(name)
            guard isFolder(rendition) else { continue }
            bytes += clear(rendition)
            rmdir(rendition.path)
        }
        bytes += clear(folder)
        unlink(folder.appendingPathComponent(mark).path)
        rmdir(folder.path)
        return bytes
    }

    /// True for a folder itself, not a link to one.
    static func isFolder(_ url: URL) -> Bool {
        var status = stat()
        return lstat(url.path, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR
    }

    /// Whether a path under `/recordings/` names a file a recording holds: `<channel>/<start
    /// time>/[<rendition>/]<playlist, init, segment or the MP4>`. Nothing else is served.
    public static func isServable(_ components: [Substring]) -> Bool {
        guard components.count == 3 || components.count == 4,
            ChannelName(String(components[0])) != nil, RecordingPlan.isStartTime(String(components[1]))
        else { return false }
        let file = String(components[components.count - 1])
        if components.count == 4 {
            guard LiveRequest.isRenditionName(String(components[2])), file != RecordingExport.fileName else {
                return false
            }
        }
        if file == RecordingExport.fileName { return true }
        guard let name = MediaFileName(file) else { return false }
        if case .part = name { return false }
        return true
    }

    /// `2026-11-24T01-40-05Z` → `2026-11-24T01:40:05Z`.
    static func startTime(of name: String) -> String {
        let characters = Array(name)
        return String(characters[0..<13]) + ":" + String(characters[14..<16]) + ":" + String(characters[17...])
    }

    /// The size of a regular file itself (a symbolic link is not followed); nil for anything else.
    public static func fileSize(_ url: URL) -> Int? {
        var status = stat()
        guard lstat(url.path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int(status.st_size)
    }

    /// Bytes of the regular files under `folder`.
    static func size(of folder: URL) -> Int {
        let files = (try? FileManager.default.subpathsOfDirectory(atPath: folder.path)) ?? []
        return files.reduce(0) { $0 + (fileSize(folder.appendingPathComponent($1)) ?? 0) }
    }
}

/// The recordings under a `--record` folder as `GET /api/recordings` lists them, each read again
/// only when its folders changed: every file of a recording is written by a rename into its folder
/// (or a rendition's), which changes that folder's modification time, so a listing costs a look
/// at each folder, not a read of every playlist (20 recordings of 3,000 segments took 0.93 s each
/// time). Reads the disk: never called on an event loop.
public final class RecordingCatalog: Sendable {
    public let root: URL
    private let known = Mutex<[String: (stamp: [Int], entry: RecordingEntry?)]>([:])

    public init(root: URL) {
        self.root = root
    }

    /// Every recording, newest first.
    public func list() -> [RecordingEntry] {
        let channels = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        var entries: [RecordingEntry] = []
        var seen: [String: (stamp: [Int], entry: RecordingEntry?)] = [:]
        let before = known.withLock { $0 }
        for channel in channels.compactMap(ChannelName.init) {
            for folder in RecordingLibrary.recordings(of: channel, in: root) {
                let stamp = Self.stamp(of: folder)
                let entry: RecordingEntry?
                if let cached = before[folder.path], cached.stamp == stamp {
                    entry = cached.entry
                } else {
                    entry = RecordingLibrary.entry(channel: channel, folder: folder)
                }
                seen[folder.path] = (stamp, entry)
                if let entry { entries.append(entry) }
            }
        }
        known.withLock { $0 = seen }
        return entries.sorted { ($0.name, $0.channel) > ($1.name, $1.channel) }
    }

    /// The modification times (nanoseconds) of a recording's folder and of each folder in it.
    static func stamp(of folder: URL) -> [Int] {
        func modified(_ url: URL) -> Int? {
            var status = stat()
            guard lstat(url.path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return nil }
            return Int(status.st_mtim.tv_sec) * 1_000_000_000 + Int(status.st_mtim.tv_nsec)
        }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
        return [modified(folder) ?? 0] + names.compactMap { modified(folder.appendingPathComponent($0)) }
    }
}
