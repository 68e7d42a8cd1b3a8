"""Replay of what was recorded: /api/recordings lists the recordings, /recordings/ serves their files
(byte ranges for the MP4, nothing else of the folder), /watch/<channel>/<recording> plays one from its
start in Chromium (the MP4, seeking in it, and an HLS-only recording with both engines), and the index
page lists them."""

import time

import pytest
from selenium.webdriver.common.by import By

from browser import player_status, save_screenshot
from harness import Publisher, fetch, wait_until

ENGINES = ["native", "mse"]


@pytest.fixture(scope="module")
def recordings(tmp_path_factory):
    """Two finished recordings (one with an MP4) and a publisher recording now, whose server replays them."""
    root = tmp_path_factory.mktemp("recordings")
    for channel, extra in (("kept", ["--record-mp4"]), ("plain", [])):
        done = Publisher("--record", str(root), *extra, "--duration", "6s", channel=channel)
        assert done.process.wait(timeout=60) == 0, done.output()
    server = Publisher("--record", str(root), channel="onnow")
    server.wait_for_segments(1)
    yield root, server
    server.kill()


def listed(server):
    return {entry["channel"]: entry for entry in fetch(f"{server.base}/api/recordings").json()["recordings"]}


def test_the_api_lists_every_recording_newest_first(recordings):
    root, server = recordings
    wait_until(lambda: "onnow" in listed(server), 15, what="the recording in progress to be listed")
    response = fetch(f"{server.base}/api/recordings")
    assert response.headers["cache-control"] == "no-store"
    entries = response.json()["recordings"]
    assert [e["channel"] for e in entries] == ["onnow", "plain", "kept"], entries
    kept, plain, onnow = entries[2], entries[1], entries[0]
    name = next((root / "kept").iterdir()).name
    assert kept["name"] == name and kept["startedAt"] == name[:13] + ":" + name[14:16] + ":" + name[17:]
    assert kept["ended"] and plain["ended"] and not onnow["ended"]
    assert abs(kept["seconds"] - 6) < 0.1 and abs(plain["seconds"] - 6) < 0.1
    assert kept["playlist"] == f"/recordings/kept/{name}/index.m3u8"
    assert kept["mp4"] == f"/recordings/kept/{name}/recording.mp4"
    assert kept["mp4Bytes"] == (root / "kept" / name / "recording.mp4").stat().st_size
    assert "mp4" not in plain and "mp4" not in onnow
    assert kept["bytes"] == sum(f.stat().st_size for f in (root / "kept" / name).iterdir())


def test_only_the_files_a_recording_holds_are_served(recordings):
    root, server = recordings
    name = next((root / "kept").iterdir()).name
    base = f"{server.base}/recordings/kept/{name}"
    playlist = fetch(f"{base}/index.m3u8")
    assert playlist.status == 200 and playlist.headers["content-type"] == "application/vnd.apple.mpegurl"
    assert playlist.headers["cache-control"] == "no-cache"
    segment = fetch(f"{base}/seg0.m4s")
    assert segment.status == 200 and segment.body == (root / "kept" / name / "seg0.m4s").read_bytes()
    assert segment.headers["cache-control"] == "public, max-age=31536000, immutable"
    whole = (root / "kept" / name / "recording.mp4").read_bytes()
    part = fetch(f"{base}/recording.mp4", headers={"Range": "bytes=100-199"})
    assert part.status == 206 and part.body == whole[100:200]
    assert part.headers["content-range"] == f"bytes 100-199/{len(whole)}"
    assert part.headers["content-type"] == "video/mp4"
    (root / "notes.txt").write_text("not a recording")
    (root / "kept" / name / ".hidden.m4s").write_text("not a recording's file")
    for path in ["/recordings/notes.txt", f"/recordings/kept/{name}/.hidden.m4s", f"/recordings/kept/{name}",
                 f"/recordings/kept/{name}/../../notes.txt", f"/recordings/kept/{name}/%2e%2e/%2e%2e/notes.txt",
                 "/recordings/kept/not-a-time/index.m3u8", f"/recordings/kept/{name}/360p/recording.mp4"]:
        assert fetch(server.base + path).status == 404, path
    assert fetch(f"{server.base}/watch/kept/not-a-recording").status == 404


def test_the_replay_page_plays_the_mp4_from_its_start_and_seeks(page, recordings):
    root, server = recordings
    name = next((root / "kept").iterdir()).name
    page.get(f"{server.base}/watch/kept/{name}")
    wait_until(lambda: page.find_element(By.ID, "engine").text == "MP4", 15, what="the MP4 chosen")
    assert page.find_element(By.ID, "state").text == "RECORDED"
    assert page.find_element(By.ID, "length").text == "00:00:06"
    download = page.find_element(By.ID, "download")
    assert download.get_attribute("download") == f"kept-{name}.mp4"
    assert download.get_attribute("href").endswith(f"/recordings/kept/{name}/recording.mp4")
    video = "document.getElementById('player')"
    page.execute_script(f"{video}.muted = true; {video}.play();")
    wait_until(lambda: page.execute_script(f"return {video}.currentTime") > 1, 15, what="the MP4 to play")
    assert page.execute_script(f"return {video}.duration") == pytest.approx(6, abs=0.1)
    page.execute_script(f"{video}.currentTime = 4;")
    wait_until(lambda: page.execute_script(f"return {video}.currentTime") > 4.5, 10, what="playback after the seek")
    save_screenshot(page, "replay-mp4.png")


@pytest.mark.parametrize("engine", ENGINES)
def test_the_replay_page_plays_an_hls_recording_from_its_start(page, recordings, engine):
    root, server = recordings
    name = next((root / "plain").iterdir()).name
    page.get(f"{server.base}/watch/plain/{name}?engine={engine}")
    # Played once the player has loaded the recording (a play() before would be cut short by that load).
    wait_until(lambda: page.execute_script("return !!window.onair && window.onair.video.readyState >= 2"), 20,
               what="the recording loaded")
    page.execute_script("window.onair.video.muted = true; window.onair.video.play();")
    wait_until(lambda: player_status(page)["time"] > 0.5, 20, interval=0.1, what="playback to start")
    started = time.monotonic()
    first = player_status(page)["time"]
    assert first < 2.5, "from the recording's start, not its end"
    wait_until(lambda: player_status(page)["time"] >= 4, 15, interval=0.1, what="four seconds of the recording")
    assert time.monotonic() - started < 10
    status = player_status(page)
    assert status["engine"] == engine and (status["width"], status["height"]) == (1280, 720)
    assert page.find_element(By.ID, "no-mp4").is_displayed()


def test_the_index_lists_the_recordings(page, recordings):
    root, server = recordings
    page.get(server.base + "/")
    wait_until(lambda: len(page.find_elements(By.CSS_SELECTOR, "#recordings tbody tr")) == 3, 15,
               what="three recordings listed")
    rows = page.find_elements(By.CSS_SELECTOR, "#recordings tbody tr")
    assert [r.get_attribute("data-recording").split("/")[0] for r in rows] == ["onnow", "plain", "kept"]
    assert rows[0].find_element(By.TAG_NAME, "a").text == "onnow (recording)"
    name = next((root / "kept").iterdir()).name
    assert rows[2].find_element(By.TAG_NAME, "a").get_attribute("href") == f"{server.base}/watch/kept/{name}"
    assert rows[2].find_elements(By.TAG_NAME, "a")[1].get_attribute("download") == f"kept-{name}.mp4"
    assert rows[1].find_elements(By.TAG_NAME, "td")[4].text == "–"
