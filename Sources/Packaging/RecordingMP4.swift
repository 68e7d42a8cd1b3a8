public import FoundationEssentials
public import HLS
import HLSModel
import Media
import Runtime
#if canImport(Glibc)
    import Glibc
#endif

/// Remuxes a finished recording into one MP4 (`--record-mp4`): the largest rendition's picture
/// and the sound, packets copied as they are (no re-encode), with the index at the front
/// (faststart) so that it opens in any player or editor and plays while it downloads.
///
/// Each segment is read on its own (after its init segment for fMP4). A discontinuity (a
/// broadcast continued after a crash starts its clock again) is closed up: what follows it is
/// shifted to start where the recording had got to. The file is written beside the playlist
/// under a temporary name and renamed once complete, so there is never a partial MP4.
extension RecordingExport {
    public struct Summary: Sendable, Equatable {
        public var file: URL
        public var bytes: Int
        public var seconds: Double
        public var videoFrames: Int
    }

    /// Writes `<recording>/recording.mp4`; `progress` hears the share done (0...1) now and then.
    /// An export that fails removes the MP4 an earlier one left: it would be listed as the
    /// recording's, and lack what was recorded since (a run continued after a crash).
    public static func mp4(recording: URL, progress: (Double) -> Void = { _ in }) throws -> Summary {
        let target = recording.appendingPathComponent(fileName)
        let temporary = recording.appendingPathComponent(".\(fileName).tmp")
        do {
            let inputs = try RecordingTracks(recording: recording)
            let summary = try withoutActuallyEscaping(progress) {
                try Remux(inputs: inputs, path: temporary.path, progress: $0).run()
            }
            guard rename(temporary.path, target.path) == 0 else {
                throw FileFailure(path: target.path, errorNumber: errno)
            }
            let bytes = RecordingLibrary.fileSize(target) ?? 0
            return Summary(file: target, bytes: bytes, seconds: summary.seconds, videoFrames: summary.frames)
        } catch {
            unlink(temporary.path)
            unlink(target.path)
            throw error
        }
    }
}

/// One export's muxer and where each kind of input goes in it.
private final class Remux {
    let inputs: RecordingTracks
    let path: String
    let progress: (Double) -> Void
    /// Output stream by kind, made from the first segment that has it.
    private var streams: [MediaKind: Muxer.Stream] = [:]
    /// Where the recording has got to, in seconds (the end of the latest packet written).
    private var end = 0.0
    /// Added to every timestamp from the latest discontinuity on, in seconds.
    private var shift = 0.0
    private var frames = 0
    /// The shift each picture segment took, by its number: its captions take the same.
    private var shifts: [Double] = []
    private var text: (encoder: TimedTextEncoder, stream: Muxer.Stream)?

    init(inputs: RecordingTracks, path: String, progress: @escaping (Double) -> Void) {
        self.inputs = inputs
        self.path = path
        self.progress = progress
    }

    func run() throws -> (seconds: Double, frames: Int) {
        let output = try openOutput()
        let pictures = inputs.picture.playlist.segments
        let sounds = inputs.sound?.playlist.segments ?? []
        let count = max(pictures.count, sounds.count)
        var lastReport = -1.0
        for number in 0..<count {
            // A discontinuity: the next run's clock starts again; it goes on where this one ended.
            let starts = number < pictures.count && pictures[number].discontinuity
            var first: Double?
            if number < pictures.count {
                first = try copy(pictures[number], of: inputs.picture, into: output, closingUp: starts, first: nil)
                shifts.append(shift)
            }
            if let sound = inputs.sound, number < sounds.count {
                _ = try copy(sounds[number], of: sound, into: output, closingUp: starts, first: first)
            }
            let done = Double(number + 1) / Double(count)
            if done - lastReport >= 0.1 || number == count - 1 {
                progress(done)
                lastReport = done
            }
        }
        try writeCaptions(into: output)
        try output.finish()
        return (end, frames)
    }

    /// Writes the captions' samples, their times moved as the picture segment each caption file
    /// belongs to (the one that starts with it, by the clock) was.
    private func writeCaptions(into output: Muxer) throws {
        guard let captions = inputs.captions, let text else { return }
        let pictures = inputs.picture.playlist.segments
        var cues: [Cue] = []
        var number = 0
        for file in captions.files where !shifts.isEmpty {
            while number + 1 < shifts.count, pictures[number + 1].programDateTime <= file.programDateTime + 100 {
                number += 1
            }
            cues += file.cues.map {
                Cue(start: $0.start + shifts[number], end: $0.end + shifts[number], text: $0.text)
            }
        }
        // The track counts in milliseconds: a sample starts no earlier than the one before it ended
        // (two runs' shifts may differ by less), and one shorter than that is none.
        let milliseconds = { (seconds: Double) in Int64((max(0, min(seconds, self.end)) * 1000).rounded()) }
        var written: Int64 = 0
        for sample in RecordingCaptions.samples(of: cues) {
            let start = max(written, milliseconds(sample.start))
            let stop = milliseconds(sample.end)
            guard stop > start else { continue }
            let bytes = try text.encoder.sample(dialogue: RecordingCaptions.dialogue(fromWebVTT: sample.text))
            try output.write(textSample: bytes, to: text.stream, start: Double(start) / 1000, end: Double(stop) / 1000)
            written = stop
        }
    }

    /// Copies one segment's packets; with `closingUp`, first moves the shift so that the segment
    /// starts at the recording's end (or where the picture's segment started: `first`, the shift
    /// the picture took, so that the sound stays with it). Returns the segment's shift.
    private func copy(
        _ segment: MediaPlaylist.Segment, of track: RecordingTracks.Track, into output: Muxer, closingUp: Bool,
        first: Double?
    ) throws -> Double {
        let input = try Demuxer(address: Self.address(of: segment, in: track), name: segment.uri)
        var shifted = false
        if let first { shift = first }
        try input.readPackets { packet in
            guard let kind = packet.stream.kind else { return }
            // The picture comes from the picture's track only, the sound from the sound's when apart.
            if let sound = inputs.sound, (kind == .audio) != (track.folder == sound.folder) { return }
            guard let stream = streams[kind] else {
                throw StoreFailure.content("a stream appears after the recording's start")
            }
            let time = packet.decodeSeconds
            if closingUp, first == nil, !shifted {
                shift = end - time
                shifted = true
            }
            end = max(end, time + shift + packet.durationSeconds)
            if kind == .video { frames += 1 }
            try output.write(packet, to: stream, shiftedBy: shift)
        }
        return shift
    }

    /// Makes the output streams like the first segment's (the picture's, and the sound's when
    /// apart), then opens the file and writes the header, the index to come at the front.
    private func openOutput() throws -> Muxer {
        let output = try Muxer(format: "mp4", to: .address(path))
        var tracks = [(inputs.picture, [MediaKind.video] + (inputs.sound == nil ? [.audio] : []))]
        if let sound = inputs.sound { tracks.append((sound, [.audio])) }
        for (track, kinds) in tracks {
            let segment = track.playlist.segments[0]
            let input = try Demuxer(address: Self.address(of: segment, in: track), name: segment.uri)
            for stream in input.streams {
                guard let kind = stream.kind, kinds.contains(kind), streams[kind] == nil else { continue }
                streams[kind] = try output.addStream(like: stream)
            }
        }
        guard streams[.video] != nil else { throw StoreFailure.content("the recording has no picture") }
        if let captions = inputs.captions {
            let encoder = try TimedTextEncoder()
            // An MP4 names a language by its three letters ("eng" for "en"); one it cannot name is "und".
            let code = Language.mp4Code(of: captions.language)
            text = (encoder, try output.addStream(for: encoder, language: code, name: captions.name))
        }
        for chapter in RecordingExport.chapters(of: inputs.picture.playlist) {
            try output.addChapter(start: chapter.start, end: chapter.end, title: chapter.title)
        }
        try output.open(options: [("movflags", "+faststart")])
        return output
    }

    /// What libavformat opens for a segment: after its init segment, for fMP4.
    static func address(of segment: MediaPlaylist.Segment, in track: RecordingTracks.Track) -> String {
        let path = track.folder.appendingPathComponent(segment.uri).path
        guard let map = segment.map else { return path }
        return "concat:" + track.folder.appendingPathComponent(map).path + "|" + path
    }
}
