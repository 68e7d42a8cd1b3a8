internal import CFFmpeg

/// libav's own console output.
public enum LibavLog {
    /// Keeps libav to errors only: its banners and per-stream notes are noise on a status line.
    /// Wraps `av_log_set_level`.
    public static func showErrorsOnly() {
        av_log_set_level(AV_LOG_ERROR)
    }
}
