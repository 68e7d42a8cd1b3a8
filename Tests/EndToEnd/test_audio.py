"""Capturing real sound: PulseAudio null sinks fed with tones, captured through ALSA, checked in
what a viewer decodes."""

import json
import math
import os
import re
import signal
import struct
import subprocess
from pathlib import Path

import pytest

from harness import Publisher, first_segment, init_segment, run_onair, wait_until
from hls_rules import MediaPlaylist
from soundserver import Listener, SoundServer, beeps, tone


@pytest.fixture(scope="module")
def sound(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tones")
    tone(folder / "440.wav", 440)
    tone(folder / "1000.wav", 1000)
    server = SoundServer()
    server.play("desk", folder / "440.wav")
    server.play("mic", folder / "1000.wav")
    yield server
    server.stop()


def publish(sound, folder, *arguments, seconds=4):
    return Publisher("--source", "test", "--size", "320x180", "--duration", f"{seconds}s", "--hls-dir", str(folder),
                     *arguments, env=sound.env)


def decoded_audio(folder, rate=8000):
    """Mono 16-bit samples of the whole published audio."""
    media = folder / "live/demo"
    playlist = MediaPlaylist((media / "media.m3u8").read_text())
    data = init_segment(media) + b"".join((media / s["uri"]).read_bytes() for s in playlist.segments)
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", "-", "-map", "0:a", "-ac", "1", "-ar", str(rate),
                          "-f", "s16le", "-"], input=data, capture_output=True, check=True).stdout
    return struct.unpack(f"<{len(raw) // 2}h", raw)


def level(samples, frequency, rate=8000, ending=0.5):
    """The peak amplitude within 1 Hz of a frequency (Goertzel in 0.25 Hz steps), over the second
    before the last `ending` seconds (PulseAudio can take a second or more to start a monitor stream).
    The band allows for the resampler's drift compensation, which may shift pitch by up to 0.1 %."""
    middle = samples[-int(rate * (ending + 1)):-int(rate * ending)]
    best = 0.0
    for step in range(-4, 5):
        w = 2 * math.pi * (frequency + step / 4) / rate
        real = sum(x * math.cos(w * i) for i, x in enumerate(middle))
        imaginary = sum(x * math.sin(w * i) for i, x in enumerate(middle))
        best = max(best, 2 * math.hypot(real, imaginary) / len(middle))
    return best


def finish(publisher):
    assert publisher.process.wait(timeout=60) == 0, publisher.output()
    return publisher.output()


def test_a_capture_device_is_heard_at_its_frequency(sound, tmp_path):
    finish(publish(sound, tmp_path, "--audio", "pulse:desk.monitor"))
    samples = decoded_audio(tmp_path)
    assert level(samples, 440) > 1500
    assert level(samples, 1000) < 150


def test_the_readmes_desktop_sound_and_microphone(sound, tmp_path):
    # `--audio pulse:@DEFAULT_MONITOR@ --audio-mix pulse`: PulseAudio resolves the first to the
    # monitor of the default sink (what the desktop plays: 1 kHz here) and `pulse` to the default
    # source (the microphone: a 440 Hz sink's monitor here). A server of its own: changing the
    # defaults moves the streams already playing, and other tests share `sound`.
    tones = tmp_path.parent / next(p.name for p in tmp_path.parent.glob("tones*"))
    server = SoundServer()
    try:
        for setting in [["set-default-sink", "mic"], ["set-default-source", "desk.monitor"]]:
            subprocess.run(["pactl", *setting], env={**os.environ, **server.env}, check=True)
        server.play("desk", tones / "440.wav")
        server.play("mic", tones / "1000.wav")
        finish(Publisher("--source", "test", "--size", "320x180", "--duration", "6s", "--hls-dir", str(tmp_path),
                         "--audio", "pulse:@DEFAULT_MONITOR@", "--audio-mix", "pulse", "--mix-gain", "-6",
                         env=server.env))
    finally:
        server.stop()
    samples = decoded_audio(tmp_path)
    desktop, microphone = level(samples, 1000), level(samples, 440)
    assert desktop > 1500 and microphone > 700
    assert 0.35 < microphone / desktop < 0.7, "the microphone at -6 dB"


def test_two_devices_are_mixed_with_their_gains(sound, tmp_path):
    finish(publish(sound, tmp_path, "--audio", "pulse:desk.monitor", "--audio-mix", "pulse:mic.monitor",
                   "--mix-gain", "-6", seconds=6))
    samples = decoded_audio(tmp_path)
    desk, mic = level(samples, 440), level(samples, 1000)
    assert desk > 1500 and mic > 700
    # The gain, in three seconds taken apart: the middle figure, so a monitor stream that hiccups
    # for a moment under a loaded machine (a run of silence in one device) does not decide it.
    ratios = sorted(level(samples, 1000, ending=end) / max(1, level(samples, 440, ending=end))
                    for end in (0.5, 1.5, 2.5))
    assert 0.35 < ratios[1] < 0.7, f"-6 dB is half the amplitude: {ratios}"


def test_loud_sums_clip_instead_of_wrapping_around(sound, tmp_path):
    finish(publish(sound, tmp_path, "--audio", "pulse:desk.monitor", "--audio-mix", "pulse:mic.monitor",
                   "--audio-gain", "12", "--mix-gain", "12", seconds=6))
    samples = decoded_audio(tmp_path)
    assert max(samples) > 30000, "full scale is reached"
    assert level(samples, 440) > 8000, "the tone is still there: no wrap-around into noise"


def test_audio_none_publishes_video_only(tmp_path):
    publisher = Publisher("--source", "test", "--audio", "none", "--duration", "2s", "--hls-dir", str(tmp_path))
    assert publisher.process.wait(timeout=60) == 0
    media = tmp_path / "live/demo"
    data = init_segment(media) + first_segment(media).read_bytes()
    kinds = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_type", "-of", "csv=p=0", "-"],
                           input=data, capture_output=True, check=True).stdout.decode().split()
    assert kinds == ["video"]
    assert 'CODECS="avc1.' in (media / "index.m3u8").read_text() and "mp4a" not in (media / "index.m3u8").read_text()


def test_a_device_that_disappears_becomes_silence_then_comes_back(sound, tmp_path):
    publisher = publish(sound, tmp_path, "--audio", "pulse:desk.monitor", seconds=8)
    tones = tmp_path.parent / next(p.name for p in tmp_path.parent.glob("tones*"))
    try:
        wait_until(lambda: first_segment(tmp_path / "live/demo"), 20, what="the first segment")
        sound.kill()
        wait_until(lambda: "failed" in publisher.output(), 15, what="the device-lost warning")
        sound.start()
        sound.play("desk", tones / "440.wav")
        sound.play("mic", tones / "1000.wav")
        wait_until(lambda: "is back" in publisher.output(), 15, what="the device to be reopened")
        output = finish(publisher)
    finally:
        publisher.kill()
        if sound.process.poll() is not None:  # the other tests share the server
            sound.start()
            sound.play("desk", tones / "440.wav")
            sound.play("mic", tones / "1000.wav")
    assert "[audio_device_lost] audio device pulse:desk.monitor failed" in output
    assert "sending silence and trying again every second" in output
    assert "[audio_device_recovered] audio device pulse:desk.monitor is back" in output
    final = MediaPlaylist((tmp_path / "live/demo/media.m3u8").read_text())
    assert final.ended and abs(final.duration - 8) < 0.1, "the stream kept its length"


def test_a_sound_server_that_hangs_is_a_lost_device_not_a_stuck_broadcast(tmp_path):
    # A stopped (SIGSTOP) PulseAudio delivers nothing and reports nothing: a blocking read would wait
    # for good. The device counts as lost after 2 s without sound, and is back once the server is.
    tone(tmp_path / "440.wav", 440, seconds=20)
    server = SoundServer()
    server.play("desk", tmp_path / "440.wav")
    publisher = Publisher("--source", "test", "--size", "320x180", "--duration", "12s", "--hls-dir", str(tmp_path),
                          "--audio", "pulse:desk.monitor", env=server.env)
    try:
        wait_until(lambda: first_segment(tmp_path / "live/demo"), 20, what="the first segment")
        os.kill(server.process.pid, signal.SIGSTOP)
        wait_until(lambda: "[audio_device_lost]" in publisher.output(), 10, what="the device-lost warning: " + publisher.output())
        os.kill(server.process.pid, signal.SIGCONT)
        wait_until(lambda: "is back" in publisher.output(), 15, what="the device to be reopened")
        output = finish(publisher)
    finally:
        publisher.kill()
        os.kill(server.process.pid, signal.SIGCONT)
        server.stop()
    assert "audio device pulse:desk.monitor delivered nothing for 2 s: sending silence" in output
    final = MediaPlaylist((tmp_path / "live/demo/media.m3u8").read_text())
    assert final.ended and abs(final.duration - 12) < 0.1, "the stream kept its length"


def test_an_unknown_device_lists_the_capture_devices(sound):
    result = run_onair("publish", "--source", "test", "--audio", "nosuchdevice", env=sound.env)
    assert result.returncode == 2
    line = result.stderr.strip()
    assert line.startswith("onair: cannot capture from ALSA device 'nosuchdevice'") and "capture devices: " in line
    assert "pulse" in line and len(line.splitlines()) == 1


def test_devices_lists_sound_capture_devices(sound):
    result = run_onair("devices", env=sound.env)
    assert result.returncode == 0
    lines = result.stdout.splitlines()
    assert "sound capture devices (--audio, --audio-mix):" in lines
    # Each with ALSA's description, in a column.
    assert any(re.fullmatch(r"  pulse +PulseAudio Sound Server", line) for line in lines), lines
    assert any("pulse:@DEFAULT_MONITOR@ what the desktop plays" in line for line in lines), lines


def test_overruns_are_recovered_counted_and_leave_sound_in_step(sound, tmp_path):
    # Every 100th read reports an overrun; the real device is re-prepared and loses what it held.
    library = tmp_path / "xrun.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(library), str(Path(__file__).parent / "native/xrun.c"),
                    "-ldl"], check=True)
    publisher = Publisher("--source", "test", "--size", "320x180", "--duration", "10s", "--hls-dir", str(tmp_path),
                          "--audio", "pulse:desk.monitor",
                          env={**sound.env, "LD_PRELOAD": str(library), "ONAIR_XRUN_EVERY": "100"})
    output = finish(publisher)
    overruns = int(re.search(r"(\d+) overruns \(samples lost while onair was held up\), recovered", output).group(1))
    assert overruns >= 3
    media = tmp_path / "live/demo"
    final = MediaPlaylist((media / "media.m3u8").read_text())
    assert final.ended and abs(final.duration - 10) < 0.1, "the stream kept its length"
    data = init_segment(media) + b"".join((media / s["uri"]).read_bytes() for s in final.segments)
    packets = json.loads(subprocess.run(
        ["ffprobe", "-v", "error", "-of", "json", "-show_entries", "packet=stream_index,pts_time,duration_time", "-"],
        input=data, capture_output=True, check=True).stdout)["packets"]
    audio = [(float(p["pts_time"]), float(p.get("duration_time", 1024 / 48000))) for p in packets
             if p["stream_index"] == 1]
    video = [float(p["pts_time"]) for p in packets if p["stream_index"] == 0]
    # The lost samples became silence in place: one unbroken run of AAC frames (after the first,
    # which the muxer puts at 0 however late the device started)...
    for (start, length), (after, _) in zip(audio[1:], audio[2:]):
        assert abs(after - (start + length)) < 0.001
    # ...that ends with the picture, within the lip-sync window (sound 45 ms early to 125 ms late):
    # had the lost samples not been made up, every overrun would have left sound further behind.
    assert -0.045 <= (audio[-1][0] + audio[-1][1]) - (video[-1] + 1 / 30) <= 0.125
    # And the device still sounds after them.
    assert level(decoded_audio(tmp_path), 440) > 1500


def test_sound_is_in_step_with_the_picture_from_the_first_second(tmp_path):
    # A beep a second on a sink of its own, dated as it plays by a reference recorder, and dated as
    # published through PROGRAM-DATE-TIME (media time 0 is the broadcast clock's anchor, by which
    # every frame of the picture is stamped). PulseAudio reports its whole buffer as latency for
    # the first seconds of a capture; believed, that put sound 250 ms and more ahead of the picture.
    beeps(tmp_path / "beeps.wav", seconds=30)
    server = SoundServer()
    try:
        listener = Listener(server, "mic")
        server.play("mic", tmp_path / "beeps.wav")
        finish(Publisher("--source", "test", "--size", "320x180", "--duration", "8s", "--hls-dir", str(tmp_path),
                         "--audio", "pulse:mic.monitor", env=server.env))
        listener.stop()
    finally:
        server.stop()
    offsets = listener.offsets(tmp_path / "live/demo")
    # The monitor stream takes a second or two to start: five beeps at least.
    assert len(offsets) >= 5, offsets
    # Within 45 ms either way, the sync a viewer cannot notice, from the first beep on.
    assert all(-45 <= offset <= 45 for offset in offsets), offsets
