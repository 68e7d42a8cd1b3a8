internal import CFFmpeg

/// libav's own console output.
public enum LibavLog {
    /// Silences libav's console: every failure reaches the user as one of our errors, which says
    /// what failed and what to do, instead of libav's lines around it. Wraps `av_log_set_level`.
    public static func silence() {
        av_log_set_level(AV_LOG_QUIET)
    }
}
