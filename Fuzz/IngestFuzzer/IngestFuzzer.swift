// An origin's ingest under libFuzzer (scripts/fuzz.sh ingest): a sequence of pushed files, playlists
// and media, goes through IngestAssembler as PUTs would, and what the origin would then serve is
// rendered and checked against the HLS rules. Built without -DFUZZING it replays the files given
// as arguments (the committed corpus) through the same checks.
import FuzzDriver
import HLSModel

/// One input: pushes separated by NUL bytes, each `file name \n body`; a push arrives a second after
/// the one before. Returns 0; a broken rule traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    var origin = IngestAssembler(channel: "demo", limits: .init(files: 16, bytes: 1 << 16))
    var served = ServedHistory()
    for (index, push) in bytes.split(separator: 0, omittingEmptySubsequences: false).prefix(64).enumerated() {
        let newline = push.firstIndex(of: UInt8(ascii: "\n")) ?? push.endIndex
        guard let name = MediaFileName(String(decoding: push[..<newline], as: UTF8.self)) else { continue }
        let body = Array(push[min(newline + 1, push.endIndex)...])
        _ = try? origin.put(name, bytes: body, now: 1_700_000_000_000 + Int64(index) * 1000)
        precondition(origin.heldBytes >= 0 && origin.heldBytes <= 1 << 16, "held bytes out of bounds")
        served.check(origin.timeline)
    }
    _ = origin.end()
    served.check(origin.timeline)
    return 0
}

/// What the origin served so far, to check each new playlist against the ones before it.
struct ServedHistory {
    var targetDuration: Int?
    var mediaSequence = 0
    var discontinuitySequence = 0

    mutating func check(_ timeline: Timeline?) {
        guard let timeline else { return }
        let playlist = timeline.mediaPlaylist()
        let text = playlist.render()
        _ = timeline.deltaPlaylist()?.render()
        _ = timeline.wholeSegmentPlaylist().render()
        _ = MultivariantPlaylist(renditions: [timeline]).render()
        let target = playlist.targetDuration
        precondition((1...60).contains(target), "TARGETDURATION \(target) served")
        precondition(targetDuration == nil || targetDuration == target, "TARGETDURATION changed")
        targetDuration = target
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
    }
}

@main
enum IngestFuzzer {
    static func main() throws {
        try fuzzMain(fuzz, what: "broken rule")
    }
}
