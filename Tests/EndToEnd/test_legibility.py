"""Text stays legible at every moment. On a real 1920x1080 X screen (Xvfb) where someone types in
an editor and then stops, every frame of every segment that begins once the screen has been still
for 1 s — its IDR, the first picture a viewer who joins then sees, included — is compared with a
screenshot: SSIM of the luma ≥ 0.995, with and without Low-Latency HLS, at the default rate and
at half of it, after 4 s and after 60 s of typing; in AV1 at its own default rate (half H.264's),
at half of that, and with Low-Latency HLS, ≥ 0.9995. The cadence encodes a still screen's frames
seconds apart; the encoder budgets each for the time it stands for, not for a 30th of a second.
libaom's constrained quality gives a key frame the bytes a whole picture of text needs, where its
real-time CBR gave it three or four frames' worth (at half the rate: 0.9986–0.9996 before)."""

import datetime
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from harness import Publisher, fetch, read_line, wait_until
from hls_rules import MediaPlaylist
from xserver import XServer

EDITOR = Path(__file__).resolve().parents[2] / "scripts/bench/editor.py"
WIDTH, HEIGHT = 1920, 1080
SHARP = {"h264": 0.995, "av1": 0.9995}


@pytest.fixture(scope="module")
def screen():
    server = XServer(WIDTH, HEIGHT)
    yield server
    server.stop()


def wall(pdt):
    return datetime.datetime.fromisoformat(pdt.replace("Z", "+00:00")).timestamp()


def frame_sharpness(media, screenshot, folder):
    """SSIM Y of every frame of `media` (an init segment and a segment) against `screenshot`."""
    stats = folder / "ssim.txt"
    subprocess.run(["ffmpeg", "-v", "error", "-i", str(media), "-i", str(screenshot), "-lavfi",
                    f"[0]format=yuv420p[a];[1]format=yuv420p[b];[a][b]ssim=stats_file={stats}", "-f", "null", "-"],
                   check=True)
    return [float(value) for value in re.findall(r"Y:([0-9.]+)", stats.read_text())]


@pytest.mark.parametrize("codec,rate,low_latency,typing", [
    ("h264", "2500k", False, 4), ("h264", "1250k", False, 4), ("h264", "2500k", True, 4), ("h264", "1250k", True, 4),
    ("h264", "2500k", False, 60),
    ("av1", "1250k", False, 4), ("av1", "625k", False, 4), ("av1", "1250k", True, 4)],
    ids=["default", "half-rate", "low-latency", "low-latency-half-rate", "after-a-minute-of-typing",
         "av1", "av1-half-rate", "av1-low-latency"])
def test_once_the_screen_is_still_every_frame_is_as_sharp_as_the_screen(screen, tmp_path, codec, rate, low_latency,
                                                                        typing):
    editor = subprocess.Popen(["/usr/bin/python3", str(EDITOR), str(WIDTH), str(HEIGHT), "5", str(typing)],
                              stdout=subprocess.PIPE, text=True, env={**os.environ, "DISPLAY": screen.display})
    publisher = None
    try:
        assert read_line(editor.stdout, 30, what="the editor drawn").strip() == "ok"
        publisher = Publisher("--source", "screen", "--no-cursor", "--audio", "none", "--size", f"{WIDTH}x{HEIGHT}",
                              "--codec", codec, "--video-bitrate", rate, *(["--low-latency"] if low_latency else []),
                              display=screen.display)
        assert read_line(editor.stdout, typing + 30, what="the typing to end").strip() == "typed"
        still = time.time() + 0.1  # the last character drawn

        def sharp_segments():
            """Three segments that began 1 s or more after the screen went still, once listed."""
            playlist = MediaPlaylist(publisher.get("media.m3u8").text)
            later = [s for s in playlist.segments if wall(s["pdt"]) >= still + 1]
            return later[:3] if len(later) >= 3 else None
        segments = wait_until(sharp_segments, 30, what="three segments of a still screen")
        screenshot = tmp_path / "screen.png"
        subprocess.run(["ffmpeg", "-v", "error", "-f", "x11grab", "-video_size", f"{WIDTH}x{HEIGHT}", "-i",
                        screen.display, "-frames:v", "1", "-y", str(screenshot)], check=True)
        init = re.findall(r'#EXT-X-MAP:URI="([^"]+)"', publisher.get("media.m3u8").text)[-1]
        header = publisher.get(init).body
        seen = {}
        for segment in segments:
            media = tmp_path / segment["uri"].replace(".m4s", ".mp4")
            media.write_bytes(header + publisher.get(segment["uri"]).body)
            seen[segment["uri"]] = frame_sharpness(media, screenshot, tmp_path)
        print(codec, rate, "low-latency" if low_latency else "", f"{typing} s typing:", seen)
        for uri, frames in seen.items():
            assert frames, uri
            # The first frame is the segment's IDR: where a viewer who joins now begins.
            assert min(frames) >= SHARP[codec], (uri, frames)
    finally:
        if publisher:
            publisher.kill()
        editor.kill()
        editor.wait()
