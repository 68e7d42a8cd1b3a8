"""One application's sound through a real PipeWire: pw-play processes named Alpha and Beta play
tones at different frequencies; the broadcast must carry the chosen one's and not the other's."""

import re
import subprocess

import pytest

from harness import Publisher, run_onair, wait_until
from pipewire import PipeWire, PipeWireListener
from soundserver import beeps
from test_audio import decoded_audio, finish, level
from xserver import XServer

ALPHA, BETA, GAMMA = 440, 1500, 700


def wav(folder, name, frequency, channels=2, rate=48000, seconds=120):
    path = folder / f"{name}.wav"
    if not path.exists():
        subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i",
                        f"sine=frequency={frequency}:sample_rate={rate}:duration={seconds}", "-ac", str(channels),
                        "-ar", str(rate), str(path)], check=True)
    return path


@pytest.fixture(scope="module")
def tones(tmp_path_factory):
    folder = tmp_path_factory.mktemp("app-tones")
    # Beta is mono at 44.1 kHz and Gamma 5.1: PipeWire converts both to what onair asks for.
    return {"alpha": wav(folder, "alpha", ALPHA), "beta": wav(folder, "beta", BETA, channels=1, rate=44100),
            "gamma": wav(folder, "gamma", GAMMA, channels=6), "voice": wav(folder, "voice", BETA)}


@pytest.fixture
def pipewire():
    # "desk" is the only sink, so the default one; "voice" the only source, so the default one.
    server = PipeWire(sinks=("desk",), sources=("voice",))
    yield server
    server.stop()


def publish(pipewire, folder, *arguments, seconds=5, display=None):
    return Publisher("--source", "test", "--size", "320x180", "--duration", f"{seconds}s", "--hls-dir", str(folder),
                     *arguments, env=pipewire.env, display=display)


def wait_for_line(publisher, pattern, timeout=20, after=0):
    """Waits for the publisher to log a line matching `pattern` (after `after` such lines)."""
    try:
        wait_until(lambda: len(re.findall(pattern, publisher.output())) > after, timeout, what=pattern)
    except AssertionError:
        raise AssertionError(f"{pattern} not logged:\n{publisher.output()}") from None


def test_the_chosen_application_is_heard_and_not_the_other(pipewire, tones, tmp_path):
    pipewire.play("Alpha", tones["alpha"])
    pipewire.play("Beta", tones["beta"])
    output = finish(publish(pipewire, tmp_path / "alpha", "--audio", "app:alpha"))
    assert "sharing the sound of application alpha: 1 stream playing" in output
    samples = decoded_audio(tmp_path / "alpha")
    assert level(samples, ALPHA) > 1500
    assert level(samples, BETA) < 30


def test_an_application_is_matched_by_process_id_and_its_format_converted(pipewire, tones, tmp_path):
    pipewire.play("Alpha", tones["alpha"])
    beta = pipewire.play("Beta", tones["beta"])
    finish(publish(pipewire, tmp_path, "--audio", f"app:{beta.pid}"))
    samples = decoded_audio(tmp_path)
    assert level(samples, BETA) > 1500
    assert level(samples, ALPHA) < 30


def test_every_stream_of_an_application_is_mixed(pipewire, tones, tmp_path):
    # Two streams under one name (a browser with two tabs playing), a 5.1 one among them.
    pipewire.play("Alpha", tones["alpha"])
    pipewire.play("Alpha", tones["gamma"])
    pipewire.play("Beta", tones["beta"])
    output = finish(publish(pipewire, tmp_path, "--audio", "app:Alpha"))
    assert "2 streams playing" in output
    samples = decoded_audio(tmp_path)
    assert level(samples, ALPHA) > 1500
    assert level(samples, GAMMA) > 500
    assert level(samples, BETA) < 30


def test_an_application_that_quits_and_comes_back_is_silence_then_sound(pipewire, tones, tmp_path):
    publisher = publish(pipewire, tmp_path, "--audio", "app:Alpha", seconds=60)
    try:
        wait_for_line(publisher, r"\[audio_app_silent\]")
        assert "application Alpha plays nothing yet: silence until it does" in publisher.output()
        alpha = pipewire.play("Alpha", tones["alpha"])
        wait_for_line(publisher, r"\[audio_app_playing\]")
        pipewire.quit(alpha)
        wait_for_line(publisher, r"\[audio_app_silent\]", after=1)
        pipewire.play("Alpha", tones["alpha"])
        wait_for_line(publisher, r"\[audio_app_playing\]", after=1)
        wait_for_two_more_segments(tmp_path)
    finally:
        assert publisher.stop() == 0, publisher.output()
    samples = decoded_audio(tmp_path)
    assert level(samples, ALPHA, ending=0.2) > 1500
    # An application away is silence, not a lost device.
    assert "audio_device_lost" not in publisher.output()


def wait_for_two_more_segments(folder):
    """Waits for two more segments in the channel's folder: sound that came back fills the last."""
    def written():
        return len(list((folder / "live/demo").glob("seg*.m4s")))
    started = written()
    wait_until(lambda: written() >= started + 2, 20, what="two more segments")


def steady_level(samples, frequency):
    """The highest of `level` over the last three whole seconds but half a second."""
    return max(level(samples, frequency, ending=ending) for ending in (0.5, 1.5, 2.5))


def test_application_and_microphone_are_mixed_at_their_gains(pipewire, tones, tmp_path):
    pipewire.play("Alpha", tones["alpha"])
    pipewire.speak("Talker", tones["voice"], "voice")
    finish(publish(pipewire, tmp_path / "alone", "--audio", "app:Alpha"))
    finish(publish(pipewire, tmp_path / "mixed", "--audio", "app:Alpha", "--audio-gain", "-6",
                   "--audio-mix", "pipewire:default", "--mix-gain", "0"))
    alone, mixed = decoded_audio(tmp_path / "alone"), decoded_audio(tmp_path / "mixed")
    assert level(alone, BETA) < 30
    # -6 dB is half the amplitude. The steadiest of three seconds: a loaded machine may drop a
    # moment of one capture, which is not what this compares.
    assert 0.4 < steady_level(mixed, ALPHA) / steady_level(alone, ALPHA) < 0.6
    assert level(mixed, BETA) > 1500


def test_pipewire_killed_and_restarted_is_silence_then_sound(pipewire, tones, tmp_path):
    pipewire.play("Alpha", tones["alpha"])
    publisher = publish(pipewire, tmp_path, "--audio", "app:Alpha", seconds=60)
    try:
        wait_for_line(publisher, r"\[audio_app_playing\]")
        publisher.wait_for_segments(1)
        pipewire.kill()
        wait_for_line(publisher, r"\[audio_device_lost\] PipeWire went away")
        pipewire.start()
        pipewire.play("Alpha", tones["alpha"])
        wait_for_line(publisher, r"\[audio_device_recovered\] PipeWire is back")
        wait_for_line(publisher, r"\[audio_app_playing\]", after=1)
        wait_for_two_more_segments(tmp_path)
    finally:
        assert publisher.stop() == 0, publisher.output()
    samples = decoded_audio(tmp_path)
    assert level(samples, ALPHA, ending=0.2) > 1500


def test_a_shared_windows_sound(pipewire, tones, tmp_path):
    server = XServer(640, 480)
    try:
        # The window's process plays through a process it started, as a browser plays through its
        # audio service.
        launcher = pipewire.play("Alpha", tones["alpha"], launcher=True)
        pipewire.play("Beta", tones["beta"])
        server.window("Player", "#3060c0", "320x240+40+40")
        wid = wait_until(lambda: re.search(r"0x[0-9a-f]+(?= \"Player\")", run_onair(
            "devices", display=server.display).stdout), 10, what="the window").group(0)
        # The window says which process it belongs to; here, the one that started Alpha's player.
        server.run("xprop", "-id", wid, "-f", "_NET_WM_PID", "32c", "-set", "_NET_WM_PID", str(launcher.pid))
        finish(Publisher("--source", f"window:{wid}", "--size", "320x240", "--duration", "5s",
                         "--hls-dir", str(tmp_path), "--audio", "window", env=pipewire.env, display=server.display))
    finally:
        server.stop()
    samples = decoded_audio(tmp_path)
    assert level(samples, ALPHA) > 1500
    assert level(samples, BETA) < 30


def test_the_sound_of_what_the_desktop_plays_and_of_a_source(pipewire, tones, tmp_path):
    pipewire.play("Alpha", tones["alpha"])
    pipewire.speak("Talker", tones["voice"], "voice")
    heard = {}
    for choice in ("pipewire:monitor", "pipewire:desk", "pipewire:default", "pipewire:voice"):
        folder = tmp_path / choice.replace(":", "-")
        finish(publish(pipewire, folder, "--audio", choice))
        samples = decoded_audio(folder)
        heard[choice] = (level(samples, ALPHA) > 1500, level(samples, BETA) > 1500,
                         level(samples, ALPHA) < 30, level(samples, BETA) < 30)
    # What the desk plays (by default, or named), and what the microphone hears: never the other.
    assert heard == {"pipewire:monitor": (True, False, False, True), "pipewire:desk": (True, False, False, True),
                     "pipewire:default": (False, True, True, False), "pipewire:voice": (False, True, True, False)}


def test_with_a_display_and_no_choice_pipewires_default_source_is_heard(pipewire, tones, tmp_path):
    pipewire.play("Alpha", tones["alpha"])
    pipewire.speak("Talker", tones["voice"], "voice")
    server = XServer(640, 480)
    try:
        finish(Publisher("--source", "screen", "--size", "320x240", "--duration", "5s", "--hls-dir", str(tmp_path),
                         env=pipewire.env, display=server.display))
    finally:
        server.stop()
    samples = decoded_audio(tmp_path)
    assert level(samples, BETA) > 1500
    assert level(samples, ALPHA) < 30


def test_an_applications_sound_is_in_step_with_the_picture(pipewire, tmp_path):
    # As test_audio's sync test: beeps dated as they play by a reference recorder on the sink, and
    # as published through PROGRAM-DATE-TIME (media time 0 is the broadcast clock's anchor).
    beeps(tmp_path / "beeps.wav", seconds=30)
    listener = PipeWireListener(pipewire, "desk")
    pipewire.play("Beeper", tmp_path / "beeps.wav")
    finish(publish(pipewire, tmp_path, "--audio", "app:Beeper", seconds=8))
    listener.stop()
    offsets = listener.offsets(tmp_path / "live/demo")
    assert len(offsets) >= 6, offsets
    # Within 45 ms either way, from the first beep on.
    assert all(-45 <= offset <= 45 for offset in offsets), offsets


def test_devices_lists_the_applications_playing_and_pipewires_nodes(pipewire, tones):
    beta = pipewire.play("Beta", tones["beta"])
    result = run_onair("devices", env=pipewire.env)
    assert result.returncode == 0, result.stderr
    assert "applications playing sound (--audio app:<name>):" in result.stdout
    assert f"  app:Beta  (pw-play, pid {beta.pid})" in result.stdout
    assert re.search(r"^  pipewire:desk +what it plays$", result.stdout, re.M), result.stdout
    assert re.search(r"^  pipewire:voice +source$", result.stdout, re.M), result.stdout


@pytest.mark.parametrize("arguments, message", [
    (["--audio", "app:"], "app: needs an application: its name, its binary or its process id"),
    (["--audio", "window"], "--audio window takes the sound of the shared window: share one with --source window:"),
    (["--audio", "pipewire:nosuch"], "no PipeWire sink or source is called 'nosuch'; use pipewire:monitor"),
    (["--audio", "app:Alpha", "--audio-mix", "window"], "--audio-mix window:"),
])
def test_bad_sound_choices_are_one_line_and_status_2(pipewire, arguments, message):
    result = run_onair("publish", "--source", "test", *arguments, env=pipewire.env)
    assert result.returncode == 2, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) <= 2 and message in lines[0], result.stderr


def test_no_pipewire_running_is_refused_before_anything_starts(tmp_path):
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    env = {"XDG_RUNTIME_DIR": str(runtime), "PIPEWIRE_RUNTIME_DIR": str(runtime)}
    for choice in ("app:firefox", "pipewire:monitor"):
        result = run_onair("publish", "--source", "test", "--audio", choice, env=env)
        assert result.returncode == 2, result.stderr
        assert "no PipeWire to capture from" in result.stderr and "--audio default" in result.stderr, result.stderr
