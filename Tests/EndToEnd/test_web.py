"""The watch, embed and index pages in a real browser (headless Chromium), for both player engines,
and the watch page and the embed snippet in Firefox, which has no HLS of its own."""

import calendar
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from browser import (OtherOrigin, assert_played_through, assert_snippet_plays_on_another_site, console_errors,
                     player_status, save_screenshot, start_firefox, time_code_reader)
from harness import Publisher, fetch, make_certificate, segment_files, wait_until
from hls_rules import MediaPlaylist

ENGINES = ["native", "mse"]


@pytest.fixture(scope="module")
def live():
    """A channel that stays live for the whole module."""
    publisher = Publisher()
    publisher.wait_for_segments(1)
    yield publisher
    publisher.kill()


@pytest.fixture(scope="module")
def low_latency():
    """A Low-Latency HLS channel for the module."""
    publisher = Publisher("--low-latency", channel="fast")
    publisher.wait_for_segments(1)
    yield publisher
    publisher.kill()


def wait_for_playback(driver, seconds=3, within=6, timeout=30):
    """Waits for playback to start, then checks the media time advances `seconds` within `within` s of wall time."""
    wait_until(lambda: player_status(driver)["time"] > 0.1, timeout, interval=0.1, what="playback to start")
    start = player_status(driver)["time"]
    deadline = time.monotonic() + within
    wait_until(lambda: player_status(driver)["time"] - start >= seconds, within + 1, interval=0.1,
               what=f"{seconds} s of playback")
    assert time.monotonic() <= deadline + 0.2
    return player_status(driver)


@pytest.mark.parametrize("engine", ENGINES)
def test_watch_page_plays(page, live, engine):
    page.get(f"{live.base}/watch/demo?engine={engine}")
    stage = page.find_element(By.CSS_SELECTOR, ".stage").rect
    status = wait_for_playback(page)
    assert status["engine"] == engine
    assert (status["width"], status["height"]) == (1280, 720)
    assert page.find_element(By.ID, "state").text == "LIVE"
    assert page.find_element(By.ID, "engine").text == ("native HLS" if engine == "native" else "onair MSE")
    # The player's box was there before the video: nothing moved when it started.
    assert page.find_element(By.CSS_SELECTOR, ".stage").rect == stage
    # Latency: the wall time of the frame on screen against this clock, a few segments behind.
    wait_until(lambda: page.find_element(By.ID, "latency").text.endswith(" s"), 10, what="a latency figure")
    latency = float(page.find_element(By.ID, "latency").text.removesuffix(" s"))
    assert 1 <= latency <= 15
    wait_until(lambda: page.find_element(By.ID, "viewers").text == "1", 10, what="this player counted as a viewer")
    iframe_code = page.find_element(By.ID, "embed-iframe").get_attribute("value")
    assert f'src="{live.base}/embed/demo"' in iframe_code and 'allow="autoplay; fullscreen"' in iframe_code
    video_code = page.find_element(By.ID, "embed-video").get_attribute("value")
    assert f'src="{live.base}/live/demo/index.m3u8"' in video_code and f"{live.base}/web/player.js" in video_code
    assert not page.find_element(By.ID, "message").is_displayed()
    save_screenshot(page, f"watch-{engine}.png")


@pytest.mark.parametrize("engine", ["auto", *ENGINES])
def test_a_low_latency_channel_plays(page, low_latency, engine):
    page.get(f"{low_latency.base}/watch/fast?engine={engine}")
    status = wait_for_playback(page)
    # Left to choose, the page plays a low-latency channel itself: Chromium's own HLS ignores parts.
    assert status["engine"] == ("mse" if engine == "auto" else engine)
    assert (status["width"], status["height"]) == (1280, 720)
    if status["engine"] == "mse":
        # PART-HOLD-BACK (0.6 s) behind the newest part: about a second from capture to screen.
        wait_until(lambda: (player_status(page)["latency"] or 99) < 2.5, 10, interval=0.2,
                   what="the player to settle near the live edge")


def test_a_low_latency_channel_plays_over_https(page, tmp_path):
    cert, key = make_certificate(tmp_path)
    publisher = Publisher("--low-latency", "--tls-cert", str(cert), "--tls-key", str(key))
    try:
        wait_until(lambda: "[started]" in publisher.output(), 10, what="the server")
        page.get(f"https://127.0.0.1:{publisher.port}/watch/demo")
        status = wait_for_playback(page)
        assert status["engine"] == "mse"
        protocol = page.execute_script(
            "return performance.getEntriesByType('resource').find((e) => e.name.includes('.m4s')).nextHopProtocol")
        assert protocol == "h2"
    finally:
        page.get("about:blank")  # before the server goes: a player cut off mid-request logs an error
        publisher.kill()


def test_the_time_code_in_the_picture_agrees_with_program_date_time(page, low_latency):
    page.get(f"{low_latency.base}/watch/fast?engine=mse")
    wait_for_playback(page, seconds=1, within=3)
    page.execute_script("const s = document.createElement('script'); s.src = '/web/timecode.js'; document.head.append(s)")
    wait_until(lambda: page.execute_script("return typeof OnairTimeCode !== 'undefined'"), 5, what="timecode.js")
    for _ in range(5):
        # The same frame, two ways: the blocks drawn into it, and its segment's PROGRAM-DATE-TIME at
        # the frame's own media time. Read as the frame is presented (requestVideoFrameCallback): the
        # element's currentTime runs ahead of the picture a busy compositor last painted.
        picture, playlist = page.execute_async_script("""
            const done = arguments[arguments.length - 1], p = window.onair;
            p.video.requestVideoFrameCallback((now, frame) => done([OnairTimeCode.read(p.video), p.wallTime(frame.mediaTime)]));""")
        assert picture is not None and playlist is not None
        # Within a frame (33 ms at 30 fps): read so, the two agree to the millisecond.
        assert abs(picture - playlist) < 40, (picture, playlist)


@pytest.mark.parametrize("engine", ENGINES)
def test_embed_plays_inside_an_iframe_of_another_site(page, live, engine):
    site = OtherOrigin(f"""<!doctype html><html><head><link rel="icon" href="data:,"><title>a blog</title></head>
        <body><h1>My blog</h1>
        <iframe id="player" src="{live.base}/embed/demo?engine={engine}&muted=1&controls=0" width="640" height="360"
            allow="autoplay; fullscreen" allowfullscreen></iframe></body></html>""")
    try:
        page.get(site.url)
        assert page.execute_script("return location.origin") != live.base
        page.switch_to.frame(page.find_element(By.ID, "player"))
        status = wait_for_playback(page)
        assert status["engine"] == engine and status["width"] == 1280
        assert page.execute_script("return document.querySelector('video').controls") is False
        assert page.execute_script("return document.querySelector('video').muted") is True
        # Muted by request: the button to turn the sound on is offered.
        assert page.find_element(By.CSS_SELECTOR, ".unmute").is_displayed()
        page.switch_to.default_content()
    finally:
        site.close()


@pytest.mark.parametrize("engine", ENGINES)
def test_video_snippet_plays_on_another_site(page, live, engine):
    page.get(f"{live.base}/watch/demo")
    snippet = page.find_element(By.ID, "embed-video").get_attribute("value")
    if engine == "mse":
        # What a browser without native HLS gets.
        snippet = snippet.replace("data-onair ", 'data-onair="mse" ')
    assert_snippet_plays_on_another_site(page, snippet, 1280, engine)


def test_in_firefox_the_watch_page_and_the_snippet_on_another_site_play(live):
    """Firefox has no HLS of its own, and blocks sound that starts by itself: the watch page's
    player chooses its MSE engine, and the plain <video> snippet's script adds playback, unforced."""
    driver = start_firefox()
    try:
        driver.get(f"{live.base}/watch/demo")
        status = wait_for_playback(driver)
        assert status["engine"] == "mse" and (status["width"], status["height"]) == (1280, 720), status
        assert status["problem"] is None, status
        save_screenshot(driver, "watch-firefox.png")
        snippet = driver.execute_script("return document.getElementById('embed-video').value")
        assert_snippet_plays_on_another_site(driver, snippet, 1280, "mse")
    finally:
        driver.quit()


def test_mse_player_goes_on_past_a_segment_it_cannot_fetch(page, live):
    newest = MediaPlaylist(live.get("media.m3u8").text).segments[-1]["uri"]
    blocked = f"seg{int(newest.removeprefix('seg').removesuffix('.m4s')) + 2}.m4s"
    page.execute_cdp_cmd("Network.enable", {})
    page.execute_cdp_cmd("Network.setBlockedURLs", {"urls": [f"*/{blocked}*"]})
    try:
        page.get(f"{live.base}/watch/demo?engine=mse")
        wait_until(lambda: page.execute_script("return window.onair.skipped") == 1, 30, interval=0.2,
                   what=f"the player to give up on {blocked}")
        after = int(blocked.removeprefix("seg").removesuffix(".m4s")) + 1
        # Playback crosses the hole and goes on in the segment after it.
        wait_until(lambda: page.execute_script(
            "const p = window.onair, next = p.timeline.find((s) => s.unit.sequence === arguments[0]);"
            "return next !== undefined && p.video.currentTime > next.start + 1;", after), 20, interval=0.2,
            what="playback past the missing segment")
        wait_for_playback(page, seconds=2, within=4)
        assert page.execute_script("return window.onair.skipped") == 1
        assert all(blocked in error for error in console_errors(page))
    finally:
        page.execute_cdp_cmd("Network.setBlockedURLs", {"urls": []})


def test_mse_player_catches_up_after_falling_behind(page, live):
    page.get(f"{live.base}/watch/demo?engine=mse")
    wait_for_playback(page, seconds=1, within=3)
    page.execute_script("window.onair.video.pause()")
    # Paused, it keeps loading: far behind the live edge (beyond HOLD-BACK plus four target durations).
    wait_until(lambda: page.execute_script("return window.onair.bufferAhead()") > 6 + 4 * 2 + 1, 30, interval=0.2,
               what="the player to fall behind")
    assert player_status(page)["latency"] > 15
    page.execute_script("window.onair.video.play()")
    wait_until(lambda: (player_status(page)["latency"] or 99) < 10, 5, interval=0.1, what="the player to catch up")


def test_index_lists_the_channel_and_updates_itself(page, live):
    page.get(f"{live.base}/")

    def row():
        # Read in one step: the page replaces its rows as it updates itself.
        return page.execute_script("""
            const row = document.querySelector('tr[data-channel="demo"]');
            return row && {cells: [...row.cells].map(cell => cell.innerText), link: row.querySelector('a').href};
        """)
    listed = wait_until(row, 10, what="the channel listed")
    cells = listed["cells"]
    assert cells[0] == "demo" and cells[1] == "LIVE" and cells[3] == "1280×720 · 30 fps"
    assert listed["link"] == f"{live.base}/watch/demo"
    wait_until(lambda: row()["cells"][2] != cells[2], 5, what="the uptime to move on without a reload")


def test_watch_page_fits_a_phone_and_works_from_the_keyboard(page, live):
    page.set_window_size(390, 844)
    try:
        page.get(f"{live.base}/watch/demo")
        wait_for_playback(page, seconds=1, within=3)
        width = page.execute_script("return window.innerWidth")
        assert page.execute_script("return document.documentElement.scrollWidth") <= width
        assert page.find_element(By.CSS_SELECTOR, ".stage").rect["width"] <= width
        # Tab reaches the player and the copy buttons; Enter on a copy button copies.
        reached = []
        for _ in range(12):
            page.switch_to.active_element.send_keys(Keys.TAB)
            element = page.switch_to.active_element
            reached.append(element.get_attribute("id") or element.get_attribute("data-copy") or element.tag_name)
        assert "player" in reached and "embed-iframe" in reached and "embed-video" in reached
        while page.switch_to.active_element.get_attribute("data-copy") != "embed-iframe":
            page.switch_to.active_element.send_keys(Keys.TAB)
        page.switch_to.active_element.send_keys(Keys.ENTER)
        wait_until(lambda: page.switch_to.active_element.text == "Copied" or
                   page.find_element(By.CSS_SELECTOR, 'button[data-copy="embed-iframe"]').text == "Copied",
                   3, what="the copy button to say Copied")
        save_screenshot(page, "watch-phone.png")
    finally:
        page.set_window_size(1280, 900)


@pytest.mark.parametrize("engine", ENGINES)
def test_a_stopped_channel_shows_ended(page, engine):
    publisher = Publisher("--duration", "10s")
    try:
        publisher.wait_for_segments(1)
        page.get(f"{publisher.base}/watch/demo?engine={engine}")
        wait_for_playback(page, seconds=1, within=3)
        wait_until(lambda: page.find_element(By.ID, "state").text == "ENDED", 20, what="the state to say ended")
        # The end of the stream plays out, then the page says so.
        wait_until(lambda: player_status(page)["ended"], 20, interval=0.2, what="playback to reach the end")
        assert player_status(page)["time"] == pytest.approx(10, abs=0.2)
        wait_until(lambda: page.find_element(By.ID, "message").is_displayed(), 2, what="the ended message")
        assert page.find_element(By.ID, "message-title").text == "The broadcast has ended"
        assert publisher.process.wait(timeout=20) == 0
    finally:
        publisher.kill()


def set_offline(driver, offline):
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd("Network.emulateNetworkConditions", {
        "offline": offline, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})


@pytest.mark.parametrize("engine", ENGINES)
def test_a_viewer_who_loses_the_link_is_told_it_is_reconnecting_then_plays_on(page, live, engine):
    page.get(f"{live.base}/watch/demo?engine={engine}&muted=1")
    wait_for_playback(page, seconds=1, within=3)
    message = page.find_element(By.ID, "message")
    try:
        set_offline(page, True)
        # What is buffered plays out; then the page says the stream is out of reach, not that the
        # broadcast has yet to start.
        wait_until(lambda: message.is_displayed(), 40, interval=0.2, what="a message once the buffer ran dry")
        assert page.find_element(By.ID, "message-title").text == "Reconnecting…"
        save_screenshot(page, f"reconnecting-{engine}.png")
    finally:
        set_offline(page, False)
    # Back: the picture moves again (from where it stopped, or from the live edge if the browser gave
    # up on the stream meanwhile) and the message goes.
    wait_until(lambda: not message.is_displayed(), 40, interval=0.2, what="the message to go")
    wait_for_playback(page, seconds=1.5, within=4, timeout=20)
    assert player_status(page)["state"] == "live"
    assert page.find_element(By.ID, "state").text == "LIVE"
    # The fetches that failed while offline, and nothing else.
    assert [error for error in console_errors(page) if "ERR_INTERNET_DISCONNECTED" not in error] == []


@pytest.mark.parametrize("engine", ENGINES)
def test_a_page_opened_before_the_channel_starts_waits_then_plays(page, engine):
    # Six-second segments: the first one is listed well after the server answers.
    publisher = Publisher("--segment-duration", "6")
    try:
        wait_until(lambda: fetch(f"{publisher.base}/api/channels"), 10, what="the server")
        page.get(f"{publisher.base}/watch/demo?engine={engine}")
        wait_until(lambda: player_status(page)["state"] is not None, 5, what="the player")
        assert "#EXTINF" not in publisher.get("media.m3u8").text, "too late to see the waiting state"
        assert player_status(page)["state"] == "waiting"
        assert page.find_element(By.ID, "state").text == "WAITING"
        assert page.find_element(By.ID, "message-title").text == "Waiting for the broadcast"
        # The player starts once the playlist holds three target durations (18 s here).
        status = wait_for_playback(page, seconds=1, within=3, timeout=40)
        assert status["state"] == "live"
        assert page.find_element(By.ID, "state").text == "LIVE"
    finally:
        page.get("about:blank")  # before the server goes: a player cut off mid-request logs an error
        publisher.kill()


@pytest.mark.parametrize("engine", ENGINES)
def test_a_restarted_channel_plays_on_across_the_discontinuity(page, engine, tmp_path):
    arguments = ["--segment-duration", "4", "--playlist-size", "16", "--hls-dir", str(tmp_path)]
    first = Publisher(*arguments)
    try:
        # Longer than the second run will be when the player gets there: its timestamps, which start
        # again at 0, would land behind the player unless it moves them.
        wait_until(lambda: len(segment_files(tmp_path / "live/demo")) >= 5, 40, what="five segments")
    finally:
        first.kill()
    second = Publisher(*arguments)
    try:
        wait_until(lambda: second.get("media.m3u8") and "#EXT-X-DISCONTINUITY\n" in second.get("media.m3u8").text,
                   30, what="the second run's first segment")
        text = second.get("media.m3u8").text
        restart = text.split("#EXT-X-DISCONTINUITY\n", 1)[1].split("#EXT-X-PROGRAM-DATE-TIME:", 1)[1].split("\n")[0]
        restarted_at = calendar.timegm(time.strptime(restart[:19], "%Y-%m-%dT%H:%M:%S")) + int(restart[20:23]) / 1000
        # The player starts at what was captured three target durations (12 s) ago: in the first run,
        # some 8 s before the second run's first segment was listed. Four-second segments leave that
        # much room for a slow browser start.
        page.get(f"{second.base}/watch/demo?engine={engine}")
        wait_for_playback(page, seconds=1, within=3)
        generation = page.execute_script("return window.onair.generation")
        shown = time_code_reader(page)
        assert shown() < restarted_at, "it starts in the first run"
        # Up to 8 s of the first run to play, then 2 s of the second, without a stall.
        wait_until(lambda: (shown() or 0) > restarted_at + 2, 15, interval=0.2,
                   what="the second run's pictures on screen")
        later = shown() + 2
        wait_until(lambda: (shown() or 0) > later, 5, interval=0.2, what="the second run to play on")
        assert_played_through(page, generation)
        page.get("about:blank")
    finally:
        second.kill()


def test_a_paused_channel_says_so_and_shows_the_card(page):
    token = "a-token-for-the-page-test"
    publisher = Publisher("--segment-duration", "1", "--control-token", token)
    try:
        publisher.wait_for_segments(3)
        page.get(f"{publisher.base}/watch/demo?engine=mse")
        wait_for_playback(page, seconds=1, within=3)
        assert publisher.control("pause", token=token).status == 200
        wait_until(lambda: page.find_element(By.ID, "state").text == "PAUSED", 10, what="the badge to say paused")
        # The card reaches the picture a hold-back later; it keeps playing meanwhile.
        wait_for_playback(page, seconds=4, within=6)
        save_screenshot(page, "watch-paused.png")
        assert publisher.control("resume", token=token).status == 200
        wait_until(lambda: page.find_element(By.ID, "state").text == "LIVE", 10, what="the badge to say live")
        page.get("about:blank")
    finally:
        publisher.kill()
