// The request path and query parsing, and the playlist and date parsers a restart reads back,
// under libFuzzer (scripts/fuzz.sh). Built without -DFUZZING it replays files given as arguments
// (the committed corpus) through the same checks.
import FuzzDriver
import HLSModel

/// One input: `channel \n file \n query \n playlist text`. Returns 0; a broken promise traps.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let fields = text.split(separator: "\n", maxSplits: 3, omittingEmptySubsequences: false).map(String.init)
    let channel = fields.count > 0 ? fields[0] : ""
    let file = fields.count > 1 ? fields[1] : ""
    let query = fields.count > 2 ? fields[2] : nil

    if let request = try? LiveRequest.parse(channel: channel, file: file, query: query) {
        // Whatever is accepted names a file of the channel's store and nothing else.
        for name in [request.channel.text, request.file] {
            precondition(!name.isEmpty && !name.hasPrefix("."), "empty or hidden name accepted: \(name)")
            precondition(!name.contains { "/\\\0%".contains($0) }, "a path-like name accepted: \(name)")
        }
        precondition(request.part == nil || request.msn != nil, "_HLS_part without _HLS_msn accepted")
        precondition((request.msn ?? 0) >= 0 && (request.part ?? 0) >= 0, "a negative number accepted")
        precondition((request.msn ?? 0) <= LiveRequest.maximumNumber, "an _HLS_msn past 2^50 accepted")
        precondition((request.delay ?? 0) <= LiveRequest.longestDelay, "a delay past a week accepted")
        // The arithmetic the rewind routes do with what a viewer asked, on the playlist given (it traps
        // on an overflow: a delay of 9.3e15 s once did).
        if let playlist = MediaPlaylist.parse(fields.last ?? "") {
            let now: Int64 = 1_795_000_000_000
            let minimum = 3 * Double(playlist.targetDuration)
            if let delay = request.delay {
                _ = playlist.ending(atWallTime: now - Int64(delay) * 1000, keeping: minimum)
            }
            if let from = request.from { _ = playlist.starting(at: from, keeping: minimum) }
        }
    }

    for candidate in [text] + fields {
        if let milliseconds = ProgramDateTime.parse(candidate) {
            precondition(
                ProgramDateTime.format(milliseconds: milliseconds) == candidate, "date not read back: \(candidate)")
        }
    }

    if let playlist = MediaPlaylist.parse(fields.last ?? "") {
        // What it reads, written out and read again, lists the same segments in the same order.
        let again = MediaPlaylist.parse(playlist.render())
        precondition(again?.segments.map(\.uri) == playlist.segments.map(\.uri), "playlist not read back")
        precondition(again?.mediaSequence == playlist.mediaSequence, "media sequence not read back")
    }
    return 0
}

@main
enum RequestFuzzer {
    static func main() throws {
        try fuzzMain(fuzz, what: "broken promise")
    }
}
