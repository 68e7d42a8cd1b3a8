"""The channel's newest picture: `/live/<channel>/thumbnail.jpg`, read back (its size and the test
pattern's time code), and where the pages use it: the index page, the poster of the players, and
the link-preview tags of the watch page."""

import re
import subprocess
import time

import pytest

from browser import console_errors, start_chromium
from harness import Publisher, fetch, wait_until

BLOCKS = 44


def gray(jpeg, tmp_path):
    """The JPEG decoded by ffmpeg: (width, height, 8-bit luma rows)."""
    path = tmp_path / "thumbnail.jpg"
    path.write_bytes(jpeg)
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "stream=width,height",
                            "-of", "csv=p=0", str(path)], capture_output=True, text=True, check=True)
    width, height = map(int, probe.stdout.strip().split(","))
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-f", "rawvideo", "-pix_fmt", "gray", "-"],
                         capture_output=True, check=True).stdout
    assert len(raw) == width * height
    return width, height, [raw[row * width:(row + 1) * width] for row in range(height)]


def time_code(width, height, rows):
    """The capture time (ms, low 40 bits) the test pattern writes as blocks; the formulas of
    Sources/Capture/TimeCode.swift. None when the row is not a time code."""
    block = max(4, width // 80) & ~1
    clock_scale = max(2, width // 96) & ~1
    clock_y = (height // 2 - clock_scale * 2) & ~1
    x, y = ((width - BLOCKS * block) // 2) & ~1, (clock_y - 2 * block) & ~1
    row = rows[y + block // 2]
    bits = [row[x + i * block + block // 2] > 128 for i in range(BLOCKS)]
    if bits[:2] != [True, False] or bits[-2:] != [False, True]:
        return None
    return int("".join("1" if bit else "0" for bit in bits[2:-2]), 2)


def stalled(publisher):
    """Seconds the test pattern's slots were missed: it changes every frame, so a repeated frame is
    a slot captured late (a stall of the whole process on a loaded machine), its picture older."""
    return publisher.control(method="GET").json()["stats"]["framesRepeated"] / 30


def age_of(code):
    """How long ago, in seconds, a 40-bit millisecond time code was."""
    now = int(time.time() * 1000) & ((1 << 40) - 1)
    return ((now - code) % (1 << 40)) / 1000


@pytest.fixture(scope="module")
def channel():
    publisher = Publisher(channel="pictures")
    publisher.wait_for_segments(1)
    yield publisher
    publisher.kill()


def test_the_thumbnail_is_the_newest_picture_a_few_seconds_old(channel, tmp_path):
    response = channel.get("thumbnail.jpg")
    assert response.status == 200 and response.headers["content-type"] == "image/jpeg"
    assert response.headers["cache-control"] == "public, max-age=2"
    width, height, rows = gray(response.body, tmp_path)
    # The 1280x720 test pattern, at 640 wide.
    assert (width, height) == (640, 360)
    code = time_code(width, height, rows)
    assert code is not None, "the time code is readable"
    # Kept every 2 s, served at once: what the stream showed at most a few seconds ago.
    assert age_of(code) < 4 + stalled(channel), (age_of(code), stalled(channel))
    first_tag = response.headers["etag"]

    def newer():
        again = channel.get("thumbnail.jpg")
        return again.headers["etag"] != first_tag and again
    later = wait_until(newer, 6, interval=0.3, what="a newer picture")
    later_code = time_code(*gray(later.body, tmp_path))
    assert 1.5 <= ((later_code - code) % (1 << 40)) / 1000 <= 6
    assert age_of(later_code) < 4 + stalled(channel), (age_of(later_code), stalled(channel))
    # A picture is encoded once: asked for twice, the same picture is the same bytes.
    one, two = channel.get("thumbnail.jpg"), channel.get("thumbnail.jpg")
    if one.headers["etag"] == two.headers["etag"]:
        assert one.body == two.body


def test_the_api_and_the_watch_page_offer_it_to_link_previews(channel):
    entry = next(c for c in fetch(channel.base + "/api/channels").json() if c["name"] == "pictures")
    assert entry["thumbnail"] == "/live/pictures/thumbnail.jpg"
    html = fetch(channel.base + "/watch/pictures").text
    tags = dict(re.findall(r'<meta (?:property|name)="([a-z:_]+)" content="([^"]*)">', html))
    assert tags["og:title"] == "pictures · onair"
    assert tags["og:type"] == "video.other"
    assert tags["og:url"] == f"{channel.base}/watch/pictures"
    assert tags["og:image"] == tags["twitter:image"] == f"{channel.base}/live/pictures/thumbnail.jpg"
    assert tags["twitter:card"] == "summary_large_image"
    assert fetch(tags["og:image"]).status == 200
    # A Host that is not a plain name or address is never written into the page.
    hostile = fetch(channel.base + "/watch/pictures", headers={"Host": 'evil.example"><script>x()</script>'})
    assert hostile.status in (200, 400)
    assert "evil.example" not in hostile.text and "og:image" not in hostile.text


def test_the_pages_show_it_before_the_video_plays(channel):
    driver = start_chromium()
    try:
        driver.get(f"{channel.base}/embed/pictures?autoplay=0")
        wait_until(lambda: driver.execute_script("return document.querySelector('video').poster"), 15,
                   what="the embed's poster")
        assert driver.execute_script("return document.querySelector('video').poster") == \
            f"{channel.base}/live/pictures/thumbnail.jpg"
        driver.get(f"{channel.base}/")
        loaded = ("const p = document.querySelector('tr[data-channel=pictures] img.thumbnail');"
                  " return p && p.complete && p.naturalWidth;")
        assert wait_until(lambda: driver.execute_script(loaded), 15, what="the index page's thumbnail") == 640
        assert console_errors(driver) == []
    finally:
        driver.quit()


def test_a_channel_only_served_has_no_thumbnail(tmp_path):
    from edges import Origin
    origin = Origin()
    publisher = Publisher("--no-serve", *origin.push_arguments("relayed"), channel="relayed")
    try:
        wait_until(lambda: (response := fetch(f"{origin.base}/live/relayed/media.m3u8")) and response.status == 200,
                   30, what="the channel at the origin")
        assert fetch(f"{origin.base}/live/relayed/thumbnail.jpg").status == 404
        entry = next(c for c in fetch(origin.base + "/api/channels").json() if c["name"] == "relayed")
        assert "thumbnail" not in entry
        assert "og:image" not in fetch(f"{origin.base}/watch/relayed").text
    finally:
        publisher.kill()
        origin.stop()
