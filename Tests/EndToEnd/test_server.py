"""The built-in HTTP server, and stopping by signal."""

import gzip
import json
import re
import signal
import socket
from pathlib import Path

import pytest

from harness import Publisher, fetch, init_name, run_onair, wait_until
from hls_rules import MediaPlaylist

REPOSITORY = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mirror")
    publisher = Publisher("--hls-dir", str(folder), "--allow-origin", "https://example.org", cwd=folder)
    try:
        publisher.wait_for_segments(1)
        yield publisher, folder
    finally:
        publisher.kill()


@pytest.mark.parametrize("name, content_type, cache", [
    ("index.m3u8", "application/vnd.apple.mpegurl", "public, max-age=1"),
    ("media.m3u8", "application/vnd.apple.mpegurl", "public, max-age=1"),
    ("{init}", "video/mp4", "public, max-age=31536000, immutable"),
    ("{segment}", "video/mp4", "public, max-age=31536000, immutable"),
])
def test_files_have_their_type_and_caching(live, name, content_type, cache):
    response = live[0].get(named(live[0], name))
    assert response.status == 200
    assert response.headers["content-type"] == content_type
    assert response.headers["cache-control"] == cache
    assert int(response.headers["content-length"]) == len(response.body) > 0


def named(publisher, name):
    """`{init}`: the init segment the playlist names; `{segment}`: its newest segment."""
    text = publisher.get("media.m3u8").text
    return name.format(init=init_name(text), segment=MediaPlaylist(text).segments[-1]["uri"])


def test_playlists_are_gzipped_when_the_client_accepts_it(live):
    plain = live[0].get("media.m3u8")
    zipped = live[0].get("media.m3u8", headers={"Accept-Encoding": "br, gzip"})
    assert "content-encoding" not in plain.headers
    assert zipped.headers["content-encoding"] == "gzip"
    assert MediaPlaylist(gzip.decompress(zipped.body).decode()).tags["EXT-X-TARGETDURATION"] == "2"


def test_segments_are_never_gzipped(live):
    response = live[0].get(named(live[0], "{segment}"), headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in response.headers


def test_cors_allows_the_configured_origin(live):
    response = live[0].get("media.m3u8", headers={"Origin": "https://example.org"})
    assert response.headers["access-control-allow-origin"] == "https://example.org"


def test_head_answers_without_a_body(live):
    response = live[0].get(named(live[0], "{segment}"), method="HEAD")
    assert response.status == 200 and response.body == b""
    assert int(response.headers["content-length"]) > 0


@pytest.mark.parametrize("path", [
    "/live/nobody/index.m3u8", "/live/demo/seg999999.m4s", "/live/demo/nothing.txt", "/live/demo/%2e%2e%2fetc",
    "/elsewhere",
])
def test_unknown_channels_and_files_are_404(live, path):
    assert fetch(live[0].base + path).status == 404


def test_api_describes_the_channel(live):
    response = fetch(live[0].base + "/api/channels")
    assert response.status == 200 and response.headers["content-type"] == "application/json; charset=utf-8"
    assert response.headers["cache-control"] == "no-store"
    [channel] = json.loads(response.text)
    assert channel["name"] == "demo" and channel["state"] == "live"
    assert (channel["width"], channel["height"], channel["fps"], channel["format"]) == (1280, 720, 30, "fmp4")
    assert (channel["videoBitrate"], channel["audioBitrate"]) == (2_500_000, 128_000)
    assert channel["segments"] >= 1 and channel["measuredBitrate"] > 0
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", channel["startedAt"])
    assert channel["uptimeSeconds"] >= 2
    assert (channel["playlist"], channel["watch"], channel["embed"]) == (
        "/live/demo/index.m3u8", "/watch/demo", "/embed/demo")


@pytest.mark.parametrize("path, content_type", [
    ("/", "text/html; charset=utf-8"),
    ("/watch/demo", "text/html; charset=utf-8"),
    ("/watch/not-yet-started", "text/html; charset=utf-8"),
    ("/embed/demo", "text/html; charset=utf-8"),
    ("/web/player.js", "text/javascript"),
    ("/web/player/onair-player.js", "text/javascript"),
    ("/web/player/playlists.js", "text/javascript"),
    ("/web/style.css", "text/css"),
    ("/web/icon.svg", "image/svg+xml"),
])
def test_pages_are_served_from_the_binary(live, path, content_type):
    # The publisher runs in a folder without web/: the pages come from the binary itself.
    response = fetch(live[0].base + path)
    assert response.status == 200 and response.headers["content-type"] == content_type
    assert len(response.body) > 100
    if path.startswith("/web/"):
        assert fetch(live[0].base + path, headers={"If-None-Match": response.headers["etag"]}).status == 304
        assert response.body == (REPOSITORY / "web" / path.removeprefix("/web/")).read_bytes()


def test_viewers_are_distinct_players_that_reloaded_recently(live):
    publisher = live[0]

    def viewers():
        return json.loads(fetch(publisher.base + "/api/channels").text)[0]["viewers"]

    wait_until(lambda: viewers() == 0, 10, what="earlier players to be forgotten")
    entry = fetch(publisher.url("index.m3u8?session=one")).text
    # The session follows the player to its reloads, of the media and of the I-frame playlist.
    assert [line for line in entry.splitlines() if not line.startswith("#")] == ["media.m3u8?session=one"]
    assert 'URI="iframes.m3u8?session=one"' in entry
    for _ in range(2):
        publisher.get("media.m3u8?session=one")
        publisher.get("media.m3u8?session=two")
        publisher.get("media.m3u8", headers={"User-Agent": "VLC/3.0"})
    # A segment alone is not a player (its name read from the folder: a playlist request would be one).
    newest = MediaPlaylist((live[1] / "live/demo/media.m3u8").read_text()).segments[-1]["uri"]
    publisher.get(f"{newest}?session=three")
    assert viewers() == 3
    # Three target durations after their last reload, players no longer count.
    wait_until(lambda: viewers() == 0, 10, what="the players to leave")


def test_mirror_never_names_a_missing_segment(live):
    publisher, folder = live
    channel = folder / "live" / "demo"
    for count in (2, 3):
        publisher.wait_for_segments(count)
        playlist = MediaPlaylist((channel / "media.m3u8").read_text())
        assert all((channel / s["uri"]).is_file() for s in playlist.segments)
        assert (channel / init_name((channel / "media.m3u8").read_text())).is_file()


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_flushes_the_last_segment_and_ends_the_playlist(tmp_path, sig):
    publisher = Publisher("--hls-dir", str(tmp_path), "--format", "ts")
    try:
        publisher.wait_for_segments(1)
        live = MediaPlaylist(publisher.get("media.m3u8").text)
        assert publisher.stop(sig) == 0, publisher.output()
    finally:
        publisher.kill()
    final = MediaPlaylist((tmp_path / "live/demo/media.m3u8").read_text())
    assert final.ended
    assert len(final.segments) > len(live.segments), "the partial segment is listed"
    assert all((tmp_path / "live/demo" / s["uri"]).stat().st_size > 0 for s in final.segments)


@pytest.mark.parametrize("command", ["publish", "serve"])
def test_a_port_in_use_is_refused_before_anything_starts(tmp_path, command):
    out = tmp_path / "out"
    folder = ("--hls-dir", str(out)) if command == "publish" else ("--record", str(out))
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_onair(command, "--host", "127.0.0.1", "--port", str(port), *folder,
                           env={"ONAIR_INGEST_TOKEN": "a-token-of-sixteen-characters"})
    assert result.returncode == 2
    assert result.stderr.strip() == f"onair: port {port} on 127.0.0.1 is not available (Address already in use); choose another with --port"
    assert not out.exists()


def test_a_segment_that_left_the_playlist_stays_downloadable_then_goes():
    # 1 s segments, 3 listed: the first leaves when the fourth is listed, and stays 1 + 3 s more.
    publisher = Publisher("--segment-duration", "1", "--playlist-size", "3")
    try:
        publisher.wait_for_segments(1)
        first = publisher.first_sequence()
        name = f"seg{first}.m4s"
        def removed():
            playlist = MediaPlaylist(publisher.get("media.m3u8").text)
            return playlist.sequence >= first + 1 and playlist
        playlist = wait_until(removed, 30, what="the first segment to leave the playlist")
        assert name not in [s["uri"] for s in playlist.segments]
        assert publisher.get(name).status == 200, "still downloadable right after it left"
        wait_until(lambda: publisher.get(name).status == 404, 15, what="the first segment to be freed")
        later = MediaPlaylist(publisher.get("media.m3u8").text)
        assert later.sequence >= first + 4, "freed no sooner than its duration plus the playlist's after leaving"
    finally:
        publisher.kill()


def test_the_server_stays_while_viewers_fetch_the_end_of_the_stream():
    publisher = Publisher()
    try:
        publisher.wait_for_segments(2)
        publisher.process.send_signal(signal.SIGINT)
        # A player that keeps reloading is answered, and gets the ended playlist.
        def playlist():
            response = publisher.get("media.m3u8")
            return response.text if response else ""
        wait_until(lambda: "#EXT-X-ENDLIST" in playlist(), 10, what="the ended playlist over HTTP")
        assert publisher.get(f"seg{publisher.first_sequence()}.m4s").status == 200
        # Once nothing is fetched for a target duration, it goes.
        assert publisher.process.wait(timeout=10) == 0
        assert "serving the end of the stream to its viewers" in publisher.output()
    finally:
        publisher.kill()


def test_with_no_viewers_the_server_stops_with_the_broadcast():
    publisher = Publisher()
    try:
        wait_until(lambda: "[started]" in publisher.output(), 10, what="the server")
        assert publisher.stop() == 0
        assert "serving the end of the stream" not in publisher.output()
    finally:
        publisher.kill()


def test_a_second_ctrl_c_quits_without_waiting_for_viewers():
    publisher = Publisher()
    try:
        publisher.wait_for_segments(1)
        publisher.process.send_signal(signal.SIGINT)
        wait_until(lambda: publisher.get("media.m3u8") and "serving the end of the stream" in publisher.output(), 10,
                   what="the server to stay for a viewer")
        publisher.process.send_signal(signal.SIGINT)
        assert publisher.process.wait(timeout=2) == 0
        assert publisher.get("media.m3u8") is None
    finally:
        publisher.kill()
