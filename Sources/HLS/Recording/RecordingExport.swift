import HLSModel
import Runtime
internal import CFFmpeg
public import Foundation
import Media

/// Remuxes a finished recording into one MP4 (`--record-mp4`): the largest rendition's picture
/// and the sound, packets copied as they are (no re-encode), with the index at the front
/// (faststart) so that it opens in any player or editor and plays while it downloads.
///
/// Each segment is read on its own (after its init segment for fMP4). A discontinuity (a
/// broadcast continued after a crash starts its clock again) is closed up: what follows it is
/// shifted to start where the recording had got to. The file is written beside the playlist
/// under a temporary name and renamed once complete, so there is never a partial MP4.
public enum RecordingExport {
    /// The MP4's name in the recording's folder.
    public static let fileName = "recording.mp4"

    public struct Summary: Sendable, Equatable {
        public var file: URL
        public var bytes: Int
        public var seconds: Double
        public var videoFrames: Int
    }

    /// Writes `<recording>/recording.mp4`; `progress` hears the share done (0...1) now and then.
    public static func mp4(recording: URL, progress: (Double) -> Void = { _ in }) throws -> Summary {
        let inputs = try RecordingTracks(recording: recording)
        let target = recording.appendingPathComponent(fileName)
        let temporary = recording.appendingPathComponent(".\(fileName).tmp")
        do {
            let summary = try withoutActuallyEscaping(progress) {
                try Remux(inputs: inputs, path: temporary.path, progress: $0).run()
            }
            guard rename(temporary.path, target.path) == 0 else {
                throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: target.path])
            }
            let bytes = RecordingLibrary.fileSize(target) ?? 0
            return Summary(file: target, bytes: bytes, seconds: summary.seconds, videoFrames: summary.frames)
        } catch {
            unlink(temporary.path)
            throw error
        }
    }
}

/// The playlists an export reads: the largest picture's, and the sound's when it is apart.
struct RecordingTracks {
    struct Track {
        var folder: URL
        var playlist: MediaPlaylist
    }

    var picture: Track
    var sound: Track?

    init(recording: URL) throws {
        func track(_ relative: String) throws -> Track {
            let path = recording.appendingPathComponent(relative)
            let bytes = try RegularFile.read(path.path, limit: 64 << 20)
            guard let playlist = MediaPlaylist.parse(String(decoding: bytes, as: UTF8.self)), !playlist.segments.isEmpty
            else { throw RecordingExportError("\(path.path) is not a recording's playlist with segments") }
            return Track(folder: path.deletingLastPathComponent(), playlist: playlist)
        }
        let index = recording.appendingPathComponent(MediaFileName.multivariantPlaylist.description)
        guard let bytes = try? RegularFile.read(index.path, limit: 1 << 20),
            let multivariant = MultivariantPlaylist.parse(String(decoding: bytes, as: UTF8.self)),
            let largest = multivariant.variants.max(by: {
                ($0.width * $0.height, $0.bandwidth) < ($1.width * $1.height, $1.bandwidth)
            })
        else { throw RecordingExportError("\(index.path) is missing or not a multivariant playlist") }
        picture = try track(largest.uri)
        sound = try largest.audioGroup.flatMap { group in multivariant.audio.first { $0.groupID == group } }.map {
            try track($0.uri)
        }
    }
}

struct RecordingExportError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// libav's AV_NOPTS_VALUE: no timestamp.
private let noTimestamp = Int64.min

/// One export's muxer and where each input stream goes in it.
private final class Remux {
    let inputs: RecordingTracks
    let path: String
    let progress: (Double) -> Void
    private var output: UnsafeMutablePointer<AVFormatContext>?
    /// Output stream by kind (video, audio), made from the first segment that has it.
    private var streams: [AVMediaType.RawValue: Int32] = [:]
    /// Where the recording has got to, in seconds (the end of the latest packet written).
    private var end = 0.0
    /// Added to every timestamp from the latest discontinuity on, in seconds.
    private var shift = 0.0
    private var frames = 0

    init(inputs: RecordingTracks, path: String, progress: @escaping (Double) -> Void) {
        self.inputs = inputs
        self.path = path
        self.progress = progress
    }

    deinit {
        if let output {
            if output.pointee.pb != nil { avio_closep(&output.pointee.pb) }
            avformat_free_context(output)
        }
    }

    /// Wraps `avformat_alloc_output_context2`, `avio_open`, `avformat_write_header`,
    /// `av_interleaved_write_frame` and `av_write_trailer`.
    func run() throws -> (seconds: Double, frames: Int) {
        try check(avformat_alloc_output_context2(&output, nil, "mp4", path), "avformat_alloc_output_context2")
        try openOutput()
        let pictures = inputs.picture.playlist.segments
        let sounds = inputs.sound?.playlist.segments ?? []
        let count = max(pictures.count, sounds.count)
        var lastReport = -1.0
        for number in 0..<count {
            // A discontinuity: the next run's clock starts again; it goes on where this one ended.
            let starts = number < pictures.count && pictures[number].discontinuity
            var first: Double?
            if number < pictures.count {
                first = try copy(pictures[number], of: inputs.picture, closingUp: starts, first: nil)
            }
            if let sound = inputs.sound, number < sounds.count {
                _ = try copy(sounds[number], of: sound, closingUp: starts, first: first)
            }
            let done = Double(number + 1) / Double(count)
            if done - lastReport >= 0.1 || number == count - 1 {
                progress(done)
                lastReport = done
            }
        }
        guard let output else { throw RecordingExportError("the recording holds no media") }
        try check(av_interleaved_write_frame(output, nil), "av_interleaved_write_frame")
        try check(av_write_trailer(output), "av_write_trailer")
        try check(avio_closep(&output.pointee.pb), "avio_closep")
        return (end, frames)
    }

    /// Copies one segment's packets; with `closingUp`, first moves the shift so that the segment
    /// starts at the recording's end (or where the picture's segment started: `first`, the shift
    /// the picture took, so that the sound stays with it). Returns the segment's shift.
    private func copy(
        _ segment: MediaPlaylist.Segment, of track: RecordingTracks.Track, closingUp: Bool, first: Double?
    ) throws -> Double {
        let url = Self.address(of: segment, in: track)
        var input: UnsafeMutablePointer<AVFormatContext>?
        try check(avformat_open_input(&input, url, nil, nil), "avformat_open_input(\(segment.uri))")
        defer { avformat_close_input(&input) }
        try check(avformat_find_stream_info(input, nil), "avformat_find_stream_info(\(segment.uri))")
        let packet = try LibavAllocation(av_packet_alloc(), "av_packet_alloc") { av_packet_free(&$0) }
        var shifted = false
        if let first { shift = first }
        while av_read_frame(input, packet.pointer) >= 0 {
            defer { av_packet_unref(packet.pointer) }
            let stream = input!.pointee.streams[Int(packet.pointer.pointee.stream_index)]!
            let kind = stream.pointee.codecpar.pointee.codec_type
            guard kind == AVMEDIA_TYPE_VIDEO || kind == AVMEDIA_TYPE_AUDIO else { continue }
            // The picture comes from the picture's track only, the sound from the sound's when apart.
            if inputs.sound != nil, (kind == AVMEDIA_TYPE_AUDIO) != (track.folder == inputs.sound!.folder) { continue }
            let index = try outputStream(kind: kind, like: stream)
            let base = stream.pointee.time_base
            let dts = packet.pointer.pointee.dts
            let time = Double(dts == noTimestamp ? packet.pointer.pointee.pts : dts) * av_q2d(base)
            if closingUp, first == nil, !shifted {
                shift = end - time
                shifted = true
            }
            let offset = Int64((shift / av_q2d(base)).rounded())
            if packet.pointer.pointee.pts != noTimestamp { packet.pointer.pointee.pts += offset }
            if packet.pointer.pointee.dts != noTimestamp { packet.pointer.pointee.dts += offset }
            let duration = Double(packet.pointer.pointee.duration) * av_q2d(base)
            end = max(end, time + shift + duration)
            if kind == AVMEDIA_TYPE_VIDEO { frames += 1 }
            packet.pointer.pointee.stream_index = index
            packet.pointer.pointee.pos = -1
            av_packet_rescale_ts(packet.pointer, base, output!.pointee.streams[Int(index)]!.pointee.time_base)
            try check(av_interleaved_write_frame(output, packet.pointer), "av_interleaved_write_frame")
        }
        return shift
    }

    /// The output stream for `kind`, made in `openOutput`.
    private func outputStream(kind: AVMediaType, like stream: UnsafeMutablePointer<AVStream>) throws -> Int32 {
        guard let index = streams[kind.rawValue] else {
            throw RecordingExportError("a stream appears after the recording's start")
        }
        return index
    }

    /// Makes the output streams like the first segment's (the picture's, and the sound's when
    /// apart), then opens the file and writes the header. Wraps `avformat_new_stream`, `avio_open`
    /// and `avformat_write_header`.
    private func openOutput() throws {
        var tracks = [(inputs.picture, [AVMEDIA_TYPE_VIDEO] + (inputs.sound == nil ? [AVMEDIA_TYPE_AUDIO] : []))]
        if let sound = inputs.sound { tracks.append((sound, [AVMEDIA_TYPE_AUDIO])) }
        for (track, kinds) in tracks {
            var input: UnsafeMutablePointer<AVFormatContext>?
            let segment = track.playlist.segments[0]
            try check(
                avformat_open_input(&input, Self.address(of: segment, in: track), nil, nil), "avformat_open_input")
            defer { avformat_close_input(&input) }
            try check(avformat_find_stream_info(input, nil), "avformat_find_stream_info")
            for number in 0..<Int(input!.pointee.nb_streams) {
                let stream = input!.pointee.streams[number]!
                let kind = stream.pointee.codecpar.pointee.codec_type
                guard kinds.contains(kind), streams[kind.rawValue] == nil else { continue }
                let created = try checkAllocation(avformat_new_stream(output, nil), "avformat_new_stream")
                try check(
                    avcodec_parameters_copy(created.pointee.codecpar, stream.pointee.codecpar),
                    "avcodec_parameters_copy")
                created.pointee.codecpar.pointee.codec_tag = 0
                created.pointee.time_base = stream.pointee.time_base
                streams[kind.rawValue] = created.pointee.index
            }
        }
        guard streams[AVMEDIA_TYPE_VIDEO.rawValue] != nil else {
            throw RecordingExportError("the recording has no picture")
        }
        try check(avio_open(&output!.pointee.pb, path, AVIO_FLAG_WRITE), "avio_open(\(path))")
        var options: OpaquePointer?
        defer { av_dict_free(&options) }
        av_dict_set(&options, "movflags", "+faststart", 0)
        try check(avformat_write_header(output, &options), "avformat_write_header")
    }

    /// What libavformat opens for a segment: after its init segment, for fMP4.
    static func address(of segment: MediaPlaylist.Segment, in track: RecordingTracks.Track) -> String {
        let path = track.folder.appendingPathComponent(segment.uri).path
        guard let map = segment.map else { return path }
        return "concat:" + track.folder.appendingPathComponent(map).path + "|" + path
    }
}
