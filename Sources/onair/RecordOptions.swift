import ArgumentParser
import FoundationEssentials
import Push

/// `--record DIR` and how much of it to keep: the same for `publish` (its own broadcast) and
/// `serve` (each channel it hosts); `publish` adds `--record-mp4`.
struct RecordOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Keep each broadcast in DIR/<channel>/<start time>/ as an HLS recording (EVENT while live, VOD once stopped), listed and replayed by the server; or in object storage: s3://BUCKET/PREFIX/ (credentials and endpoint as for --push).",
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
        if isObjectStorage {
            _ = try s3Location(environment: ProcessInfo.processInfo.environment)
            if recordKeep != nil || recordMaxSize != nil {
                throw ValidationError(
                    "--record-\(recordKeep != nil ? "keep" : "max-size") prunes a folder on this machine; "
                        + "keep a bucket's recordings with its lifecycle rules instead")
            }
        }
        if let recordKeep, recordKeep < 1 {
            throw ValidationError("--record-keep \(recordKeep) is out of range: keep at least 1 recording")
        }
        if record == nil, recordKeep != nil || recordMaxSize != nil {
            throw ValidationError(
                "--record-\(recordKeep != nil ? "keep" : "max-size") needs --record DIR: it prunes that folder's recordings"
            )
        }
    }

    /// A folder on this machine: the recording on disk (nil for object storage).
    var folder: URL? { isObjectStorage ? nil : record.map { URL(fileURLWithPath: $0) } }

    /// `--record s3://…`: the recording goes to object storage.
    var isObjectStorage: Bool { record?.lowercased().hasPrefix("s3://") ?? false }

    /// Where in object storage, read as `--push` reads an s3:// destination (its credentials,
    /// endpoint and region from the environment).
    func s3Location(environment: [String: String]) throws -> PushDestination.S3Location? {
        guard isObjectStorage, let record else { return nil }
        do throws(PushDestination.Refusal) {
            guard case .s3(let location) = try PushDestination.parse(record, environment: environment) else {
                return nil
            }
            return location
        } catch {
            // The refusal names the option it was written for.
            let message =
                error.description.hasPrefix("--push ")
                ? "--record " + error.description.dropFirst(7) : error.description
            throw ValidationError(message)
        }
    }

    /// Refuses a folder that cannot be written (`channel`: the channel's own folder in it too).
    func checkWritable(channel: String? = nil) throws {
        guard let record, var folder, !isObjectStorage else { return }
        if let channel { folder.appendPathComponent(channel) }
        guard Self.canWrite(in: folder) else {
            throw UsageError(message: "--record \(record) is not writable; choose a folder you can write to")
        }
    }

    /// True when `folder` can be made (if missing) and written in: checked before anything starts.
    static func canWrite(in folder: URL) -> Bool {
        let probe = folder.appendingPathComponent(".onair-write-test")
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data().write(to: probe)
            try FileManager.default.removeItem(at: probe)
            return true
        } catch {
            return false
        }
    }
}
