public import FoundationEssentials
public import HLSModel
import Runtime

/// Where a broadcast is recorded: `DIR/<channel>/<start, UTC>/`, a new folder for each broadcast, or
/// the newest one when the broadcast before it did not end (its playlists have no EXT-X-ENDLIST:
/// the process was killed) and holds the same container, which this one continues. Only a folder
/// onair made (marked ``RecordingLibrary/mark``) is continued: someone's own HLS under a name like
/// a start time is never written into, nor marked, so retention never removes it. A new folder
/// never reuses a name: a broadcast started within the second of another's start takes the next second.
public struct RecordingPlan: Sendable {
    public var folder: URL
    /// Each rendition's playlist to go on from (by rendition folder, nil for one rendition); empty
    /// for a new recording.
    public var continuing: [String?: MediaPlaylist]

    public init(folder: URL, continuing: [String?: MediaPlaylist]) {
        self.folder = folder
        self.continuing = continuing
    }

    /// `renditions`: the rendition folders (nil for one rendition); `startedAt`: wall milliseconds.
    public static func plan(
        root: URL, channel: ChannelName, renditions: [String?], format: ContainerFormat, startedAt: Int64
    ) -> RecordingPlan {
        let channelFolder = root.appendingPathComponent(channel.text)
        let names =
            (try? FileManager.default.contentsOfDirectory(atPath: channelFolder.path))?
            .filter { isStartTime($0) }.sorted() ?? []
        if let newest = names.last,
            case let folder = channelFolder.appendingPathComponent(newest),
            isPlainFile(folder.appendingPathComponent(RecordingLibrary.mark))
        {
            var continuing: [String?: MediaPlaylist] = [:]
            for rendition in renditions {
                let playlistFolder = rendition.map { folder.appendingPathComponent($0) } ?? folder
                let path = playlistFolder.appendingPathComponent(MediaFileName.mediaPlaylist.description)
                guard isPlainFile(path), let bytes = try? RegularFile.read(path.path, limit: 16 << 20),
                    let playlist = MediaPlaylist.parse(String(decoding: bytes, as: UTF8.self)), !playlist.ended,
                    playlist.segments.allSatisfy({ MediaFileName($0.uri)?.format == format })
                else { break }
                continuing[rendition] = playlist
            }
            if continuing.count == renditions.count { return RecordingPlan(folder: folder, continuing: continuing) }
        }
        var start = startedAt
        while names.contains(folderName(startedAt: start)) { start += 1000 }
        return RecordingPlan(
            folder: channelFolder.appendingPathComponent(folderName(startedAt: start)), continuing: [:])
    }

    /// `2026-11-24T01-40-05Z`: sortable, readable, and a plain file name everywhere.
    public static func folderName(startedAt milliseconds: Int64) -> String {
        let stamp = ProgramDateTime.format(milliseconds: milliseconds)  // 2026-11-24T01:40:05.123Z
        return String(stamp.prefix(19)).replacing(":", with: "-") + "Z"
    }

    public static func isStartTime(_ name: String) -> Bool {
        name.utf8.count == 20 && name.hasSuffix("Z")
            && name.utf8.enumerated().allSatisfy { index, byte in
                switch index {
                case 4, 7, 13, 16: byte == UInt8(ascii: "-")
                case 10: byte == UInt8(ascii: "T")
                case 19: byte == UInt8(ascii: "Z")
                default: (48...57).contains(byte)
                }
            }
    }
}
