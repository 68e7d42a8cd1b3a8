"""I-frame playlists (EXT-X-I-FRAMES-ONLY): every video rung lists its segments' keyframes by byte
range, live, in the rewind window, on an origin fed by a push, and in a recording; every listed
range decodes on its own to the segment's first picture; ffmpeg and Shaka Player play them."""

import json
import subprocess
from pathlib import Path
from urllib.parse import urljoin

import pytest

from browser import OtherOrigin, start_chromium
from edges import Origin
from harness import Publisher, fetch, wait_until
from hls_rules import MediaPlaylist, check_iframe_playlist, check_multivariant, iframe_streams

HERE = Path(__file__).resolve().parent
RUNGS = ["720p", "360p"]


@pytest.fixture(scope="module")
def stream(tmp_path_factory):
    """A Low-Latency ladder with a rewind window and a recording, pushed to an origin."""
    record = tmp_path_factory.mktemp("record")
    origin = Origin()
    publisher = Publisher("--renditions", ",".join(RUNGS), "--low-latency", "--dvr", "1m", "--record", str(record),
                          *origin.push_arguments("keys"), channel="keys")
    try:
        for base in (publisher.url(""), f"{origin.base}/live/keys/"):
            wait_until(lambda: (response := fetch(base + "360p/iframes.m3u8")) and response.status == 200
                       and response.text.count("#EXT-X-BYTERANGE") >= 3, 40, what=f"three keyframes at {base}")
        yield publisher, origin, record
    finally:
        publisher.kill()
        origin.process.kill()


def picture(path):
    """The MD5 of the first decoded picture of an fMP4 file, and how many pictures it holds (key
    pictures among them)."""
    md5 = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-map", "0:v", "-frames:v", "1", "-f", "md5", "-"],
                         capture_output=True, text=True, check=True).stdout.strip()
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "frame=key_frame",
                            "-of", "json", str(path)], capture_output=True, text=True, check=True)
    assert probe.stderr == "", probe.stderr
    frames = json.loads(probe.stdout)["frames"]
    return md5, len(frames), sum(frame["key_frame"] for frame in frames)


def check_keyframes(get, iframes_uri, tmp_path, newest=None):
    """Reads the I-frame playlist at `iframes_uri` through `get(uri, range)`, and decodes each
    listed keyframe (the `newest` ones only, when given): init segment plus byte range is one
    picture, a key picture, the same as the segment's own first one. Returns the playlist."""
    playlist = check_iframe_playlist(get(iframes_uri, None))
    init = get(urljoin(iframes_uri, playlist.tags["EXT-X-MAP"].split('"')[1]), None)
    entries = [s for s in playlist.segments if not s.get("gap")]
    assert entries, "keyframes listed"
    for index, entry in enumerate(entries[-newest:] if newest else entries):
        length, offset = entry["byterange"]
        uri = urljoin(iframes_uri, entry["uri"])
        keyframe = get(uri, (offset, length))
        assert len(keyframe) == length
        alone, whole = tmp_path / f"keyframe{index}.mp4", tmp_path / f"segment{index}.mp4"
        alone.write_bytes(init + keyframe)
        whole.write_bytes(init + get(uri, None))
        md5, count, keys = picture(alone)
        assert (count, keys) == (1, 1), (uri, entry)
        assert md5 == picture(whole)[0], f"{uri}@{offset}: the keyframe is the segment's first picture"
    return playlist


def http(uri, byte_range):
    """A file over HTTP, or the bytes of `(offset, length)` asked with a Range header (206)."""
    if byte_range is None:
        response = fetch(uri)
        assert response.status == 200, (uri, response.status)
        return response.text if uri.split("?")[0].endswith(".m3u8") else response.body
    offset, length = byte_range
    response = fetch(uri, headers={"Range": f"bytes={offset}-{offset + length - 1}"})
    assert response.status == 206, (uri, response.status)
    return response.body


def test_every_video_rung_lists_its_keyframes_live_and_each_decodes_alone(stream, tmp_path):
    publisher, _, _ = stream
    index = publisher.get("index.m3u8").text
    variants = check_multivariant(index)
    streams = iframe_streams(index)
    # One per video rung, as large as its variant, its codec the variant's video codec.
    assert [s["URI"] for s in streams] == [f"{rung}/iframes.m3u8" for rung in RUNGS]
    assert [s["RESOLUTION"] for s in streams] == [v["RESOLUTION"] for v in variants]
    assert [s["CODECS"] for s in streams] == [v["CODECS"].split(",")[0] + '"' for v in variants]
    for rung in RUNGS:
        playlist = check_keyframes(http, publisher.url(f"{rung}/iframes.m3u8"), tmp_path)
        # Numbered as the segments are, which a player needs to match the two playlists.
        media = MediaPlaylist(publisher.get(f"{rung}/media.m3u8").text)
        listed = {s["uri"]: media.sequence + i for i, s in enumerate(media.segments)}
        keyed = {s["uri"]: playlist.sequence + i for i, s in enumerate(playlist.segments)}
        assert all(listed[uri] == number for uri, number in keyed.items() if uri in listed), (listed, keyed)
    # A keyframe is a fraction of what a segment costs.
    assert all(int(s["BANDWIDTH"]) < int(v["BANDWIDTH"]) for s, v in zip(streams, variants))


def test_the_rewind_window_and_the_origin_list_their_own(stream, tmp_path):
    publisher, origin, _ = stream
    rewind = publisher.get("dvr.m3u8").text
    assert [s["URI"] for s in iframe_streams(rewind)] == [f"{rung}/dvr-iframes.m3u8" for rung in RUNGS]
    for rung in RUNGS:
        window = check_keyframes(http, publisher.url(f"{rung}/dvr-iframes.m3u8"), tmp_path, newest=2)
        assert "EXT-X-PLAYLIST-TYPE" not in window.tags
    # The origin reads the keyframes from the pushed segments' boxes itself.
    served = fetch(f"{origin.base}/live/keys/index.m3u8").text
    assert [s["URI"] for s in iframe_streams(served)] == [f"{rung}/iframes.m3u8" for rung in RUNGS]
    for rung in RUNGS:
        check_keyframes(http, f"{origin.base}/live/keys/{rung}/iframes.m3u8", tmp_path, newest=2)


def test_a_recording_keeps_an_iframe_playlist_per_rung(stream, tmp_path):
    publisher, _, record = stream
    assert publisher.stop() == 0
    [folder] = (record / "keys").iterdir()
    index = (folder / "index.m3u8").read_text()
    assert [s["URI"] for s in iframe_streams(index)] == [f"{rung}/iframes.m3u8" for rung in RUNGS]

    def read(uri, byte_range):
        path = Path(uri.removeprefix("file://"))
        if byte_range is None:
            return path.read_text() if path.suffix == ".m3u8" else path.read_bytes()
        offset, length = byte_range
        return path.read_bytes()[offset:offset + length]

    for rung in RUNGS:
        playlist = check_keyframes(read, (folder / rung / "iframes.m3u8").as_uri(), tmp_path, newest=3)
        assert playlist.tags["EXT-X-PLAYLIST-TYPE"] == "VOD" and playlist.ended
        media = MediaPlaylist((folder / rung / "media.m3u8").read_text())
        assert [s["uri"] for s in playlist.segments] == [s["uri"] for s in media.segments]


def test_ffmpeg_and_shaka_player_play_a_recordings_iframe_playlist(stream):
    """Served by `onair serve --record`: ffmpeg plays an I-frame playlist over HTTP as the key
    pictures it lists, at their times; Shaka Player takes it as the trick-play track of its variant
    and streams it when asked to rewind fast."""
    publisher, _, record = stream
    publisher.stop()
    server = Origin("--record", str(record))
    browser = page = None
    try:
        [folder] = (record / "keys").iterdir()
        base = f"{server.base}/recordings/keys/{folder.name}/"
        for rung in RUNGS:
            playlist = MediaPlaylist(fetch(base + f"{rung}/iframes.m3u8").text)
            probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries",
                                    "frame=key_frame,pts_time", "-of", "json", base + f"{rung}/iframes.m3u8"],
                                   capture_output=True, text=True, check=True, timeout=60)
            frames = json.loads(probe.stdout)["frames"]
            assert [f["key_frame"] for f in frames] == [1] * len(playlist.segments), (rung, frames)
            times = [float(f["pts_time"]) for f in frames]
            durations = [s["duration"] for s in playlist.segments]
            assert all(abs((b - a) - d) < 0.05 for a, b, d in zip(times, times[1:], durations)), (times, durations)

        html = f"""<!doctype html><body><video muted autoplay playsinline width="640" height="360"></video>
<script>{(HERE / "players" / "shaka-player-4.16.44.compiled.js").read_text()}</script>
<script>
const video = document.querySelector("video");
window.errors = [];
shaka.polyfill.installAll();
window.player = new shaka.Player();
player.addEventListener("error", (event) => errors.push(event.detail.code));
player.attach(video).then(() => player.load("{base}index.m3u8")).catch((error) => errors.push("load " + error.code));
</script>"""
        page = OtherOrigin(html)
        browser = start_chromium()
        browser.get(page.url)
        wait_until(lambda: browser.execute_script("return video.currentTime > 1 || errors.length"), 20,
                   what="Shaka Player to play the recording")
        tracks = browser.execute_script("""
            return player.getManifest().variants.map((v) => v.video.trickModeVideo && v.video.trickModeVideo.height);""")
        # Each variant's trick-play track is its own rung's I-frame playlist.
        assert sorted(set(tracks)) == [360, 720], tracks
        browser.execute_script("video.currentTime = video.duration - 1; player.trickPlay(-4);")

        def keyframes_fetched():
            names = browser.execute_script("return performance.getEntriesByType('resource').map((e) => e.name)")
            playlists = [i for i, name in enumerate(names) if name.endswith("/iframes.m3u8")]
            return playlists and len([n for n in names[playlists[0]:] if n.endswith(".m4s")]) >= 3
        wait_until(keyframes_fetched, 15, what="Shaka Player to fetch keyframes from the I-frame playlist")
        assert browser.execute_script("return errors") == []
    finally:
        if browser:
            browser.quit()
        if page:
            page.close()
        server.process.kill()
