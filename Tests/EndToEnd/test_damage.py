"""Redrawing only what changed on screen: after a sequence of changes (an animated area, a window
moved over it and closed, text typed, the pointer moved), the picture onair publishes equals a
conversion of the whole screen, at 1:1, scaled from 3840x2160 to 1920x1080, and from 1280x1024
between bars (no whole step: redrawn as whole rows); and a still
screen with a blinking caret reads a tiny part of the screen."""

import json
import os
import subprocess
from pathlib import Path

import pytest

from harness import Publisher, init_segment, read_line, wait_until
from hls_rules import MediaPlaylist
from xserver import XServer

HERE = Path(__file__).resolve().parent


class Scene:
    def __init__(self, server, width, height, folder):
        self.process = subprocess.Popen(
            ["/usr/bin/python3", str(HERE / "xscene.py"), str(width), str(height), str(folder)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env={**os.environ, "DISPLAY": server.display})
        self.confirmed()

    def confirmed(self):
        assert read_line(self.process.stdout, 30, what="scene").strip() == "ok"

    def send(self, command):
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        self.confirmed()

    def stop(self):
        self.process.kill()
        self.process.wait()


def capture_figures(publisher):
    response = publisher.control(method="GET")
    return json.loads(response.text)["stats"]["capture"]


def last_frame_planes(folder, width, height):
    """The last published picture's three planes (Y, Cb, Cr), as (bytes, width, height)."""
    media = folder / "live/demo"
    playlist = MediaPlaylist((media / "media.m3u8").read_text())
    data = init_segment(media) + (media / playlist.segments[-1]["uri"]).read_bytes()
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", "-", "-f", "rawvideo", "-pix_fmt", "yuv420p", "-"],
                         input=data, capture_output=True, check=True).stdout
    luma, chroma = width * height, (width // 2) * (height // 2)
    frame = raw[-(luma + 2 * chroma):]
    return [(frame[:luma], width, height), (frame[luma:luma + chroma], width // 2, height // 2),
            (frame[luma + chroma:], width // 2, height // 2)]


def worst_block(a, b, width, height, block=4):
    """The largest mean absolute difference of a block×block square, with its place."""
    worst = (0, 0, 0)
    for top in range(0, height - block + 1, block):
        rows = [(a[(top + r) * width:(top + r + 1) * width], b[(top + r) * width:(top + r + 1) * width])
                for r in range(block)]
        sums = [0] * (width // block)
        for p_row, q_row in rows:
            for column, (p, q) in enumerate(zip(p_row, q_row)):
                sums[column // block] += abs(p - q) if column // block < len(sums) else 0
        for index, total in enumerate(sums):
            if total > worst[0] * block * block:
                worst = (total / block / block, index * block, top)
    return worst


def publish(server, folder, output, *arguments):
    return Publisher("--source", "screen", "--audio", "none", "--hls-dir", str(folder), "--video-bitrate", "30M",
                     "--size", output, *arguments, display=server.display)


@pytest.mark.parametrize("screen, output", [("1280x720", "1280x720"), ("3840x2160", "1920x1080"), ("1280x1024", "1280x720")])
def test_a_picture_redrawn_in_parts_equals_the_whole_screen_converted(tmp_path, screen, output):
    width, height = map(int, screen.split("x"))
    out_width, out_height = map(int, output.split("x"))
    server = XServer(width, height)
    scene = Scene(server, width, height, tmp_path)
    parts = publish(server, tmp_path / "parts", output)
    whole = None
    try:
        parts.wait_for_segments(1)
        x = lambda v: v * width // 1280  # noqa: E731 - places given on a 1280x720 screen
        y = lambda v: v * height // 720  # noqa: E731
        scene.send(f"animate {x(600)} {y(300)} 320 240 10")
        scene.send(f"window {x(100)} {y(80)} 400 300")
        for place in [(x(300), y(150)), (x(557), y(251)), (x(623), y(287))]:  # odd places: off any grid
            scene.send(f"move {place[0]} {place[1]}")
        scene.send(f"animate {x(600)} {y(300)} 320 240 6")
        scene.send("close")  # over the busy area
        scene.send(f"entry {x(100)} {y(600)}")
        server.run("xdotool", "type", "--delay", "40", "onair redraws what changed")
        for place in [(x(700), y(500)), (x(901), y(403)), (x(1001), y(111))]:
            server.run("xdotool", "mousemove", str(place[0]), str(place[1]))
        # Still now: a whole second in which nothing was read, then one more frame slot.
        wait_until(lambda: capture_figures(parts)["pixelsReadPerSecond"] == 0, 15, what="a still screen")
        stats = json.loads(parts.control(method="GET").text)["stats"]
        figures = stats["capture"]
        assert parts.stop() == 0, parts.output()
        # The same screen converted whole: a new broadcast's first picture.
        whole = publish(server, tmp_path / "whole", output, "--duration", "2s")
        assert whole.process.wait(timeout=60) == 0, whole.output()
    finally:
        parts.kill()
        if whole:
            whole.kill()
        scene.stop()
        server.stop()
    # Parts were read: less than the whole screen for each picture captured (every picture read
    # whole would make these equal; the screen is still, so no picture is half counted).
    assert 0 < figures["pixelsRead"] < width * height * stats["framesCaptured"], stats
    assert figures["pixelsConverted"] < out_width * out_height * stats["framesCaptured"], stats
    ours = last_frame_planes(tmp_path / "parts", out_width, out_height)
    reference = last_frame_planes(tmp_path / "whole", out_width, out_height)
    for name, (a, w, h), (b, _, _) in zip("YUV", ours, reference):
        worst = worst_block(a, b, w, h)
        # Encoded at 30 Mb/s, two encodes of one picture differ by codec noise alone: 1.0 to 1.13
        # in the worst 4x4 block when the machine is idle, and up to 3.0 under a full test run's
        # load. A stale part (a change not redrawn) differs by tens. Seams, a few steps at most,
        # hide in that noise here; the unit tests (PictureFitterTests) check them on the scaler's
        # output itself, where pieces equal the whole conversion exactly.
        assert worst[0] < 8, f"{name}: the 4x4 block at {worst[1]},{worst[2]} differs by {worst[0]:.2f} on average"


def test_a_blinking_caret_reads_a_tiny_part_of_the_screen(tmp_path):
    server = XServer(1920, 1080)
    scene = Scene(server, 1920, 1080, tmp_path)
    publisher = publish(server, tmp_path / "caret", "1920x1080", "--no-cursor")
    try:
        publisher.wait_for_segments(1)
        scene.send("entry 200 200")
        scene.send("blink")
        wait_until(lambda: capture_figures(publisher)["pixelsReadPerSecond"] > 0, 15, what="the caret to be read")
        samples = []
        for _ in range(4):
            previous = capture_figures(publisher)
            wait_until(lambda: capture_figures(publisher) != previous, 5, what="a new second")
            samples.append(capture_figures(publisher))
    finally:
        publisher.kill()
        scene.stop()
        server.stop()
    screen = 1920 * 1080 * 30
    for sample in samples:
        # The caret blinks about three times a second: each time a few hundred pixels change,
        # read and converted with their margins.
        assert sample["pixelsReadPerSecond"] < 0.01 * screen, sample
        assert sample["pixelsConvertedPerSecond"] < 0.01 * screen, sample
    assert any(sample["pixelsReadPerSecond"] > 0 for sample in samples)
