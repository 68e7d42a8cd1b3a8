public import FoundationEssentials
public import HLSModel
import Runtime

/// A recording's MP4 (`--record-mp4`) as a recording's folder names it, and where its markers
/// fall in it. The `Packaging` module writes it (`RecordingExport.mp4`), with libav.
public enum RecordingExport {
    /// The MP4's name in the recording's folder.
    public static let fileName = "recording.mp4"
}

extension RecordingExport {
    /// Where each marker of a recording falls, in seconds from its start, its segments following
    /// each other with no gap (discontinuities closed up, as in the MP4).
    public static func places(of playlist: MediaPlaylist) -> [(marker: DateRange, seconds: Double)] {
        var places: [(marker: DateRange, seconds: Double)] = []
        var position = 0.0
        var markers = playlist.dateRanges[...]
        for segment in playlist.segments {
            let end = segment.programDateTime + Int64((segment.duration * 1000).rounded())
            while let marker = markers.first, marker.start < end {
                let into = min(max(0, Double(marker.start - segment.programDateTime) / 1000), segment.duration)
                places.append((marker, ((position + into) * 1000).rounded() / 1000))
                markers = markers.dropFirst()
            }
            position += segment.duration
        }
        return places
    }

    /// The recording's markers as chapters, in seconds of the MP4: each from its place to the
    /// next one's, the last to the end. Chapters cover the file from its start (an MP4's chapter
    /// track has no hole), so what comes before the first marker is a chapter "Start".
    public static func chapters(of playlist: MediaPlaylist) -> [(start: Double, end: Double, title: String)] {
        var starts = RecordingExport.places(of: playlist).map { (start: $0.seconds, title: $0.marker.title) }
        if let first = starts.first, first.start >= 0.5 { starts.insert((0, "Start"), at: 0) }
        let total = playlist.duration
        return starts.indices.map { index in
            (starts[index].start, index + 1 < starts.count ? starts[index + 1].start : total, starts[index].title)
        }
    }
}

/// The playlists an export reads: the largest picture's, the sound's when it is apart, and the
/// captions' cues when the recording has any.
public struct RecordingTracks {
    public struct Track {
        public var folder: URL
        public var playlist: MediaPlaylist
    }

    /// A recording's captions, read once: each file's cues (in its own media time) by its date-time.
    public struct Captions {
        public var files: [(programDateTime: Int64, cues: [Cue])]
        public var language: String
        public var name: String
    }

    public var picture: Track
    public var sound: Track?
    public var captions: Captions?

    public init(recording: URL) throws {
        func track(_ relative: String) throws -> Track {
            let path = recording.appendingPathComponent(relative)
            let bytes = try RegularFile.read(path.path, limit: 64 << 20)
            guard let playlist = MediaPlaylist.parse(String(decoding: bytes, as: UTF8.self)), !playlist.segments.isEmpty
            else { throw StoreFailure.content("\(path.path) is not a recording's playlist with segments") }
            return Track(folder: path.deletingLastPathComponent(), playlist: playlist)
        }
        let index = recording.appendingPathComponent(MediaFileName.multivariantPlaylist.description)
        guard let bytes = try? RegularFile.read(index.path, limit: 1 << 20),
            let multivariant = MultivariantPlaylist.parse(String(decoding: bytes, as: UTF8.self)),
            let largest = multivariant.variants.max(by: {
                ($0.width * $0.height, $0.bandwidth) < ($1.width * $1.height, $1.bandwidth)
            })
        else { throw StoreFailure.content("\(index.path) is missing or not a multivariant playlist") }
        picture = try track(largest.uri)
        sound = try largest.audioGroup.flatMap { group in multivariant.audio.first { $0.groupID == group } }.map {
            try track($0.uri)
        }
        // Captions that cannot be read (a playlist lost) or where none was said leave the MP4
        // without a text track: an empty one would be offered in players' menus.
        captions = largest.subtitlesGroup.flatMap { group in multivariant.subtitles.first { $0.groupID == group } }
            .flatMap { rendition in
                (try? track(rendition.uri)).map {
                    Self.captions(of: $0, language: rendition.language, name: rendition.name)
                }
            }
        if captions?.files.allSatisfy(\.cues.isEmpty) ?? false { captions = nil }
    }

    /// The cues of each file of a captions track; a file that cannot be read holds none.
    private static func captions(of track: Track, language: String, name: String) -> Captions {
        let files = track.playlist.segments.map { segment in
            let bytes = try? RegularFile.read(track.folder.appendingPathComponent(segment.uri).path, limit: 1 << 20)
            return (
                segment.programDateTime, bytes.map { WebVTTFile.cues(in: String(decoding: $0, as: UTF8.self)) } ?? []
            )
        }
        return Captions(files: files, language: language, name: name)
    }
}
