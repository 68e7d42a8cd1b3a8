// An origin's ingest under libFuzzer (scripts/fuzz.sh ingest): a sequence of pushed files, playlists
// and media, goes through IngestAssembler as PUTs would, and what the origin would then serve is
// rendered and checked against the HLS rules. Built without -DFUZZING it replays the files given
// as arguments (the committed corpus) through the same checks.
import FuzzDriver
import HLSModel

/// One input: pushes separated by NUL bytes, each `file name \n body`, from the channel's first
/// publisher, or from a second one (another run, as another holder of the ingest token) when the
/// name starts with `~`; a push arrives a second after the one before. A push is admitted as an
/// origin admits it (``ChannelOwner``). Returns 0; a broken rule traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var origin = IngestAssembler(channel: "demo", limits: .init(files: 16, bytes: 1 << 16))
    var owner = ChannelOwner()
    let runs = [ChannelOwner.Run("first-publisher")!, ChannelOwner.Run("second-publisher")!]
    var served = ServedHistory()
    var pushed = 0
    for (index, push) in bytes.split(separator: 0, omittingEmptySubsequences: false).prefix(64).enumerated() {
        let newline = push.firstIndex(of: UInt8(ascii: "\n")) ?? push.endIndex
        var line = String(decoding: push[..<newline], as: UTF8.self)
        let second = line.hasPrefix("~")
        if second { line.removeFirst() }
        guard let name = MediaFileName(line) else { continue }
        let body = Array(push[min(newline + 1, push.endIndex)...])
        let now = 1_700_000_000_000 + Int64(index) * 1000
        let live = origin.timeline.map { !$0.ended } ?? false
        let target = origin.timeline?.configuration.targetDuration ?? 0
        let hold = Double(IngestAssembler.holdMilliseconds(targetDuration: target)) / 1000
        let before = origin.timeline
        let run = runs[second ? 1 : 0]
        guard (try? owner.admit(run, now: Double(now) / 1000, live: live, hold: hold, channel: "demo")) != nil else {
            precondition(live && owner.run != run, "a push refused that was not another run's")
            continue
        }
        pushed += body.count
        _ = try? origin.put(name, bytes: body, now: now)
        precondition(origin.heldBytes >= 0 && origin.heldBytes <= 1 << 16, "held bytes out of bounds")
        // A segment is built from what was pushed: held as parts and as the segment they make, at most.
        precondition((origin.timeline?.heldBytes ?? 0) <= 2 * pushed, "a playlist made more than was pushed")
        if let before, !before.ended, origin.timeline?.ended == true {
            precondition(owner.run == run, "another run ended a live channel")
        }
        served.check(origin.timeline)
    }
    _ = origin.end()
    served.check(origin.timeline)
    return 0
}

/// What the origin served so far, to check each new playlist against the ones before it, and the
/// rewind window (`--dvr 10m`) it would keep of them.
struct ServedHistory {
    var targetDuration: Int?
    var mediaSequence = 0
    var discontinuitySequence = 0
    var window: DVRWindow?
    /// The playlist served last had EXT-X-ENDLIST.
    var ended = false

    mutating func check(_ timeline: Timeline?) {
        guard let timeline else { return }
        let playlist = timeline.mediaPlaylist()
        let text = playlist.render()
        _ = timeline.deltaPlaylist()?.render()
        _ = timeline.wholeSegmentPlaylist().render()
        _ = MultivariantPlaylist(renditions: [timeline]).render()
        let target = playlist.targetDuration
        precondition((1...60).contains(target), "TARGETDURATION \(target) served")
        if let targetDuration, targetDuration != target {
            // Only a new stream, after the one before ended (EXT-X-ENDLIST), may have other settings;
            // an origin gives it sinks, and so a rewind window, of its own.
            precondition(ended, "TARGETDURATION changed during a stream")
            window = nil
        }
        targetDuration = target
        ended = playlist.ended
        for segment in playlist.segments {
            // As served: three decimals, then rounded to the nearest whole second (RFC 8216).
            let served = (segment.duration * 1000).rounded() / 1000
            precondition(
                Int(served.rounded()) <= target, "EXTINF \(segment.duration) served under TARGETDURATION \(target)")
        }
        if let lowLatency = playlist.lowLatency {
            for part in playlist.segments.flatMap(\.parts) + lowLatency.openParts {
                precondition(part.duration <= lowLatency.partTarget + 0.001, "a part longer than PART-TARGET served")
            }
        }
        precondition(playlist.mediaSequence >= mediaSequence, "MEDIA-SEQUENCE went back")
        precondition(playlist.discontinuitySequence >= discontinuitySequence, "DISCONTINUITY-SEQUENCE went back")
        mediaSequence = playlist.mediaSequence
        discontinuitySequence = playlist.discontinuitySequence
        // What is served reads back as what was meant.
        let again = MediaPlaylist.parse(text)
        precondition(again?.segments.map(\.uri) == playlist.segments.map(\.uri), "served playlist not read back")
        precondition(playlist.mediaSequence + playlist.segments.count < 1 << 50, "a number past 2^50 served")
        keep(timeline)
    }

    /// The rewind window takes the new segments as a DVR sink would: it never lists more than it
    /// may, however the numbers jump (a slow window is a timeout under libFuzzer).
    mutating func keep(_ timeline: Timeline) {
        var window =
            self.window
            ?? DVRWindow(
                seconds: 600, version: 6, targetDuration: timeline.configuration.targetDuration,
                discontinuitySequence: timeline.discontinuitySequence)
        var changed = false
        for segment in timeline.segments where segment.sequence > (window.lastSequence ?? .min) {
            changed = true
            _ = window.append(
                sequence: segment.sequence, file: segment.gap ? nil : segment.name.description,
                duration: segment.duration, programDateTime: segment.programDateTime,
                discontinuity: segment.discontinuity, map: segment.initSegment?.description,
                format: timeline.configuration.format, missingDuration: timeline.configuration.segmentDuration)
        }
        self.window = window
        guard changed else { return }
        let listed = window.playlist
        precondition(listed.segments.count <= window.maximumEntries, "the rewind window lists too much")
        _ = listed.render()
    }
}

@main
enum IngestFuzzer {
    static func main() throws {
        try fuzzMain(fuzz, what: "broken rule")
    }
}
