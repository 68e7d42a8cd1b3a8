"""Faults injected for real: a publisher killed with SIGKILL and started again, and an --hls-dir
disk that fills up or turns read-only (a small tmpfs, remounted)."""

import json
import os
import signal
import re
import subprocess
from pathlib import Path

import pytest

from harness import Publisher, init_segment, segment_files, segment_picture, wait_until
from hls_rules import MediaPlaylist, check_media_playlist, check_recording

SMALL = ["--source", "test", "--size", "640x360", "--segment-duration", "1"]


def folder_is_consistent(media):
    """The folder's playlist names only whole files that are there, and no temporary file is left
    that a reader could take for one. Returns the playlist."""
    playlist = MediaPlaylist((media / "media.m3u8").read_text())
    for segment in playlist.segments:
        assert (media / segment["uri"]).exists(), f"{segment['uri']} is named but missing"
    for line in (media / "media.m3u8").read_text().splitlines():
        if line.startswith("#EXT-X-MAP:URI="):
            assert (media / line.split('"')[1]).exists()
    return playlist


def decoded_frames(playlist_file, slots=False):
    """Frames ffmpeg decodes from a folder's playlist, read to its end as it is now (a live
    playlist gets an ENDLIST in a copy), failing on any decoding error. `slots`: the 30 fps frame
    slots the decoded pictures cover (a screen's frames follow what changes on it: a picture lasts
    until the next), not the pictures themselves."""
    text = playlist_file.read_text()
    copy = playlist_file.with_name(".decode.m3u8")
    copy.write_text(text if "#EXT-X-ENDLIST" in text else text + "#EXT-X-ENDLIST\n")
    try:
        result = subprocess.run(["ffmpeg", "-v", "error", "-i", str(copy), "-map", "0:v", "-f", "null", "-"],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode == 0 and result.stderr == "", result.stderr
        if slots:
            result = subprocess.run(["ffmpeg", "-v", "error", "-i", str(copy), "-map", "0:v", "-vf", "fps=30",
                                     "-f", "null", "-progress", "pipe:1", "-nostats", "-"],
                                    capture_output=True, text=True, timeout=120, check=True)
            return int(re.findall(r"^frame=(\d+)$", result.stdout, re.MULTILINE)[-1])
        result = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v",
                                 "-show_entries", "stream=nb_read_frames", "-of", "csv=p=0", str(copy)],
                                capture_output=True, text=True, timeout=120, check=True)
        return int(result.stdout.split()[0])
    finally:
        copy.unlink()


def check_every_run_decodes(playlist_file):
    """Each run a playlist holds (split at its discontinuities: ffmpeg's HLS reader drops a segment
    at an fMP4 discontinuity, so each is read on its own; browsers play across it, see test_web)
    decodes completely: its pictures cover as many 30 fps frame slots as its segments last."""
    head, *tails = playlist_file.read_text().split("#EXT-X-DISCONTINUITY\n")
    header = head.split("#EXT-X-PROGRAM-DATE-TIME", 1)[0].split("#EXT-X-MAP")[0]
    for index, text in enumerate([head] + [header + tail for tail in tails]):
        run = playlist_file.with_name(f".run{index}.m3u8")
        run.write_text(text)
        try:
            expected = 30 * MediaPlaylist(text).duration
            assert abs(decoded_frames(run, slots=True) - expected) <= 1 and expected > 0, f"run {index}"
        finally:
            run.unlink()


def download(publisher, folder):
    """What a viewer downloads now: the media playlist and every file it names, into `folder`."""
    folder.mkdir()
    text = publisher.get("media.m3u8").text
    names = [line for line in text.splitlines() if line and not line.startswith("#")]
    names += [line.split('"')[1] for line in text.splitlines() if line.startswith("#EXT-X-MAP:URI=")]
    for name in names:
        response = publisher.get(name)
        assert response.status == 200, name
        (folder / name).write_bytes(response.body)
    (folder / "media.m3u8").write_text(text)
    return folder / "media.m3u8"


def test_after_sigkill_the_folder_is_valid_and_a_restart_continues_the_numbers(tmp_path):
    media = tmp_path / "live/demo"
    first = Publisher(*SMALL, "--hls-dir", str(tmp_path))
    try:
        # The segment is written before the playlist that names it: wait for the playlist.
        wait_until(lambda: (media / "media.m3u8").exists() and (media / "media.m3u8").read_text().count("#EXTINF") >= 5,
                   30, what="five segments listed")
        first.process.send_signal(signal.SIGKILL)
        first.process.wait(timeout=10)
    finally:
        first.kill()
    killed = folder_is_consistent(media)
    assert not killed.ended and len(killed.segments) >= 5
    assert not list(media.glob(".*.tmp")), "no half-written file is left"
    assert decoded_frames(media / "media.m3u8") == 30 * len(killed.segments)
    last = killed.sequence + len(killed.segments) - 1

    second = Publisher(*SMALL, "--hls-dir", str(tmp_path), "--playlist-size", "10")
    try:
        def continued():
            response = second.get("media.m3u8")
            if not response or response.status != 200:
                return None
            playlist = MediaPlaylist(response.text)
            return playlist if any(s["uri"] == f"seg{last + 2}.m4s" for s in playlist.segments) else None
        playlist = wait_until(continued, 30, what="two segments of the second run")
        text = second.get("media.m3u8").text
        assert f"after {len(killed.segments)} of the earlier run's" in second.output()
        # The earlier run's segments stay listed, the numbers go on, with a discontinuity between.
        names = [s["uri"] for s in playlist.segments]
        assert names[:names.index(f"seg{last + 1}.m4s")] == [s["uri"] for s in killed.segments][-len(names):][
            :names.index(f"seg{last + 1}.m4s")]
        assert playlist.sequence == killed.sequence
        before_new = text.split(f"seg{last}.m4s\n", 1)[1].split(f"seg{last + 1}.m4s", 1)[0]
        assert before_new.startswith("#EXT-X-DISCONTINUITY\n")
        assert f'#EXT-X-MAP:URI="init{last + 1}.mp4"' in before_new
        assert text.count("#EXT-X-DISCONTINUITY\n") == 1 and "#EXT-X-DISCONTINUITY-SEQUENCE:0" in text
        # Every frame a viewer downloads decodes, on both sides of the restart.
        check_every_run_decodes(download(second, tmp_path / "viewer"))
        assert second.stop() == 0
    finally:
        second.kill()
    final = folder_is_consistent(media)
    assert final.ended
    check_media_playlist(final, "fmp4", window=10)
    check_every_run_decodes(media / "media.m3u8")
    leftovers = {p.name for p in media.iterdir()} - {s["uri"] for s in final.segments}
    assert all(not name.startswith("seg") or int(name[3:-4]) >= final.sequence - 10 for name in leftovers), \
        f"the killed run's old segments are cleaned up: {sorted(leftovers)}"


@pytest.fixture
def small_disk(tmp_path):
    """A 6 MB tmpfs: small enough to fill."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mount = tmp_path / "disk"
    mount.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6m", "onair-test", str(mount)], check=True)
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=True)


def listed_over_http(publisher):
    return MediaPlaylist(publisher.get("media.m3u8").text)


def test_a_full_disk_is_reported_once_and_the_folder_catches_up_when_space_returns(small_disk):
    media = small_disk / "live/demo"
    publisher = Publisher(*SMALL, "--hls-dir", str(small_disk))
    filler = small_disk / "filler"
    try:
        wait_until(lambda: len(segment_files(media)) >= 2, 30, what="two segments on disk")
        subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=64k"], capture_output=True)
        wait_until(lambda: "[disk_write_failed]" in publisher.output(), 20, what="the disk_write_failed event")
        failed_at = listed_over_http(publisher)
        wait_until(lambda: listed_over_http(publisher).sequence >= failed_at.sequence + 3, 30,
                   what="three more segments served from memory")
        folder_is_consistent(media)
        assert not list(media.glob(".*.tmp")), "partial files are taken back"
        assert publisher.output().count("[disk_write_failed]") == 1, "said once, not once per segment"
        filler.unlink()
        wait_until(lambda: "[disk_write_recovered]" in publisher.output(), 20, what="the recovery")
        served = listed_over_http(publisher)
        on_disk = folder_is_consistent(media)
        assert on_disk.sequence >= served.sequence - 1, "the folder caught up with the live window"
        assert decoded_frames(media / "media.m3u8") == 30 * len(on_disk.segments)
        assert publisher.stop() == 0
    finally:
        publisher.kill()
    assert publisher.output().count("[disk_write_failed]") == 1
    assert MediaPlaylist((media / "media.m3u8").read_text()).ended


def test_a_read_only_disk_is_survived_and_mirroring_resumes(small_disk):
    media = small_disk / "live/demo"
    publisher = Publisher(*SMALL, "--hls-dir", str(small_disk))
    try:
        wait_until(lambda: len(segment_files(media)) >= 2, 30, what="two segments on disk")
        subprocess.run(["mount", "-o", "remount,ro", str(small_disk)], check=True)
        wait_until(lambda: "[disk_write_failed]" in publisher.output(), 20, what="the disk_write_failed event")
        assert "Read-only file system" in publisher.output() or "read-only" in publisher.output().lower()
        frozen = folder_is_consistent(media)
        served = listed_over_http(publisher)
        wait_until(lambda: listed_over_http(publisher).sequence >= served.sequence + 2, 30,
                   what="viewers still served")
        subprocess.run(["mount", "-o", "remount,rw", str(small_disk)], check=True)
        wait_until(lambda: "[disk_write_recovered]" in publisher.output(), 20, what="the recovery")
        caught_up = folder_is_consistent(media)
        assert caught_up.sequence > frozen.sequence
        assert publisher.stop() == 0
    finally:
        subprocess.run(["mount", "-o", "remount,rw", str(small_disk)])
        publisher.kill()
    assert publisher.output().count("[disk_write_failed]") == 1


def test_a_full_recording_disk_costs_the_live_stream_nothing_and_the_recording_goes_on(small_disk):
    publisher = Publisher(*SMALL, "--record", str(small_disk), channel="kept")
    filler = small_disk / "filler"

    def recording():
        folders = [f for f in (small_disk / "kept").iterdir() if f.is_dir()] if (small_disk / "kept").exists() else []
        path = folders[0] / "media.m3u8" if folders else None
        return (folders[0], MediaPlaylist(path.read_text())) if path and path.exists() else (None, None)
    try:
        wait_until(lambda: (r := recording()[1]) and len(r.segments) >= 2, 30, what="two recorded segments")
        subprocess.run(["dd", "if=/dev/zero", f"of={filler}", "bs=64k"], capture_output=True)
        wait_until(lambda: "[record_failed]" in publisher.output(), 20, what="the record_failed event")
        failed_at = listed_over_http(publisher)
        wait_until(lambda: listed_over_http(publisher).sequence >= failed_at.sequence + 3, 30,
                   what="three more segments served live")
        # Valid up to its last whole segment: every file it names is there, nothing half-written.
        folder, held = recording()
        check_recording(held, "fmp4")
        assert all((folder / s["uri"]).is_file() for s in held.segments)
        assert not list(folder.glob(".*.tmp"))
        assert publisher.output().count("[record_failed]") == 1, "said once, not once per segment"
        filler.unlink()
        wait_until(lambda: "[record_recovered]" in publisher.output(), 20, what="the recovery")
        wait_until(lambda: len(recording()[1].segments) > len(held.segments), 10, what="the recording to go on")
        assert publisher.stop() == 0
    finally:
        publisher.kill()
    folder, final = recording()
    check_recording(final, "fmp4")
    assert final.ended
    # Caught up: what was cut while the disk was full was still in the live timeline's windows, so
    # nothing is missing (no discontinuity); the recording holds the whole broadcast.
    assert not any(s.get("discontinuity") for s in final.segments)
    assert len(final.segments) >= len(held.segments) + 3
    assert all((folder / s["uri"]).is_file() for s in final.segments)
    assert decoded_frames(folder / "media.m3u8") == round(30 * sum(s["duration"] for s in final.segments))


def near(colour, expected, tolerance=16):
    return all(abs(a - b) <= tolerance for a, b in zip(colour, expected))


def listed(media):
    path = media / "media.m3u8"
    return MediaPlaylist(path.read_text()) if path.exists() else None


def newest(media):
    playlist = listed(media)
    return playlist.sequence + len(playlist.segments) - 1 if playlist and playlist.segments else -1


def test_the_x_server_going_away_shows_a_card_and_capture_resumes_when_it_returns(tmp_path):
    from xserver import XServer
    server = XServer(1280, 720)
    server.run("xsetroot", "-solid", "#3366cc")
    media = tmp_path / "live/demo"
    publisher = Publisher("--source", "screen", "--audio", "none", "--quality", "360p", "--segment-duration", "1",
                          "--playlist-size", "30", "--hls-dir", str(tmp_path), display=server.display)
    returned = None
    try:
        first = publisher.first_sequence()
        wait_until(lambda: newest(media) >= first + 1, 30, what="two segments of the screen")
        assert near(segment_picture(media, first + 1, 640, 360)(20, 20), (0x33, 0x66, 0xcc))
        server.stop()
        wait_until(lambda: "[capture_interrupted]" in publisher.output(), 10, what="capture_interrupted")
        lost_at = newest(media)
        wait_until(lambda: newest(media) >= lost_at + 3, 30, what="segments while the display is away")
        card = segment_picture(media, lost_at + 2, 640, 360)
        # The last picture at 40 %, and the card's dark box in the middle.
        assert near(card(20, 20), (0x33 * 2 // 5, 0x66 * 2 // 5, 0xcc * 2 // 5), 12), card(20, 20)
        assert all(c < 40 for c in card(320, 150)), card(320, 150)
        assert publisher.process.poll() is None

        returned = XServer(1280, 720, display=server.display)
        returned.run("xsetroot", "-solid", "#22aa44")
        wait_until(lambda: "[capture_recovered]" in publisher.output(), 15, what="capture_recovered")
        back_at = newest(media)
        wait_until(lambda: newest(media) >= back_at + 2, 30, what="segments after the display returned")
        assert near(segment_picture(media, back_at + 2, 640, 360)(20, 20), (0x22, 0xaa, 0x44))
        assert publisher.stop() == 0
    finally:
        publisher.kill()
        if returned:
            returned.stop()
    # One timeline through it all: every segment listed, every frame there.
    final = folder_is_consistent(media)
    assert final.ended and final.sequence == first
    check_every_run_decodes(media / "media.m3u8")


def test_a_display_that_does_not_come_back_ends_the_broadcast_cleanly(tmp_path):
    from xserver import XServer
    server = XServer(640, 360)
    media = tmp_path / "live/demo"
    publisher = Publisher("--source", "screen", "--audio", "none", "--segment-duration", "1",
                          "--reconnect-timeout", "3s", "--hls-dir", str(tmp_path), display=server.display)
    try:
        wait_until(lambda: newest(media) >= publisher.first_sequence() + 1, 30, what="two segments")
        server.stop()
        assert publisher.process.wait(timeout=30) == 0
    finally:
        publisher.kill()
    output = publisher.output()
    assert "[capture_interrupted] the X server of" in output and "did not come back in 3 s" in output
    final = folder_is_consistent(media)
    assert final.ended
    check_every_run_decodes(media / "media.m3u8")


def test_a_starved_encoder_drops_frames_reports_it_and_keeps_the_stream_valid_and_in_sync(tmp_path):
    # Three busy loops and onair, niced, on one core: 1080p cannot be encoded at 30 fps there.
    hogs = [subprocess.Popen(["taskset", "-c", "0", "python3", "-c", "while True: pass"]) for _ in range(3)]
    try:
        publisher = Publisher("--source", "test", "--size", "1920x1080", "--segment-duration", "1",
                              "--playlist-size", "30", "--duration", "12s", "--hls-dir", str(tmp_path),
                              prefix=("taskset", "-c", "0", "nice", "-n", "10"))
        try:
            assert publisher.process.wait(timeout=90) == 0
        finally:
            publisher.kill()
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    output = publisher.output()
    assert "[encoder_overloaded] the encoder cannot keep up:" in output
    dropped = int(output.split(" repeated, ")[1].split(" dropped")[0])
    assert dropped > 0
    media = tmp_path / "live/demo"
    final = folder_is_consistent(media)
    assert final.ended
    check_media_playlist(final, "fmp4", window=30)
    assert len(final.segments) == 12, "every grid point still ends a segment"
    data = init_segment(media) + b"".join((media / s["uri"]).read_bytes() for s in final.segments)
    packets = json.loads(subprocess.run(
        ["ffprobe", "-v", "error", "-of", "json", "-show_entries", "packet=stream_index,pts,pts_time", "-"],
        input=data, capture_output=True, check=True).stdout)["packets"]
    video = [float(p["pts_time"]) for p in packets if p["stream_index"] == 0]
    audio = [p["pts"] for p in packets if p["stream_index"] == 1]
    assert len(video) <= 360 - dropped + 1
    # The picture spans the twelve seconds, whatever was dropped on the way.
    assert video[0] < 1 and video[-1] > 11
    # Sound is never dropped: each AAC frame of 1024 samples (at 48 kHz, the track's time base)
    # follows the one before, to the sample.
    steps = [(index, after - before) for index, (before, after) in enumerate(zip(audio, audio[1:])) if after - before != 1024]
    assert not steps, f"audio frames not back to back (packet, step in samples): {steps[:10]}"
    # Both tracks are on the one clock: every frame at its capture slot (a multiple of 1/30 s, as
    # the sound is at its sample count from 0), and in sync within 45 ms at both ends.
    off = [t for t in video if abs(t * 30 - round(t * 30)) >= 0.001]
    assert not off, f"frames stamped off their capture slots: {off[:10]}"
    assert abs(audio[0] / 48000 - video[0]) < 0.045
    assert abs((audio[-1] + 1024) / 48000 - (video[-1] + 1 / 30)) < 0.045
