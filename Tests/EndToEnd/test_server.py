"""The built-in HTTP server, and stopping by signal."""

import gzip
import signal
import socket

import pytest

from harness import Publisher, fetch, run_onair, wait_until
from hls_rules import MediaPlaylist


@pytest.fixture(scope="module")
def live(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mirror")
    publisher = Publisher("--hls-dir", str(folder), "--allow-origin", "https://example.org")
    try:
        publisher.wait_for_segments(1)
        yield publisher, folder
    finally:
        publisher.kill()


@pytest.mark.parametrize("name, content_type, cache", [
    ("index.m3u8", "application/vnd.apple.mpegurl", "no-cache"),
    ("media.m3u8", "application/vnd.apple.mpegurl", "no-cache"),
    ("init.mp4", "video/mp4", "public, max-age=31536000, immutable"),
    ("seg0.m4s", "video/mp4", "public, max-age=31536000, immutable"),
])
def test_files_have_their_type_and_caching(live, name, content_type, cache):
    response = live[0].get(name)
    assert response.status == 200
    assert response.headers["content-type"] == content_type
    assert response.headers["cache-control"] == cache
    assert int(response.headers["content-length"]) == len(response.body) > 0


def test_playlists_are_gzipped_when_the_client_accepts_it(live):
    plain = live[0].get("media.m3u8")
    zipped = live[0].get("media.m3u8", headers={"Accept-Encoding": "br, gzip"})
    assert "content-encoding" not in plain.headers
    assert zipped.headers["content-encoding"] == "gzip"
    assert MediaPlaylist(gzip.decompress(zipped.body).decode()).tags["EXT-X-TARGETDURATION"] == "2"


def test_segments_are_never_gzipped(live):
    response = live[0].get("seg0.m4s", headers={"Accept-Encoding": "gzip"})
    assert "content-encoding" not in response.headers


def test_cors_allows_the_configured_origin(live):
    response = live[0].get("media.m3u8", headers={"Origin": "https://example.org"})
    assert response.headers["access-control-allow-origin"] == "https://example.org"


def test_head_answers_without_a_body(live):
    response = live[0].get("seg0.m4s", method="HEAD")
    assert response.status == 200 and response.body == b""
    assert int(response.headers["content-length"]) > 0


@pytest.mark.parametrize("path", [
    "/live/nobody/index.m3u8", "/live/demo/seg999999.m4s", "/live/demo/nothing.txt", "/live/demo/%2e%2e%2fetc",
    "/elsewhere",
])
def test_unknown_channels_and_files_are_404(live, path):
    assert fetch(live[0].base + path).status == 404


def test_index_page_lists_the_live_channel(live):
    response = fetch(live[0].base + "/")
    assert response.status == 200 and response.headers["content-type"].startswith("text/html")
    assert 'href="/live/demo/index.m3u8">demo</a> — LIVE' in response.text


def test_mirror_never_names_a_missing_segment(live):
    publisher, folder = live
    channel = folder / "live" / "demo"
    for count in (2, 3):
        publisher.wait_for_segments(count)
        playlist = MediaPlaylist((channel / "media.m3u8").read_text())
        assert all((channel / s["uri"]).is_file() for s in playlist.segments)
        assert (channel / "init.mp4").is_file()


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


def test_a_port_in_use_is_refused_before_anything_starts(tmp_path):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_onair("publish", "--host", "127.0.0.1", "--port", str(port), "--hls-dir", str(tmp_path / "out"))
    assert result.returncode == 2
    assert result.stderr.strip() == f"onair: port {port} on 127.0.0.1 is not available (Address already in use); choose another with --port"
    assert not (tmp_path / "out").exists()


def test_a_segment_that_left_the_playlist_stays_downloadable_then_goes():
    # 1 s segments, 3 listed: seg0 leaves when seg3 is listed, and stays 1 + 3 s more.
    publisher = Publisher("--segment-duration", "1", "--playlist-size", "3")
    try:
        publisher.wait_for_segments(1)
        def removed():
            playlist = MediaPlaylist(publisher.get("media.m3u8").text)
            return playlist.sequence >= 1 and playlist
        playlist = wait_until(removed, 30, what="seg0 to leave the playlist")
        assert "seg0.m4s" not in [s["uri"] for s in playlist.segments]
        assert publisher.get("seg0.m4s").status == 200, "still downloadable right after it left"
        wait_until(lambda: publisher.get("seg0.m4s").status == 404, 15, what="seg0 to be freed")
        later = MediaPlaylist(publisher.get("media.m3u8").text)
        assert later.sequence >= 4, "freed no sooner than its duration plus the playlist's after leaving"
    finally:
        publisher.kill()
