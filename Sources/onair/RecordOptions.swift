import ArgumentParser
import Foundation

/// `--record DIR` and how much of it to keep: the same for `publish` (its own broadcast) and
/// `serve` (each channel it hosts); `publish` adds `--record-mp4`.
struct RecordOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Keep each broadcast in DIR/<channel>/<start time>/ as an HLS recording (EVENT while live, VOD once stopped), listed and replayed by the server.",
            valueName: "dir"))
    var record: String?

    @Option(
        help: ArgumentHelp(
            "With --record: keep each channel's newest N recordings, removing older ones (the one being written is never removed).",
            valueName: "n"))
    var recordKeep: Int?

    @Option(
        help: ArgumentHelp(
            "With --record: keep each channel's recordings within SIZE (500M, 20G, 1.5T), removing the oldest first.",
            valueName: "size"))
    var recordMaxSize: ByteSize?

    func validate() throws {
        if let recordKeep, recordKeep < 1 {
            throw ValidationError("--record-keep \(recordKeep) is out of range: keep at least 1 recording")
        }
        if record == nil, recordKeep != nil || recordMaxSize != nil {
            throw ValidationError(
                "--record-\(recordKeep != nil ? "keep" : "max-size") needs --record DIR: it prunes that folder's recordings"
            )
        }
    }

    var folder: URL? { record.map { URL(fileURLWithPath: $0) } }

    /// Refuses a folder that cannot be written (`channel`: the channel's own folder in it too).
    func checkWritable(channel: String? = nil) throws {
        guard let record, var folder else { return }
        if let channel { folder.appendPathComponent(channel) }
        let probe = folder.appendingPathComponent(".onair-write-test")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data().write(to: probe)
            try FileManager.default.removeItem(at: probe)
        } catch {
            throw UsageError(message: "--record \(record) is not writable; choose a folder you can write to")
        }
    }
}
