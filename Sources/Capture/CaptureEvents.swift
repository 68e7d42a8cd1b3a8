public import Runtime

/// What capture says of itself: the picture or the sound lost and back.
extension BroadcastEvent.Code {
    public static let captureInterrupted = Self("capture_interrupted", problem: true)
    public static let captureRecovered = Self("capture_recovered")
    public static let audioDeviceLost = Self("audio_device_lost", problem: true)
    public static let audioDeviceRecovered = Self("audio_device_recovered")
    /// The application whose sound is shared (`--audio app:…`, `--audio window`) plays nothing:
    /// it has not started, or it quit. Silence is sent until it plays again.
    public static let audioAppSilent = Self("audio_app_silent", problem: true)
    public static let audioAppPlaying = Self("audio_app_playing")
}
