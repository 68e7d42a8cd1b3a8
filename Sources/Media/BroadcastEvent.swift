/// Something that happened to a broadcast: a change of state or a problem, with a code that
/// never changes (hosts match on it) and a message for people.
public struct BroadcastEvent: Sendable, Equatable {
    /// The stable codes. Their raw values are the wire names in logs, the API and Server-Sent Events.
    public enum Code: String, Sendable, CaseIterable {
        case started
        case paused
        case resumed
        case stopped
        case captureInterrupted = "capture_interrupted"
        case captureRecovered = "capture_recovered"
        case audioDeviceLost = "audio_device_lost"
        case audioDeviceRecovered = "audio_device_recovered"
        /// The application whose sound is shared (`--audio app:…`, `--audio window`) plays nothing:
        /// it has not started, or it quit. Silence is sent until it plays again.
        case audioAppSilent = "audio_app_silent"
        case audioAppPlaying = "audio_app_playing"
        /// Frames dropped because encoding cannot keep up.
        case encoderOverloaded = "encoder_overloaded"
        /// The largest rendition of a ladder cannot be encoded in real time: it repeats pictures
        /// (the others keep every frame) until it can again.
        case renditionOverloaded = "rendition_overloaded"
        case renditionRecovered = "rendition_recovered"
        case diskWriteFailed = "disk_write_failed"
        case diskWriteRecovered = "disk_write_recovered"
        /// The folder is too slow: segments left the playlist before they could be written.
        case diskWriteBehind = "disk_write_behind"
        case diskWriteCaughtUp = "disk_write_caught_up"
        /// A push destination cannot be reached or refuses what is sent.
        case pushFailed = "push_failed"
        case pushRecovered = "push_recovered"
        /// The recording's folder cannot be written (full, read-only, gone); and when it can again.
        case recordFailed = "record_failed"
        case recordRecovered = "record_recovered"
        /// `onair serve --record`: a channel's run is recorded from now on, in the folder named.
        case recordStarted = "record_started"
        /// An older recording removed to keep to `--record-keep` / `--record-max-size`.
        case recordingRemoved = "recording_removed"
        /// The rewind window's folder (`--dvr`) cannot be written; what it misses is a gap in the window.
        case dvrFailed = "dvr_failed"
        case dvrRecovered = "dvr_recovered"

        /// Problems are logged as warnings; changes of state and recoveries as information.
        public var isProblem: Bool {
            switch self {
            case .captureInterrupted, .audioDeviceLost, .audioAppSilent, .encoderOverloaded, .renditionOverloaded,
                .diskWriteFailed,
                .diskWriteBehind, .pushFailed, .recordFailed, .dvrFailed:
                true
            default: false
            }
        }
    }

    public var code: Code
    public var message: String
    /// Wall time, milliseconds since 1970.
    public var time: Int64
    /// Its place in the broadcast's events, from 1: the Server-Sent Events id.
    public var sequence: Int

    public init(code: Code, message: String, time: Int64, sequence: Int) {
        self.code = code
        self.message = message
        self.time = time
        self.sequence = sequence
    }
}

/// Where the stages report events: the broadcast stamps, numbers, logs and streams them.
public typealias EventReporter = @Sendable (_ code: BroadcastEvent.Code, _ message: String) -> Void
