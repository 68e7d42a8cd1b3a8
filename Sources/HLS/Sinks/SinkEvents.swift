public import Runtime

/// What the sinks that keep files say: the folder (`--hls-dir`), recordings and the rewind window.
extension BroadcastEvent.Code {
    public static let diskWriteFailed = Self("disk_write_failed", problem: true)
    public static let diskWriteRecovered = Self("disk_write_recovered")
    /// The folder is too slow: segments left the playlist before they could be written.
    public static let diskWriteBehind = Self("disk_write_behind", problem: true)
    public static let diskWriteCaughtUp = Self("disk_write_caught_up")
    /// The recording's folder cannot be written (full, read-only, gone); and when it can again.
    public static let recordFailed = Self("record_failed", problem: true)
    public static let recordRecovered = Self("record_recovered")
    /// `onair serve --record`: a channel's run is recorded from now on, in the folder named.
    public static let recordStarted = Self("record_started")
    /// An older recording removed to keep to `--record-keep` / `--record-max-size`.
    public static let recordingRemoved = Self("recording_removed")
    /// The rewind window's folder (`--dvr`) cannot be written; what it misses is a gap in the window.
    public static let dvrFailed = Self("dvr_failed", problem: true)
    public static let dvrRecovered = Self("dvr_recovered")
}
