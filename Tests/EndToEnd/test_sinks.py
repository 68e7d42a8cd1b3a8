"""Publication sinks are isolated: a sink that is slow (here the --hls-dir folder on a disk where
each file takes 10 s to put in place) delays neither the live stream nor Low-Latency HLS viewers,
says what it skipped, and catches up once the disk is fast again, its folder valid throughout."""

import json
import subprocess
import time
from pathlib import Path

from harness import Publisher, free_port, run_onair, wait_until
from hls_rules import MediaPlaylist, check_media_playlist, next_part
from test_faults import folder_is_consistent


def slow_disk_library(tmp_path):
    library = tmp_path / "slowdisk.so"
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(library), str(Path(__file__).parent / "native/slowdisk.c"),
                    "-ldl"], check=True)
    return library


def assert_no_frame_waited(stats):
    """No frame was dropped for waiting. A stage held up by the disk drops frames while the capture
    keeps its slots; a stall of the whole process (1.5 s in one CI run, the same figures as a
    SIGSTOP of 1.5 s makes: 45 slots missed and repeated, 37 frames dropped) misses the capture's
    slots too, and the repeats made on waking are what the encoder's queue drops, newest kept."""
    assert stats["framesDropped"] <= stats["framesRepeated"], stats


def test_a_slow_folder_delays_nothing_else_and_catches_up(tmp_path):
    folder = tmp_path / "hls"
    media = folder / "live/demo"
    switch = tmp_path / "slow"
    switch.touch()
    publisher = Publisher("--source", "test", "--size", "640x360", "--segment-duration", "1", "--low-latency",
                          "--part-duration", "0.2", "--hls-dir", str(folder),
                          env={"LD_PRELOAD": str(slow_disk_library(tmp_path)), "ONAIR_SLOW_DIR": str(folder),
                               "ONAIR_SLOW_SWITCH": str(switch), "ONAIR_SLOW_SECONDS": "10"})
    try:
        publisher.wait_for_segments(1)
        # Parts reach a player following blocking reloads at their own pace while the folder is stuck.
        text = publisher.get("media.m3u8").text
        arrivals = []
        deadline = time.monotonic() + 12
        while time.monotonic() < deadline:
            msn, part = next_part(text)
            response = publisher.get(f"media.m3u8?_HLS_msn={msn}&_HLS_part={part}")
            assert response.status == 200
            text = response.text
            arrivals.append(time.monotonic())
            if (media / "media.m3u8").exists():
                folder_is_consistent(media)
        gaps = [b - a for a, b in zip(arrivals, arrivals[1:])]
        assert len(arrivals) >= 40, f"{len(arrivals)} parts in 12 s"
        assert max(gaps) < 1.0, f"a part came {max(gaps):.2f} s after the one before"
        assert "[disk_write_caught_up]" not in publisher.output()
        # The disk becomes fast again: the folder says what it skipped and catches up.
        switch.unlink()
        wait_until(lambda: "[disk_write_caught_up]" in publisher.output(), 40, what="the folder catching up")
        output = publisher.output()
        assert output.index("[disk_write_behind]") < output.index("[disk_write_caught_up]")
        assert "left the playlist before" in output
        served = MediaPlaylist(publisher.get("media.m3u8").text)
        on_disk = folder_is_consistent(media)
        assert on_disk.sequence >= served.sequence - 2, "the folder is back near the live window"
        assert_no_frame_waited(json.loads(publisher.control(method="GET").text)["stats"])
        assert publisher.stop() == 0
    finally:
        publisher.kill()
    final = folder_is_consistent(media)
    assert final.ended
    check_media_playlist(final, "fmp4", window=6)
    assert not list(media.glob(".*.tmp"))


def test_a_slow_disk_at_the_start_drops_no_frame(tmp_path):
    """Every open, rename and unlink in the folder takes 400 ms: the broadcast may start later, but
    once its clock runs no frame waits on the disk."""
    folder = tmp_path / "hls"
    switch = tmp_path / "slow"
    switch.touch()
    publisher = Publisher("--source", "test", "--low-latency", "--hls-dir", str(folder),
                          env={"LD_PRELOAD": str(slow_disk_library(tmp_path)), "ONAIR_SLOW_DIR": str(folder),
                               "ONAIR_SLOW_SWITCH": str(switch), "ONAIR_SLOW_MS": "400"})
    try:
        publisher.wait_for_segments(1)
        stats = wait_until(lambda: (s := json.loads(publisher.control(method="GET").text)["stats"])
                           and s["framesCaptured"] >= 300 and s, 30, what="10 s of frames")
        assert_no_frame_waited(stats)  # ([encoder_overloaded] says only that frames were dropped)
        wait_until(lambda: (folder / "live/demo/media.m3u8").exists(), 30, what="the folder's playlist")
    finally:
        publisher.kill()


def test_only_files_onair_wrote_are_ever_removed_from_the_folder(tmp_path):
    """The folder may hold a person's own files, whatever their names: onair removes only what it
    wrote, or what its own earlier playlist names under its exact names, as plain files."""
    channel = tmp_path / "live/c"
    (channel / "segments-archive/2025").mkdir(parents=True)
    (channel / "segments-archive/2025/old.mp4").write_text("x")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "seg0.m4s").write_text("x")
    (channel / "parts").symlink_to(elsewhere, target_is_directory=True)
    foreign = ["partners.csv", "initial-setup.sh", "segway.txt", "backup.m3u8", "README.txt", "seg99.m4s",
               ".seg99.m4s.tmp", "init.mp4.bak"]
    for name in foreign:
        (channel / name).write_text("x")
    for run in range(2):  # the second run takes over the first one's playlist
        result = run_onair("publish", "--channel", "c", "--source", "test", "--audio", "test", "--duration", "3s",
                           "--port", str(free_port()), "--host", "127.0.0.1", "--hls-dir", str(tmp_path))
        assert result.returncode == 0, result.stderr
        assert MediaPlaylist((channel / "media.m3u8").read_text()).ended
    for name in foreign:
        assert (channel / name).read_text() == "x", name
    assert (channel / "segments-archive/2025/old.mp4").read_text() == "x"
    assert (elsewhere / "seg0.m4s").read_text() == "x" and (channel / "parts").is_symlink()
