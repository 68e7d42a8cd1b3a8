"""AV1 (--codec av1, or a rung's :av1): what a viewer receives is AV1 in fMP4 with its exact CODECS
and a key frame starting every segment; it plays in Chromium (the watch page's MSE player, and
hls.js), in Firefox (the watch page's), ffmpeg, mpv and VLC; an origin, a recording and its MP4
carry it; and what cannot carry it is refused before anything starts."""

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from browser import OtherOrigin, console_errors, player_status, save_screenshot, start_chromium, start_firefox
from edges import Origin
from harness import Publisher, assert_refused, ffprobe, init_name, run_onair, wait_until
from hls_rules import MediaPlaylist, check_media_playlist, check_multivariant

HERE = Path(__file__).resolve().parent
HLS_JS = HERE / "players/hls-1.7.0.min.js"


def codecs_of(multivariant):
    return [variant["CODECS"].strip('"') for variant in check_multivariant(multivariant)]


def expected_av1_codecs(media):
    """The codec string for an AV1 stream as ffprobe reads it: av01.<profile>.<level><tier>.<depth>."""
    stream = next(s for s in ffprobe(media)["streams"] if s["codec_type"] == "video")
    assert stream["codec_name"] == "av1" and stream["profile"] == "Main" and stream["pix_fmt"] == "yuv420p", stream
    return f"av01.0.{stream['level']:02d}M.08"


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    """The test pattern at 640x360 in AV1, kept in a folder too, with a rewind window."""
    folder = tmp_path_factory.mktemp("av1")
    publisher = Publisher("--codec", "av1", "--size", "640x360", "--hls-dir", str(folder), "--dvr", "10m",
                          channel="av1")
    publisher.wait_for_segments(3, timeout=60)
    yield publisher, folder / "live/av1"
    publisher.kill()


def test_an_av1_stream_is_fmp4_with_its_exact_codecs_and_a_key_frame_starting_each_segment(single, tmp_path):
    publisher, folder = single
    playlist = MediaPlaylist(publisher.get("media.m3u8").text)
    check_media_playlist(playlist, "fmp4", window=6)
    header = publisher.get(init_name(publisher.get("media.m3u8").text)).body
    for segment in playlist.segments[:3]:
        media = tmp_path / segment["uri"].replace(".m4s", ".mp4")
        media.write_bytes(header + publisher.get(segment["uri"]).body)
        frames = ffprobe(media, "-select_streams", "v", "-show_entries", "frame=key_frame")["frames"]
        assert frames and frames[0]["key_frame"] == 1, (segment["uri"], frames[:2])
        assert sum(frame["key_frame"] for frame in frames) == 1, segment["uri"]
    [codecs] = codecs_of(publisher.get("index.m3u8").text)
    assert codecs == expected_av1_codecs(media) + ",mp4a.40.2", codecs
    # The default rate for AV1 is half of H.264's: 1250k announced for 640x360 here.
    variant = check_multivariant(publisher.get("index.m3u8").text)[0]
    assert int(variant["BANDWIDTH"]) < 2_500_000, variant


def test_ffmpeg_mpv_and_vlc_decode_it(single, tmp_path):
    publisher, _ = single
    url = publisher.url("index.m3u8")
    decoded = subprocess.run(["ffmpeg", "-v", "error", "-i", url, "-t", "3", "-map", "0:v", "-f", "framemd5", "-"],
                             capture_output=True, text=True, timeout=60)
    assert decoded.returncode == 0 and decoded.stderr == "", decoded.stderr
    assert len([line for line in decoded.stdout.splitlines() if not line.startswith("#")]) >= 60
    mpv = subprocess.run(["mpv", "--no-config", "--vo=null", "--ao=null", "--frames=60", url],
                         capture_output=True, text=True, timeout=60)
    assert mpv.returncode == 0 and "(av1 640x360" in mpv.stdout, mpv.stdout + mpv.stderr
    # VLC will not run as root; it plays as nobody, with a home of its own for its settings.
    home = tmp_path / "vlc-home"
    home.mkdir()
    os.chmod(home, 0o777)
    vlc = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "cvlc", "--intf", "dummy",
                          "--vout", "dummy", "--aout", "dummy", "--run-time", "4", "--play-and-exit", "-vv", url],
                         capture_output=True, text=True, timeout=60, env={**os.environ, "HOME": str(home)})
    log = vlc.stdout + vlc.stderr
    assert 'using video decoder module "dav1d"' in log, log[-3000:]
    assert "av01" in log and "no suitable decoder" not in log


def test_the_rewind_window_serves_it_from_its_start(single):
    publisher, _ = single
    assert codecs_of(publisher.get("dvr.m3u8").text)[0].startswith("av01.")
    probe = json.loads(subprocess.run(
        ["ffprobe", "-v", "error", "-of", "json", "-show_streams", "-show_entries", "frame=key_frame", "-read_intervals",
         "%+#1", "-select_streams", "v", publisher.url("dvr-media.m3u8")],
        capture_output=True, text=True, timeout=60, check=True).stdout)
    assert probe["streams"][0]["codec_name"] == "av1" and probe["frames"][0]["key_frame"] == 1, probe


@pytest.fixture(scope="module")
def ladder():
    """360p in AV1 beside its H.264 twin and a 180p H.264 rung below."""
    publisher = Publisher("--renditions", "360p,360p:av1,180p",
                          channel="av1ladder")
    wait_until(lambda: (response := publisher.get("180p/media.m3u8")) and response.status == 200
               and response.text.count("#EXTINF") >= 3, 60, what="three segments")
    yield publisher
    publisher.kill()


def test_a_ladder_offers_an_av1_rung_beside_its_h264_twin(ladder):
    variants = check_multivariant(ladder.get("index.m3u8").text)
    assert [v["URI"] for v in variants] == ["360p/media.m3u8", "360p-av1/media.m3u8", "180p/media.m3u8"]
    assert [codecs[:4] for codecs in codecs_of(ladder.get("index.m3u8").text)] == ["avc1", "av01", "avc1"]
    assert [v["RESOLUTION"] for v in variants] == ["640x360", "640x360", "320x180"]


@pytest.mark.parametrize("browser", ["chromium", "firefox"])
def test_the_watch_page_plays_the_av1_rung(ladder, browser):
    driver = start_chromium() if browser == "chromium" else start_firefox()
    try:
        driver.get(f"{ladder.base}/watch/av1ladder?muted=1")
        wait_until(lambda: player_status(driver)["time"] > 1, 30, interval=0.2, what="playback")
        start = player_status(driver)["time"]
        wait_until(lambda: player_status(driver)["time"] - start >= 3, 15, interval=0.2, what="3 s more")
        chosen = driver.execute_script(
            "const p = window.onair; return {codecs: p.variant.codecs, names: p.variants.map(v => v.uri),"
            " buffer: p.bufferCodecs, width: p.video.videoWidth};")
        # Both decode AV1: of the two 360p variants the player keeps the cheaper, the AV1 one,
        # starts on it (the best a first guess of the link carries) and plays it.
        assert [uri.split("/")[-2] for uri in chosen["names"]] == ["180p", "360p-av1"], chosen
        assert chosen["codecs"].startswith("av01") and chosen["buffer"].startswith("av01"), chosen
        assert chosen["width"] == 640, chosen
        assert player_status(driver)["problem"] is None
        if browser == "chromium":
            assert console_errors(driver) == []
        # What the viewer sees: the test pattern's moving picture, not a still one.
        first = picture_of(driver)
        wait_until(lambda: picture_of(driver) != first, 5, interval=0.2, what="the picture to change")
        save_screenshot(driver, f"av1-watch-{browser}.png")
    finally:
        driver.quit()


def picture_of(driver):
    """The video's picture now, drawn into a canvas, as a data URL."""
    return driver.execute_script(
        "const v = window.onair.video, c = document.createElement('canvas'); c.width = 160; c.height = 90;"
        " c.getContext('2d').drawImage(v, 0, 0, 160, 90); return c.toDataURL();")


def test_hls_js_plays_the_av1_rung(ladder):
    page = OtherOrigin(f"""<!doctype html><video id="v" muted autoplay playsinline></video>
<script>{HLS_JS.read_text()}</script>
<script>
const video = document.getElementById("v");
const hls = new Hls();
window.state = {{errors: []}};
hls.on(Hls.Events.ERROR, (event, data) => window.state.errors.push(data.details + (data.fatal ? " (fatal)" : "")));
hls.on(Hls.Events.MANIFEST_PARSED, (event, data) => {{
    window.state.levels = data.levels.map(level => level.videoCodec);
    hls.currentLevel = data.levels.findIndex(level => (level.videoCodec || "").startsWith("av01"));
}});
hls.loadSource("{ladder.url('index.m3u8')}");
hls.attachMedia(video);
video.play().catch(() => {{}});
</script>""")
    driver = start_chromium()
    try:
        driver.get(page.url)
        state = lambda: driver.execute_script(
            "const v = document.getElementById('v'); return {time: v.currentTime, width: v.videoWidth,"
            " level: hls.currentLevel, codec: hls.currentLevel >= 0 ? hls.levels[hls.currentLevel].videoCodec : null,"
            " levels: window.state.levels, errors: window.state.errors};")
        wait_until(lambda: state()["time"] > 2, 40, interval=0.2, what="hls.js playing")
        taken = state()
        assert taken["codec"].startswith("av01") and taken["width"] == 640, taken
        assert not any("fatal" in error for error in taken["errors"]), taken
    finally:
        driver.quit()
        page.close()


def test_an_origin_serves_what_an_av1_publisher_pushes(tmp_path):
    origin = Origin()
    publisher = Publisher("--codec", "av1", "--size", "640x360", "--no-serve", *origin.push_arguments("av1origin"),
                          channel="av1origin")
    try:
        url = f"{origin.base}/live/av1origin/index.m3u8"
        wait_until(lambda: (response := subprocess.run(["curl", "-sf", url], capture_output=True, text=True))
                   and "av01." in response.stdout, 60, what="the origin's multivariant playlist")
        probe = json.loads(subprocess.run(["ffprobe", "-v", "error", "-of", "json", "-show_streams", url],
                                          capture_output=True, text=True, timeout=60, check=True).stdout)
        assert [s["codec_name"] for s in probe["streams"] if s["codec_type"] == "video"] == ["av1"]
    finally:
        publisher.kill()
        origin.stop()


def test_a_recording_and_its_mp4_carry_av1(tmp_path):
    root = tmp_path / "recordings"
    publisher = Publisher("--codec", "av1", "--size", "640x360", "--record", str(root), "--record-mp4",
                          "--duration", "5s", channel="av1rec")
    assert publisher.process.wait(timeout=60) == 0, publisher.output()
    [folder] = list((root / "av1rec").iterdir())
    probe = ffprobe(folder / "recording.mp4", "-show_format")
    assert [s["codec_name"] for s in probe["streams"]] == ["av1", "aac"], probe["streams"]
    assert abs(float(probe["format"]["duration"]) - 5) < 0.3, probe["format"]


@pytest.mark.parametrize("arguments, message", [
    (["--codec", "vp9"], "The value 'vp9' is invalid for '--codec <h264|av1>'"),
    (["--renditions", "720p:hevc"], "--renditions: '720p:hevc' names codec 'hevc': give one of h264, av1"),
    (["--codec", "av1", "--format", "ts"], "--codec av1 is carried in fMP4 segments only: drop --format ts"),
    (["--renditions", "720p:av1,360p", "--push", "rtmp://127.0.0.1:1935/live/key"],
     "the av1 rendition cannot go to --push rtmp://127.0.0.1:1935/live/…: RTMP and SRT carry h264 only"),
    (["--codec", "av1", "--push", "srt://127.0.0.1:9000"], "--codec av1 cannot go to --push srt://127.0.0.1:9000"),
], ids=["unknown", "unknown-in-a-rung", "ts", "rtmp", "srt"])
def test_a_codec_that_cannot_be_carried_is_one_line_and_status_2(tmp_path, arguments, message):
    result = run_onair("publish", "--hls-dir", str(tmp_path / "out"), *arguments)
    assert_refused(result, message)
    assert not (tmp_path / "out").exists()
