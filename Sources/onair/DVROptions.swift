import ArgumentParser
import FoundationEssentials
import HLS

/// `--dvr DURATION`: viewers may rewind the live stream that far; `--dvr-dir` says where the
/// window is kept on disk while the broadcast runs.
struct DVROptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Let viewers rewind the live stream this far (30s to 7 days: 10m, 2h): a seek bar and LIVE button on the watch page, and /live/<channel>/dvr.m3u8 for any HLS player. Kept on disk, not in memory.",
            valueName: "time"))
    var dvr: DurationValue?

    @Option(
        help: ArgumentHelp(
            "With --dvr: where the rewind window is kept while the broadcast runs (removed when it stops). Default: ~/.cache/onair/dvr.",
            valueName: "dir"))
    var dvrDir: String?

    func validate() throws {
        if let dvr, dvr.seconds < 30 || dvr.seconds > 7 * 86400 {
            throw ValidationError("--dvr \(dvr) is out of range: viewers may rewind from 30s to 7 days (168h)")
        }
        if dvr == nil, dvrDir != nil {
            throw ValidationError("--dvr-dir needs --dvr DURATION: it is where the rewind window is kept")
        }
    }

    /// The window's root folder.
    var root: URL {
        dvrDir.map { URL(fileURLWithPath: $0) }
            ?? DVRFolder.defaultRoot(environment: ProcessInfo.processInfo.environment)
    }

    /// Refuses a folder that cannot be written.
    func checkWritable() throws {
        guard dvr != nil, !RecordOptions.canWrite(in: root) else { return }
        throw UsageError(
            message:
                "the rewind window's folder \(root.path) is not writable; choose one you can write to with --dvr-dir")
    }
}
