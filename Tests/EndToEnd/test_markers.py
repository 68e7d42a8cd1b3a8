"""Markers (chapters): added through the control API or `onair mark`, listed as EXT-X-DATERANGE in
every media playlist of a Low-Latency ladder within a part, carried to an origin by the push, kept
by the rewind window and the recording, made MP4 chapters by the export, shown as ticks on the watch
page's rewind bar and as chapters on the replay page."""

import json
import signal
import subprocess
from datetime import datetime, timedelta, timezone
from urllib.parse import quote

import pytest
from selenium.webdriver.common.by import By

from browser import save_screenshot, start_chromium
from edges import Origin
from harness import Publisher, fetch, run_onair, wait_until
from hls_rules import MediaPlaylist, check_dateranges, check_low_latency, next_part, to_ms

TOKEN = "markers-control-token"
PLAYLISTS = ["720p/media.m3u8", "360p/media.m3u8", "audio/media.m3u8"]


@pytest.fixture(scope="module")
def show(tmp_path_factory):
    """A Low-Latency ladder with its sound apart, a rewind window, a recording with an MP4, pushed
    to an origin: a talk with slides."""
    record = tmp_path_factory.mktemp("record")
    origin = Origin()
    publisher = Publisher("--renditions", "720p,360p", "--low-latency", "--playlist-size", "10", "--dvr", "1m",
                          "--record", str(record),
                          "--record-mp4", "--control-token", TOKEN, *origin.push_arguments("talk"), channel="talk")
    try:
        wait_until(lambda: (response := fetch(publisher.url("720p/media.m3u8"))) and response.status == 200
                   and len(MediaPlaylist(response.text).segments) >= 4, 40, what="four segments")
        wait_until(lambda: (response := fetch(f"{origin.base}/live/talk/360p/media.m3u8")) and response.status == 200,
                   20, what="the origin to serve the channel")
        yield publisher, origin, record
    finally:
        publisher.kill()
        origin.process.kill()


def playlist(url):
    response = fetch(url)
    assert response is not None and response.status == 200, (url, response and response.status)
    return MediaPlaylist(response.text)


def mark(publisher, body, token=TOKEN):
    """POSTs a marker; returns (status, answer as JSON)."""
    response = fetch(publisher.base + "/api/channels/talk/markers", method="POST",
                     headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
                     body=json.dumps(body).encode())
    return response.status, json.loads(response.text)


def markers(publisher):
    response = fetch(publisher.base + "/api/channels/talk/markers", headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status == 200
    return json.loads(response.text)


def titles(media):
    return [daterange["X-TITLE"] for daterange in media.dateranges if daterange.get("CLASS") == "org.onair.chapter"]


def iso(milliseconds):
    return datetime.fromtimestamp(milliseconds / 1000, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def test_a_marker_is_in_every_media_playlist_within_a_part(show):
    publisher, origin, _ = show
    status, added = mark(publisher, {"title": "Slide 12"})
    assert status == 201, added
    assert set(added) == {"id", "title", "start"} and added["title"] == "Slide 12"
    assert abs(to_ms(added["start"]) - datetime.now(timezone.utc).timestamp() * 1000) < 2000
    for name in PLAYLISTS:
        # The playlist as it is now, then the one that lists the part after the next: a marker is
        # taken up with the next change, so by then every playlist of the channel lists it.
        msn, part = next_part(fetch(publisher.url(name)).text)
        text = fetch(publisher.url(name) + f"?_HLS_msn={msn}&_HLS_part={part + 1}").text
        media = MediaPlaylist(text)
        assert "Slide 12" in titles(media), (name, text)
        check_dateranges(media)
        check_low_latency(text, sound_only=name.startswith("audio"))
        (tag,) = [d for d in media.dateranges if d["X-TITLE"] == "Slide 12"]
        assert tag["ID"] == added["id"] and tag["START-DATE"] == added["start"] and tag["CLASS"] == "org.onair.chapter"
        assert "CAN-SKIP-DATERANGES=YES" in media.tags["EXT-X-SERVER-CONTROL"]
    # The rewind window within a segment; the origin through the push.
    wait_until(lambda: "Slide 12" in titles(playlist(publisher.url("720p/dvr-media.m3u8"))), 10,
               what="the marker in the rewind window")
    for name in PLAYLISTS:
        wait_until(lambda: "Slide 12" in titles(playlist(f"{origin.base}/live/talk/{name}")), 10,
                   what=f"the marker at the origin's {name}")
    assert any(marker["id"] == added["id"] for marker in markers(publisher))


def test_onair_mark_adds_one_at_a_time_given_and_refuses_what_breaks_the_rules(show):
    publisher, _, _ = show
    first = playlist(publisher.url("720p/media.m3u8")).segments[1]
    at = iso(to_ms(first["pdt"]) + 300)
    result = run_onair("mark", "--channel", "talk", "--server", publisher.base, "--control-token", TOKEN,
                       "--at", at, "Questions")
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["title"] == "Questions" and answer["start"] == at
    # Listed before the segment it falls in.
    wait_until(lambda: "Questions" in titles(playlist(publisher.url("360p/media.m3u8"))), 5,
               what="the marker at its time")
    media = playlist(publisher.url("360p/media.m3u8"))
    (tag,) = [d for d in media.dateranges if d["X-TITLE"] == "Questions"]
    assert media.segments[tag["before"]]["pdt"] == first["pdt"]

    before = markers(publisher)
    now = datetime.now(timezone.utc)
    refused = [
        ({}, 400, "a marker needs a title"),
        ({"title": ""}, 400, "a marker needs a title"),
        ({"title": "x" * 201}, 400, "a title is at most 200 characters (this one has 201)"),
        ({"title": "a\u0007b"}, 400, "a title cannot hold control characters"),
        ({"title": 'say "hi"'}, 400, "a title cannot hold a double quote"),
        ({"title": "Later", "at": iso((now + timedelta(seconds=30)).timestamp() * 1000)}, 400, "is in the future"),
        ({"title": "Long ago", "at": "2020-01-01T00:00:00Z"}, 400, "is before what viewers can go back to"),
        ({"title": "Whenever", "at": "soon"}, 400, "\"at\" is not a date-time"),
    ]
    for body, status, message in refused:
        got, answer = mark(publisher, body)
        assert got == status and message in answer["error"]["message"], (body, got, answer)
    response = fetch(publisher.base + "/api/channels/talk/markers", method="POST", body=b"not json",
                     headers={"Authorization": f"Bearer {TOKEN}"})
    assert response.status == 400 and "the body is JSON" in response.text
    assert mark(publisher, {"title": "No token"}, token="wrong-token-0123456789")[0] == 401
    assert markers(publisher) == before, "nothing is added by what was refused"
    # The command says the same, before anything is sent when it can tell.
    result = run_onair("mark", "--channel", "talk", "--server", publisher.base, "--control-token", TOKEN, 'say "hi"')
    assert result.returncode == 2 and "a title cannot hold a double quote" in result.stderr
    result = run_onair("mark", "--channel", "talk", "--server", publisher.base, "--control-token", TOKEN,
                       "--at", "2020-01-01T00:00:00Z", "Long ago")
    assert result.returncode == 1 and "the marker was refused (400)" in result.stderr, result.stderr


def test_a_delta_update_v2_skips_the_skipped_segments_markers(show):
    publisher, _, _ = show
    # A marker in the oldest listed segment, which a delta update skips once it is old enough.
    wait_until(lambda: "EXT-X-SKIP" in fetch(publisher.url("720p/media.m3u8?_HLS_skip=YES")).text, 30,
               what="a delta update with something to skip")
    oldest = playlist(publisher.url("720p/media.m3u8")).segments[0]
    status, added = mark(publisher, {"title": "Old slide", "at": iso(to_ms(oldest["pdt"]) + 100)})
    assert status == 201, added
    wait_until(lambda: "Old slide" in titles(playlist(publisher.url("720p/media.m3u8"))), 5, what="it listed")
    v1 = fetch(publisher.url("720p/media.m3u8?_HLS_skip=YES")).text
    v2 = fetch(publisher.url("720p/media.m3u8?_HLS_skip=v2")).text
    skip_v1 = next(line for line in v1.splitlines() if line.startswith("#EXT-X-SKIP:"))
    skip_v2 = next(line for line in v2.splitlines() if line.startswith("#EXT-X-SKIP:"))
    assert "RECENTLY-REMOVED-DATERANGES" not in skip_v1
    assert "RECENTLY-REMOVED-DATERANGES=" in skip_v2, skip_v2
    assert 'X-TITLE="Old slide"' in v1, "YES keeps every date range"
    assert 'X-TITLE="Old slide"' not in v2, "v2 skips those of the skipped segments"
    # Once its segment leaves the playlist, it is listed as recently removed.
    wait_until(lambda: "Old slide" not in titles(playlist(publisher.url("720p/media.m3u8"))), 30,
               what="its segment to leave")
    removed = next(line for line in fetch(publisher.url("720p/media.m3u8?_HLS_skip=v2")).text.splitlines()
                   if line.startswith("#EXT-X-SKIP:"))
    assert added["id"] in removed, removed


def test_the_watch_page_shows_ticks_and_a_click_plays_from_there(show):
    publisher, _, _ = show
    wait_until(lambda: len(titles(playlist(publisher.url("720p/dvr-media.m3u8")))) >= 2, 10, what="markers")
    browser = start_chromium()
    try:
        browser.get(f"{publisher.base}/watch/talk")
        wait_until(lambda: browser.find_element(By.ID, "rewind").is_displayed(), 30, what="the rewind bar")
        ticks = wait_until(lambda: (found := browser.find_elements(By.CSS_SELECTOR, "#rewind-ticks .tick"))
                           and len(found) >= 2 and found, 10, what="ticks on the bar")
        shown = {tick.get_attribute("data-title") for tick in ticks}
        assert {"Slide 12", "Questions"} <= shown, shown
        lefts = [float(tick.value_of_css_property("left").rstrip("px")) for tick in ticks]
        assert lefts == sorted(lefts), "in the order of their times"
        (slide,) = [tick for tick in ticks if tick.get_attribute("data-title") == "Slide 12"]
        assert slide.get_attribute("aria-label") == "Play from “Slide 12”"
        save_screenshot(browser, "markers-ticks.png")
        start = to_ms(next(m for m in markers(publisher) if m["title"] == "Slide 12")["start"])
        slide.click()
        wait_until(lambda: browser.execute_script("return window.onair.rewound !== null"), 5, what="a rewind")
        browser.execute_script(
            "const s = document.createElement('script'); s.src = '/web/timecode.js'; document.head.append(s)")
        wait_until(lambda: browser.execute_script("return typeof OnairTimeCode !== 'undefined'"), 5, what="timecode")
        # The picture on screen was captured at the marker (within the segment the player starts in).
        shown_at = wait_until(lambda: browser.execute_script(
            "return OnairTimeCode.read(window.onair.video)"), 20, interval=0.2, what="a picture")
        wait_until(lambda: abs(browser.execute_script("return OnairTimeCode.read(window.onair.video)") - start) < 4000,
                   20, interval=0.2, what=f"the picture of the marker's moment (first seen {shown_at - start} ms off)")
    finally:
        browser.quit()


def test_the_recording_keeps_them_and_its_mp4_has_chapters(show):
    publisher, _, record = show
    listed = markers(publisher)
    publisher.process.send_signal(signal.SIGINT)
    assert publisher.process.wait(timeout=30) == 0
    (folder,) = (record / "talk").iterdir()
    for name in PLAYLISTS:
        media = MediaPlaylist((folder / name).read_text())
        assert media.ended
        check_dateranges(media)
        assert titles(media) == [marker["title"] for marker in listed if marker["title"] != "Old slide"] \
            or titles(media) == [marker["title"] for marker in listed], (name, titles(media))
    probe = subprocess.run(["ffprobe", "-v", "error", "-show_chapters", "-of", "json", str(folder / "recording.mp4")],
                           capture_output=True, text=True, check=True)
    chapters = json.loads(probe.stdout)["chapters"]
    media = MediaPlaylist((folder / "720p/media.m3u8").read_text())
    recorded = titles(media)
    # Chapters cover the file from its start: before the first marker, a chapter "Start".
    first = to_ms(media.dateranges[0]["START-DATE"]) - to_ms(media.segments[0]["pdt"])
    expected = (["Start"] if first >= 500 else []) + recorded
    assert [chapter["tags"]["title"] for chapter in chapters] == expected, chapters
    starts = [float(chapter["start_time"]) for chapter in chapters]
    assert starts == sorted(starts) and starts[0] == 0
    # A server of the recordings lists them with the recording, where each is in it, and its replay
    # page shows them as chapters that play from there.
    server = Origin("--record", str(record))
    browser = start_chromium()
    try:
        (entry,) = json.loads(fetch(f"{server.base}/api/recordings").text)["recordings"]
        assert [marker["title"] for marker in entry["markers"]] == recorded
        for marker, chapter in zip(entry["markers"], chapters[len(expected) - len(recorded):]):
            assert set(marker) == {"id", "title", "start", "seconds"}
            # The first chapter starts at 0 whatever its marker's place (an MP4's chapters have no hole).
            if float(chapter["start_time"]) > 0:
                assert abs(marker["seconds"] - float(chapter["start_time"])) < 0.01, (marker, chapter)
        browser.get(f"{server.base}/watch/talk/{quote(entry['name'])}")
        buttons = wait_until(lambda: (found := browser.find_elements(By.CSS_SELECTOR, "#chapter-list button"))
                             and len(found) == len(recorded) and found, 10, what="the chapters")
        assert [button.text.split("  ", 1)[1] for button in buttons] == recorded
        save_screenshot(browser, "markers-replay.png")
        target = entry["markers"][-1]["seconds"]
        buttons[-1].click()
        wait_until(lambda: abs(browser.execute_script("return document.getElementById('player').currentTime")
                               - target) < 1, 10, interval=0.2, what="the video at the chapter")
    finally:
        browser.quit()
        server.process.kill()
