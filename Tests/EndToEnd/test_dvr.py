"""Rewind while live (--dvr): the window's playlists and files on disk, what viewers get of them, and
rewinding and coming back to live in Chromium with both player engines."""

import re
import time

import pytest
from selenium.webdriver.common.by import By

from browser import player_status, save_screenshot
from harness import Publisher, ffprobe, fetch, init_name, run_onair, wait_until
from hls_rules import MediaPlaylist, check_history, check_media_playlist, check_multivariant

ENGINES = ["native", "mse"]


def window_of(publisher, rendition=""):
    response = publisher.get(f"{rendition}dvr-media.m3u8")
    assert response.status == 200, response.status
    return MediaPlaylist(response.text)


def served(publisher, name):
    """True once the server answers `name` with 200 (None while it does not answer at all)."""
    response = publisher.get(name)
    return response is not None and response.status == 200


def sequence_of(uri):
    return int(uri.removeprefix("seg").split(".")[0])


@pytest.fixture(scope="module")
def short(tmp_path_factory):
    """A channel with a 30 s window, and its window's folder."""
    folder = tmp_path_factory.mktemp("dvr")
    publisher = Publisher("--dvr", "30s", "--dvr-dir", str(folder), "--playlist-size", "3")
    publisher.wait_for_segments(1)
    # The window's playlist is written on its own thread, after the live store has the segment.
    wait_until(lambda: served(publisher, "dvr-media.m3u8"), 10, what="the window's playlist")
    yield publisher, folder
    publisher.kill()


def test_the_window_is_a_playlist_of_its_own_numbered_as_live(short, tmp_path):
    publisher, folder = short
    history = []
    first = publisher.first_sequence()
    # Until the window has slid: 30 s kept, 3 segments of 2 s live.
    deadline = time.monotonic() + 75
    while True:
        window = window_of(publisher)
        history.append((time.monotonic(), window))
        if window.sequence >= first + 4 or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert window.sequence >= first + 4, "the window slid"
    check_history(history)
    check_media_playlist(window, "fmp4", window=10)
    # The last 30 s: what follows the head fills less than the window.
    assert 30 <= window.duration < 32, window.duration
    # Whole segments only, never parts; numbered and timed as the live playlist numbers and times them.
    live = MediaPlaylist(publisher.get("media.m3u8").text)
    assert "EXT-X-PART-INF" not in window.tags
    by_uri = {segment["uri"]: segment for segment in window.segments}
    for offset, segment in enumerate(live.segments):
        if segment["uri"] in by_uri:
            assert by_uri[segment["uri"]]["pdt"] == segment["pdt"]
            assert window.segments.index(by_uri[segment["uri"]]) + window.sequence == live.sequence + offset
    assert [sequence_of(s["uri"]) for s in window.segments] == list(
        range(window.sequence, window.sequence + len(window.segments)))
    # A segment the live store has let go is served from the window, and plays.
    oldest = window.segments[0]["uri"]
    assert oldest not in [s["uri"] for s in live.segments]
    response = publisher.get(oldest)
    assert response.status == 200 and response.headers["content-type"] == "video/mp4"
    assert "immutable" in response.headers["cache-control"]
    assert response.body == (folder / next(folder.iterdir()).name / oldest).read_bytes()
    sample = tmp_path / "oldest.mp4"
    sample.write_bytes(publisher.get(init_name(publisher.get("media.m3u8").text)).body + response.body)
    probe = ffprobe(sample, "-show_packets")
    assert {s["codec_type"] for s in probe["streams"]} == {"video", "audio"}
    assert len([p for p in probe["packets"] if p["stream_index"] == 0]) == 60
    # The multivariant playlist points at the window.
    index = publisher.get("dvr.m3u8")
    assert index.status == 200 and index.headers["content-type"] == "application/vnd.apple.mpegurl"
    assert [v["URI"] for v in check_multivariant(index.text)] == ["dvr-media.m3u8"]


def test_files_that_left_the_window_leave_the_disk(short):
    publisher, folder = short
    first = publisher.first_sequence()
    wait_until(lambda: window_of(publisher).sequence >= first + 8, 60, what="the window to slide 8 segments")
    window = window_of(publisher)
    [run] = list(folder.iterdir())
    assert run.name == f"demo.{publisher.process.pid}"
    on_disk = sorted(sequence_of(p.name) for p in run.glob("seg*.m4s"))
    # What the window lists, and the 3 target durations of media after a segment left it.
    assert on_disk[-1] >= window.sequence + len(window.segments) - 1
    assert window.sequence - 4 <= on_disk[0] <= window.sequence, (on_disk[0], window.sequence)
    assert publisher.get(f"seg{on_disk[0] - 1}.m4s").status == 404
    assert not list(run.glob(".*.tmp"))


def test_a_window_from_a_segment_starts_there_with_three_target_durations(short):
    publisher, _ = short
    window = window_of(publisher)
    start = window.sequence + 2
    index = publisher.get(f"dvr.m3u8?from={start}&session=abc")
    assert f"dvr-media.m3u8?session=abc&from={start}" in index.text
    from_there = MediaPlaylist(publisher.get(f"dvr-media.m3u8?from={start}").text)
    assert from_there.sequence == start and from_there.segments[0]["uri"] == f"seg{start}.m4s"
    check_media_playlist(from_there, "fmp4", window=1)
    # Too near the live edge: the last three target durations, which players need to start.
    near = MediaPlaylist(publisher.get("dvr-media.m3u8?from=99999999999").text)
    assert near.duration >= 6 and near.segments[-1]["uri"] == window_of(publisher).segments[-1]["uri"]
    assert publisher.get("dvr-media.m3u8?from=x").status == 400


def test_a_number_in_a_viewers_query_never_takes_the_server_down(short):
    """Any viewer may send any number: each out of its range is one 400 saying the range, and the
    server goes on (a delay of 9.3e15 s once trapped the process in its arithmetic)."""
    publisher, _ = short
    for query, reason in [
        ("dvr-media.m3u8?delay=9300000000000000", "delay must be at most 604800"),
        ("dvr-media.m3u8?delay=999999999999999999", "delay must be at most 604800"),
        ("dvr.m3u8?delay=604801", "delay must be at most 604800"),
        ("dvr-media.m3u8?from=1125899906842624", "from must be at most 1125899906842623"),
        ("media.m3u8?_HLS_msn=999999999999999999", "_HLS_msn must be at most 1125899906842623"),
    ]:
        response = publisher.get(query)
        assert response is not None and response.status == 400 and reason in response.text, (query, response)
        assert publisher.process.poll() is None, f"the server died of {query}"
    # The longest delay there is: a week back is before the window began, so its head and the three
    # target durations a player needs to start (or all of it, while it is younger than that).
    window = window_of(publisher)
    oldest = MediaPlaylist(publisher.get("dvr-media.m3u8?delay=604800").text)
    assert min(6, window.duration) <= oldest.duration <= 8.5, (oldest.duration, window.duration)
    assert abs(oldest.sequence - window.sequence) <= 1 and not oldest.ended


def test_a_folder_that_cannot_be_written_is_refused_before_anything_starts(tmp_path):
    (tmp_path / "a-file").write_text("")
    result = run_onair("publish", "--dvr", "2h", "--dvr-dir", str(tmp_path / "a-file" / "dvr"), timeout=20)
    assert result.returncode == 2
    assert "is not writable; choose one you can write to with --dvr-dir" in result.stderr


def test_bad_windows_are_refused_before_anything_starts():
    for arguments, message in [
        (["--dvr", "10s"], "--dvr 10s is out of range"),
        (["--dvr", "200h"], "--dvr 200h is out of range"),
        (["--dvr-dir", "/tmp"], "--dvr-dir needs --dvr"),
        (["--dvr", "1h", "--no-serve", "--push", "http://127.0.0.1:9/x/"], "--dvr needs the built-in server"),
    ]:
        result = run_onair("publish", *arguments, timeout=20)
        assert result.returncode == 2, (arguments, result.stderr)
        assert message in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) <= 2, result.stderr


def test_the_window_is_removed_when_the_broadcast_stops(tmp_path):
    publisher = Publisher("--dvr", "1m", "--dvr-dir", str(tmp_path))
    try:
        publisher.wait_for_segments(2)
        info = fetch(f"{publisher.base}/api/channels").json()[0]
        assert info["dvrSeconds"] == 60 and info["dvrPlaylist"] == "/live/demo/dvr.m3u8"
        assert "viewers can rewind 1 min" in publisher.output()
        run = tmp_path / f"demo.{publisher.process.pid}"
        assert (run / "dvr-media.m3u8").exists()
        assert (run / ".onair-dvr").exists()
        # A folder a killed run left behind goes at the next start; one onair did not make stays.
        stale = tmp_path / "demo.999999999"
        stale.mkdir()
        (stale / ".onair-dvr").write_text("")
        (stale / "seg1.m4s").write_bytes(b"x")
        not_ours = tmp_path / "demo.999999998"
        not_ours.mkdir()
        (not_ours / "keep.txt").write_text("mine")
        assert publisher.stop() == 0
        assert not run.exists()
    finally:
        publisher.kill()
    again = Publisher("--dvr", "1m", "--dvr-dir", str(tmp_path))
    try:
        again.wait_for_segments(1)
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted([f"demo.{again.process.pid}", "demo.999999998"])
        assert (not_ours / "keep.txt").read_text() == "mine"
    finally:
        again.kill()


def test_a_ladder_has_a_window_per_rendition(tmp_path):
    publisher = Publisher("--renditions", "720p,360p", "--dvr", "1m", "--dvr-dir", str(tmp_path), channel="ladder")
    try:
        wait_until(lambda: all(served(publisher, f"{rendition}/dvr-media.m3u8") for rendition in ("720p", "360p", "audio")),
                   30, what="every rendition's window")
        index = publisher.get("dvr.m3u8").text
        check_multivariant(index)
        assert "720p/dvr-media.m3u8" in index and "360p/dvr-media.m3u8" in index
        assert 'URI="audio/dvr-media.m3u8"' in index
        windows = {rung: window_of(publisher, rung + "/") for rung in ("720p", "360p")}
        assert windows["720p"].sequence == windows["360p"].sequence
        assert [s["pdt"] for s in windows["720p"].segments[:2]] == [s["pdt"] for s in windows["360p"].segments[:2]]
    finally:
        publisher.kill()


# In the browser: a channel that has been live long enough to rewind 40 s.

@pytest.fixture(scope="module")
def long_live(tmp_path_factory):
    publisher = Publisher("--dvr", "5m", "--dvr-dir", str(tmp_path_factory.mktemp("dvr-long")), channel="rewind")
    wait_until(lambda: served(publisher, "dvr-media.m3u8")
               and MediaPlaylist(publisher.get("dvr-media.m3u8").text).duration >= 52, 120,
               interval=1, what="52 s in the rewind window")
    yield publisher
    publisher.kill()


def picture_behind(page):
    """Seconds between now and the capture time written into the frame on screen."""
    return page.execute_script(
        "const wall = OnairTimeCode.read(window.onair.video); return wall === null ? null : (Date.now() - wall) / 1000;")


def settled_behind(page):
    """How far behind now the live pictures are, once the player has settled (five readings over a
    second within half a second: the MSE player moves its playhead once, soon after it starts)."""
    readings = []

    def steady():
        readings.append(picture_behind(page) or 99)
        recent = readings[-5:]
        return len(recent) == 5 and max(recent) - min(recent) < 0.5 and recent[-1] < 15

    wait_until(steady, 30, interval=0.25, what="the live pictures to settle")
    return readings[-1]


def drag_back(page, seconds):
    """Drags the watch page's rewind bar `seconds` back from its live end, lets go, and waits for the
    player to rewind."""
    page.execute_script("""
        const bar = document.getElementById('rewind-bar');
        bar.value = String(Number(bar.max) - arguments[0]);
        bar.dispatchEvent(new Event('input'));
        bar.dispatchEvent(new Event('change'));""", seconds)
    wait_until(lambda: page.execute_script("return window.onair.rewound !== null"), 5, what="the player to rewind")


@pytest.mark.parametrize("engine", ENGINES)
def test_rewind_40_seconds_then_back_to_live(page, long_live, engine):
    page.get(f"{long_live.base}/watch/rewind?engine={engine}")
    wait_until(lambda: player_status(page)["time"] > 0.5, 30, interval=0.1, what="playback to start")
    wait_until(lambda: page.find_element(By.ID, "rewind").is_displayed(), 10, what="the rewind bar")
    wait_until(lambda: page.execute_script("return window.onair.rewindWindow() !== null"), 10, what="the window")
    page.execute_script("const s = document.createElement('script'); s.src = '/web/timecode.js'; document.head.append(s)")
    wait_until(lambda: page.execute_script("return typeof OnairTimeCode !== 'undefined'"), 5, what="timecode.js")
    live_behind = settled_behind(page)
    assert page.find_element(By.ID, "rewind-live").get_attribute("data-live") == "true"

    drag_back(page, 40)
    # What is on screen is what was captured 40 s before the live pictures (the time code in the
    # picture says when); the browser's HLS starts within a segment or two of where it is asked.
    wait_until(lambda: 40 + live_behind - 4 <= (picture_behind(page) or 0) <= 40 + live_behind + 6
               and not player_status(page)["paused"], 30, interval=0.2, what="playback 40 s back")
    time_before = player_status(page)["time"]
    wait_until(lambda: player_status(page)["time"] - time_before >= 2, 10, interval=0.1, what="it to play on")
    behind = picture_behind(page)
    assert 40 + live_behind - 4 <= behind <= 40 + live_behind + 6, (behind, live_behind)
    if engine == "mse":
        # Where the player says it is, from PROGRAM-DATE-TIME, is where the picture says.
        assert abs(behind - player_status(page)["latency"]) < 0.5
    wait_until(lambda: re.fullmatch(r"−00:00:[345]\d", page.find_element(By.ID, "rewind-behind").text), 5,
               what="how far behind, shown")
    assert page.find_element(By.ID, "rewind-live").get_attribute("data-live") == "false"
    if engine == "mse":
        # The video's seekable range covers the window, for its controls and other scripts.
        start, end, now = page.execute_script(
            "const v = window.onair.video; return [v.seekable.start(0), v.seekable.end(v.seekable.length - 1), v.currentTime];")
        assert end - start >= 51 and start <= now - 5 and end >= now + 35, (start, end, now)
    save_screenshot(page, f"rewound-{engine}.png")

    page.find_element(By.ID, "rewind-live").click()
    wait_until(lambda: page.execute_script("return window.onair.rewound === null"), 5, what="the player to go live")
    wait_until(lambda: (picture_behind(page) or 99) <= live_behind + 3 and not player_status(page)["paused"],
               30, interval=0.2, what="the player back at the live edge")
    wait_until(lambda: page.find_element(By.ID, "rewind-live").get_attribute("data-live") == "true", 2,
               what="LIVE lit again")


def test_dragging_the_rewind_bar_previews_the_picture_there(page, long_live):
    """While the bar is dragged, the picture of the moment under the thumb shows above it: the
    keyframe before it, read by byte range from the I-frame playlist and decoded on its own."""
    page.get(f"{long_live.base}/watch/rewind")
    wait_until(lambda: page.find_element(By.ID, "rewind").is_displayed(), 30, what="the rewind bar")
    wait_until(lambda: page.execute_script("return window.onair.rewindWindow() !== null"), 10, what="the window")
    page.execute_script("const s = document.createElement('script'); s.src = '/web/timecode.js'; document.head.append(s)")
    wait_until(lambda: page.execute_script("return typeof OnairTimeCode !== 'undefined'"), 5, what="timecode.js")
    for back in (40, 20):
        asked = page.execute_script("""
            const bar = document.getElementById('rewind-bar');
            bar.value = String(Number(bar.max) - arguments[0]);
            bar.dispatchEvent(new Event('input'));
            return window.onair.rewindWindow().start + Number(bar.value) * 1000;""", back)
        preview = page.find_element(By.ID, "rewind-preview")
        shown = wait_until(lambda: preview.is_displayed() and page.execute_script("""
            const canvas = document.getElementById('rewind-preview');
            const wall = Number(canvas.dataset.wall);
            return Math.abs(wall - arguments[0]) <= 2100 && [wall, OnairTimeCode.read(canvas)];""", asked),
            10, interval=0.1, what=f"the preview {back} s back")
        wall, code = shown
        # The picture is the keyframe listed for that moment: its time code is the segment's start
        # (PROGRAM-DATE-TIME), at or before the moment asked for.
        assert code is not None and abs(code - wall) <= 100, (code, wall)
        assert wall - 100 <= asked < wall + 2100, (asked, wall)
    save_screenshot(page, "rewind-preview.png")
    # Let go: the preview goes, and the player plays from there.
    page.execute_script("document.getElementById('rewind-bar').dispatchEvent(new Event('change'))")
    wait_until(lambda: not page.find_element(By.ID, "rewind-preview").is_displayed(), 2, what="the preview to go")
    wait_until(lambda: page.execute_script("return window.onair.rewound !== null"), 5, what="the player to rewind")


@pytest.mark.parametrize("where", ["watch", "embed"])
def test_a_seek_in_the_videos_own_range_rewinds(page, long_live, where):
    # MSE: what the video's controls do, setting currentTime within `seekable`; on the embed page
    # (no rewind bar of its own) too.
    page.get(f"{long_live.base}/{where}/rewind?engine=mse")
    wait_until(lambda: player_status(page)["time"] > 0.5, 30, interval=0.1, what="playback to start")
    wait_until(lambda: page.execute_script("const v = window.onair.video; return v.seekable.length > 0 && "
                                           "v.seekable.end(0) - v.seekable.start(0) > 70"), 15, what="a seekable window")
    wait_until(lambda: (player_status(page)["latency"] or 99) < 15, 20, interval=0.2, what="a live latency")
    page.execute_script("const v = window.onair.video; v.currentTime = v.currentTime - 30;")
    wait_until(lambda: page.execute_script("return window.onair.rewound !== null"), 5, what="the player to rewind")
    wait_until(lambda: 30 <= (player_status(page)["latency"] or 0) <= 50 and not player_status(page)["paused"],
               30, interval=0.2, what="playback 30 s back")
    if where == "embed":
        # The LIVE tag turns into the way back to the live edge.
        tag = page.find_element(By.ID, "state")
        wait_until(lambda: tag.get_attribute("data-state") == "behind" and tag.is_enabled()
                   and tag.text == "BACK TO LIVE", 5, what="the way back to live")
        save_screenshot(page, "embed-rewound.png")
        tag.click()
        wait_until(lambda: page.execute_script("return window.onair.rewound === null"), 5, what="the player to go live")
        wait_until(lambda: (player_status(page)["latency"] or 99) < 15 and not player_status(page)["paused"],
                   30, interval=0.2, what="playback back at the live edge")
        wait_until(lambda: tag.get_attribute("data-state") == "live" and not tag.is_enabled() and tag.text == "LIVE",
                   5, what="LIVE lit again")


@pytest.fixture(scope="module")
def hidden(tmp_path_factory):
    """A private channel with a rewind window of 24 s or more, and its token."""
    publisher = Publisher("--dvr", "1m", "--dvr-dir", str(tmp_path_factory.mktemp("dvr-private")),
                          "--viewer-token", "viewer-secret-0123456789", channel="hidden")
    wait_until(lambda: "watch at " in publisher.output(), 30, what="the private watch link")
    token = re.search(r"watch at \S+[?&]token=([^&,\s]+)", publisher.output()).group(1)
    wait_until(lambda: served(publisher, f"dvr-media.m3u8?token={token}")
               and MediaPlaylist(publisher.get(f"dvr-media.m3u8?token={token}").text).duration >= 24, 60,
               interval=1, what="24 s in the rewind window")
    yield publisher, token
    publisher.kill()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_private_channel_rewinds_and_comes_back_to_live_with_its_token(page, hidden, engine):
    # A private channel's playlists are signed: the player goes back to the live playlist it was
    # given (with its token), not to the bare address it started from.
    publisher, token = hidden
    assert publisher.get("dvr-media.m3u8").status == 403
    page.get(f"{publisher.base}/watch/hidden?engine={engine}&token={token}")
    wait_until(lambda: (player_status(page)["latency"] or 99) < 15, 30, interval=0.2, what="a live latency")
    wait_until(lambda: page.find_element(By.ID, "rewind").is_displayed(), 10, what="the rewind bar")
    wait_until(lambda: page.execute_script("return window.onair.rewindWindow() !== null"), 10, what="the window")
    drag_back(page, 14)
    wait_until(lambda: page.find_element(By.ID, "rewind-live").get_attribute("data-live") == "false"
               and not player_status(page)["paused"], 30, interval=0.2, what="playback behind live")
    page.find_element(By.ID, "rewind-live").click()
    wait_until(lambda: page.execute_script("return window.onair.rewound === null"), 5, what="the player to go live")
    wait_until(lambda: page.find_element(By.ID, "rewind-live").get_attribute("data-live") == "true"
               and (player_status(page)["latency"] or 99) < 12 and not player_status(page)["paused"],
               30, interval=0.2, what="playback back at the live edge")
    time_before = player_status(page)["time"]
    wait_until(lambda: player_status(page)["time"] - time_before >= 2, 10, interval=0.1, what="it to play on")
    assert page.execute_script("return window.onair.playlistURL").endswith(f"/live/hidden/index.m3u8?token={token}")
