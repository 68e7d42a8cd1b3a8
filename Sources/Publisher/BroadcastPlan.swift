import Encoding
import FoundationEssentials
import HLS
import HLSModel
import Logging
import Media
import Runtime

/// What a broadcast will be, read before its clock starts (reading it may touch the disk: a slow
/// disk delays the start, never the first frames): its renditions, where an earlier run left its
/// folder, its destinations and this run's recordings, and its numbering.
struct BroadcastPlan: Sendable {
    /// The renditions' ids, largest first, with the shared sound's after them when a ladder has
    /// one, and the captions' last.
    let outputs: [String]
    /// The channel's files are in a folder per rendition, under a multivariant playlist naming them
    /// all: several video renditions, or captions beside the pictures.
    let isLadder: Bool
    /// A ladder in fMP4 carries its sound once, in an audio rendition every video rendition names
    /// (EXT-X-MEDIA): a player switching video keeps its sound, and no rung repeats it. In TS, and
    /// for one rendition, the sound is muxed in.
    let sharesAudio: Bool
    /// Each rendition's earlier run in `--hls-dir`, which this one goes on from.
    let previous: [Timeline.PreviousRun?]
    let destinations: ChannelDestinations
    let recordings: ChannelDestinations.Recordings?
    /// The recording on disk, planned: a new folder, or the one a killed broadcast left unfinished.
    let recording: RecordingPlan?
    /// The numbering the channel's last run kept, which this one's follows.
    let earlierStart: EpochNumbering.Start?

    init(_ config: BroadcastConfiguration, report: @escaping EventReporter) {
        let rungs = config.renditions
        isLadder = rungs.count > 1 || config.captions != nil
        sharesAudio = rungs.count > 1 && config.format == .fmp4 && config.audio != .none
        outputs =
            rungs.map(\.id) + (sharesAudio ? [Rendition.audioID] : [])
            + (config.captions != nil ? [Rendition.captionsID] : [])
        let root = config.hlsDirectory.map { URL(fileURLWithPath: $0) }
        // A restart of the channel on the same folder goes on from where the last run stopped; a
        // ladder only when every rendition's folder agrees on where, so their numbers stay matched.
        var previous = outputs.map { [isLadder] id in
            root.flatMap {
                DirectoryMirror.previousRun(root: $0, channel: config.channel, rendition: isLadder ? id : nil)
            }
        }
        if isLadder,
            Set(previous.map { $0.map { $0.playlist.mediaSequence + $0.playlist.segments.count } ?? -1 }).count != 1
        {
            previous = outputs.map { _ in nil }
        }
        self.previous = previous
        destinations = config.destinations(report: report)
        // Planned now, so that its folder is said before the broadcast starts.
        recordings = destinations.run(
            of: config.channel, renditions: isLadder ? outputs.map { $0 } : [nil], format: config.format,
            startedAt: MediaClock.wallMilliseconds())
        recording = recordings?.disk?.resolved
        earlierStart = config.numberingRecord.flatMap {
            (try? String(contentsOfFile: $0, encoding: .utf8)).flatMap(EpochNumbering.Start.init(text:))
        }
    }

    /// A rendition's folder among the channel's files: its id in a ladder, none for one rendition.
    func folder(of number: Int) -> String? {
        isLadder ? outputs[number] : nil
    }

    /// Says where the recordings go, once the clock has started.
    func announce(logger: Logger) {
        if let address = recordings?.cloudAddress { logger.notice("recording to \(address)") }
        if let recording {
            logger.notice(
                recording.continuing.isEmpty
                    ? "recording to \(recording.folder.path)"
                    : "continuing the recording in \(recording.folder.path): the broadcast before did not stop cleanly")
        }
    }
}
