"""Sharing a real X screen (Xvfb): what a viewer decodes shows the screen, one window, or a region."""

import re
import subprocess

import pytest

from harness import Publisher, first_segment, init_segment, run_onair, wait_until
from hls_rules import MediaPlaylist
from xserver import XServer

ROOT = (0x33, 0x66, 0x99)
RED, GREEN = (220, 20, 30), (20, 200, 60)


@pytest.fixture(scope="module")
def x(tmp_path_factory):
    server = XServer()
    server.run("xsetroot", "-solid", "#336699")
    server.red = server.window("onair red", "#dc141e", "320x240+100+100")
    server.green = server.window("onair green", "#14c83c", "200x200+800+300")
    yield server
    server.stop()


def publish(x, folder, *arguments, seconds=3):
    publisher = Publisher("--audio", "none", "--duration", f"{seconds}s", "--hls-dir", str(folder), *arguments,
                          display=x.display)
    return publisher


def finish(publisher):
    assert publisher.process.wait(timeout=60) == 0, publisher.output()
    return publisher.output()


def last_frame(folder):
    """The last picture published, as (width, height, rgb bytes)."""
    media = folder / "live/demo"
    playlist = MediaPlaylist((media / "media.m3u8").read_text())
    data = init_segment(media) + (media / playlist.segments[-1]["uri"]).read_bytes()
    probe = subprocess.run(["ffprobe", "-v", "error", "-count_packets", "-select_streams", "v",
                            "-show_entries", "stream=width,height,nb_read_packets", "-of", "csv=p=0", "-"],
                           input=data, capture_output=True, check=True).stdout.decode().strip()
    width, height, count = map(int, probe.split(","))
    rgb = subprocess.run(["ffmpeg", "-v", "error", "-i", "-", "-vf", f"select=eq(n\\,{count - 1})", "-frames:v", "1",
                          "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], input=data, capture_output=True, check=True).stdout
    return width, height, rgb


def pixel(frame, x, y):
    width, _, rgb = frame
    return tuple(rgb[(y * width + x) * 3:(y * width + x) * 3 + 3])


def near(colour, expected, tolerance=14):
    return all(abs(a - b) <= tolerance for a, b in zip(colour, expected))


def test_screen_shows_each_window_where_it_is(x, tmp_path):
    finish(publish(x, tmp_path, "--no-cursor"))
    frame = last_frame(tmp_path)
    assert frame[:2] == (1280, 720)
    assert near(pixel(frame, 260, 220), RED)
    assert near(pixel(frame, 900, 400), GREEN)
    assert near(pixel(frame, 600, 100), ROOT)
    assert near(pixel(frame, 90, 220), ROOT) and near(pixel(frame, 430, 220), ROOT), "the red window's edges"


def test_a_still_screen_repeats_frames_at_a_constant_rate(x, tmp_path):
    # The constant rate (--frame-rate constant): test_cadence has the screen-following one.
    output = finish(publish(x, tmp_path, "--no-cursor", "--fps", "25", "--frame-rate", "constant"))
    media = tmp_path / "live/demo"
    playlist = MediaPlaylist((media / "media.m3u8").read_text())
    frames = 0
    for segment in playlist.segments:
        data = init_segment(media) + (media / segment["uri"]).read_bytes()
        frames += int(subprocess.run(["ffprobe", "-v", "error", "-count_packets", "-select_streams", "v",
                                      "-show_entries", "stream=nb_read_packets", "-of", "csv=p=0", "-"],
                                     input=data, capture_output=True, check=True).stdout)
    assert abs(frames - 3 * 25) <= 1
    captured, repeated = map(int, re.search(r"(\d+) frames captured, (\d+) repeated", output).groups())
    assert captured + repeated == frames
    assert repeated >= frames - 5, "an unchanged screen is not read again"


def test_window_source_follows_the_window_and_survives_hiding(x, tmp_path):
    publisher = publish(x, tmp_path, "--source", "window:onair red", "--no-cursor", seconds=5)
    wait_until(lambda: first_segment(tmp_path / "live/demo"), 20, what="the first segment")
    x.red.send("hide")
    wait_until(lambda: "is hidden" in publisher.output(), 10, what="the hidden warning")
    x.red.send("show")
    x.red.send("move 600 50")
    wait_until(lambda: "is back" in publisher.output(), 10, what="the window to be back")
    output = finish(publisher)
    x.red.send("move 100 100")
    frame = last_frame(tmp_path)
    assert frame[:2] == (320, 240), "a window smaller than 720p is not upscaled"
    for point in [(5, 5), (160, 120), (314, 234)]:
        assert near(pixel(frame, *point), RED), f"{point}: {pixel(frame, *point)}"
    assert "window 0x" in output
    assert "[capture_interrupted] window" in output and "[capture_recovered] window" in output


def test_region_source_shows_that_rectangle(x, tmp_path):
    finish(publish(x, tmp_path, "--source", "region:400x300+50+50", "--no-cursor"))
    frame = last_frame(tmp_path)
    assert frame[:2] == (400, 300)
    assert near(pixel(frame, 20, 20), ROOT)
    assert near(pixel(frame, 200, 150), RED)


def test_size_letterboxes_without_distortion(x, tmp_path):
    finish(publish(x, tmp_path, "--source", "region:400x400+50+50", "--size", "640x360", "--no-cursor"))
    frame = last_frame(tmp_path)
    assert frame[:2] == (640, 360)
    assert near(pixel(frame, 60, 180), (0, 0, 0)) and near(pixel(frame, 580, 180), (0, 0, 0)), "bars at the sides"
    assert near(pixel(frame, 150, 10), ROOT) and near(pixel(frame, 490, 350), ROOT), "the picture fills the height"


@pytest.mark.parametrize("cursor", [True, False], ids=["cursor", "no-cursor"])
def test_the_pointer_is_drawn_unless_asked_not_to(x, tmp_path, cursor):
    x.run("xdotool", "mousemove", "640", "600")
    finish(publish(x, tmp_path, *([] if cursor else ["--no-cursor"])))
    frame = last_frame(tmp_path)
    around = [pixel(frame, px, py) for px in range(630, 650) for py in range(590, 610)]
    differs = [p for p in around if not near(p, ROOT)]
    assert bool(differs) == cursor, f"{len(differs)} pixels differ from the background"


def test_a_destroyed_window_ends_the_broadcast_after_the_grace_period(x, tmp_path):
    doomed = x.window("onair doomed", "#ffffff", "100x100+1000+50")
    publisher = publish(x, tmp_path, "--source", "window:onair doomed", "--window-grace", "1s", seconds=60)
    wait_until(lambda: first_segment(tmp_path / "live/demo"), 20, what="the first segment")
    doomed.close()
    output = finish(publisher)
    assert "is gone" in output
    assert MediaPlaylist((tmp_path / "live/demo/media.m3u8").read_text()).ended


def test_devices_lists_the_screen_and_windows(x):
    result = run_onair("devices", display=x.display)
    assert result.returncode == 0
    assert f"screen {x.display}  1280x720" in result.stdout
    assert re.search(r'0x[0-9a-f]+ "onair red" 320x240\+\d+\+\d+', result.stdout), result.stdout


@pytest.mark.parametrize("arguments, message", [
    (["--display", ":999"], "onair: cannot open X display ':999': set DISPLAY, pass --display, run under Xvfb, or use --source test"),
    (["--source", "window:no such window"], "onair: no window matches 'no such window'; close: "),
    (["--source", "window:onair"], "windows match 'onair': "),
    (["--source", "region:400x300+1000+600"], "onair: region 400x300+1000+600 is not inside the 1280x720 screen"),
    (["--source", "region:400x300"], "--source"),
    (["--size", "640x360", "--quality", "480p"], "give --size or --quality, not both"),
])
def test_bad_sources_are_one_line_and_status_2(x, arguments, message):
    result = run_onair("publish", *arguments, display=x.display)
    assert result.returncode == 2, result.stderr
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_a_resolution_change_keeps_the_output_size_and_fits_the_picture_again(tmp_path):
    server = XServer(1920, 1080)
    try:
        server.run("xsetroot", "-solid", "#336699")
        publisher = publish(server, tmp_path, "--no-cursor", seconds=4)
        wait_until(lambda: first_segment(tmp_path / "live/demo"), 20, what="the first segment")
        server.run("xrandr", "--newmode", "1024x768", "63.50", "1024", "1072", "1176", "1328", "768", "771", "775", "798")
        server.run("xrandr", "--addmode", "screen", "1024x768")
        server.run("xrandr", "--output", "screen", "--mode", "1024x768")
        server.run("xrandr", "--fb", "1024x768")
        finish(publisher)
    finally:
        server.stop()
    frame = last_frame(tmp_path)
    assert frame[:2] == (1280, 720), "the output keeps its size"
    # 1024x768 (4:3) fitted into 1280x720: 960x720 in the middle, black bars of 160 at the sides.
    assert near(pixel(frame, 60, 360), (0, 0, 0)) and near(pixel(frame, 1220, 360), (0, 0, 0))
    assert near(pixel(frame, 200, 360), ROOT) and near(pixel(frame, 1080, 360), ROOT)


def test_without_shared_memory_the_screen_is_read_with_xgetimage(tmp_path):
    # As on a remote display: an X server without MIT-SHM.
    server = XServer(1280, 720, "-extension", "MIT-SHM")
    try:
        server.run("xsetroot", "-solid", "#336699")
        server.window("onair red", "#dc141e", "320x240+100+100")
        output = finish(publish(server, tmp_path, "--no-cursor"))
    finally:
        server.stop()
    assert "the X server offers no shared memory (a remote display?): reading the screen with XGetImage" in output
    frame = last_frame(tmp_path)
    assert near(pixel(frame, 260, 220), RED) and near(pixel(frame, 700, 500), ROOT)
