"""`onair serve` as a Low-Latency HLS origin: publishers push into it (onair, and ffmpeg as a
third party), viewers get it directly and through the edge caches shipped in deploy/ (nginx and
Varnish, real ones), and the faults: a publisher that dies or comes back, an origin that restarts."""

import http.client
import re
import subprocess
import time
from urllib.parse import urlsplit

import pytest

from destinations import SeaweedFS
from edges import TOKEN, NginxEdge, Origin, VarnishEdge, Viewers
from harness import Publisher, fetch, ffprobe, init_name, run_onair, wait_until
from hls_rules import (MediaPlaylist, check_low_latency, check_media_playlist, check_multivariant, check_recording,
                       next_part)

LIVE = ("--low-latency", "--part-duration", "0.2", "--size", "640x360", "--no-serve")


def listed(base, channel="demo", count=1):
    response = fetch(f"{base}/live/{channel}/media.m3u8")
    return response is not None and response.status == 200 and response.text.count("#EXTINF") >= count


@pytest.fixture(scope="module")
def chain(tmp_path_factory):
    """A publisher pushing Low-Latency HLS into an origin, with an nginx and a Varnish edge in front."""
    origin = Origin()
    publisher = Publisher(*LIVE, *origin.push_arguments())
    folder = tmp_path_factory.mktemp("edges")
    edges = {"nginx": NginxEdge(folder / "nginx", origin.port), "varnish": VarnishEdge(folder / "varnish", origin.port)}
    wait_until(lambda: listed(origin.base, count=2), 30, what="two segments at the origin")
    yield origin, edges
    for edge in edges.values():
        edge.stop()
    publisher.kill()
    origin.stop()


def base_of(chain, where):
    origin, edges = chain
    return origin.base if where == "origin" else edges[where].base


@pytest.mark.parametrize("where", ["origin", "nginx", "varnish"])
def test_every_playlist_seen_over_blocking_reloads_obeys_the_rules(chain, where):
    base = f"{base_of(chain, where)}/live/demo/"
    text = fetch(base + "media.m3u8").text
    seen = []
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        msn, part = next_part(text)
        response = fetch(f"{base}media.m3u8?_HLS_msn={msn}&_HLS_part={part}")
        assert response.status == 200, response.text
        text = response.text
        parts, hint = check_low_latency(text)
        check_media_playlist(MediaPlaylist(text), "fmp4", window=6)
        assert (msn, part) in {(sequence, index) for sequence, index, _ in parts} or next_part(text)[0] > msn
        # The hinted part, as a player fetches it, is a fragment.
        assert fetch(base + hint["URI"].strip('"')).body[4:8] == b"moof"
        seen.append((msn, part))
    assert len(seen) >= 12, f"every part in turn, about five a second: {seen}"
    playlist = MediaPlaylist(text)
    segment = fetch(base + playlist.segments[-1]["uri"])
    assert segment.status == 200 and segment.body[4:8] == b"moof"
    probe = ffprobe(base + "index.m3u8")
    assert {stream["codec_name"] for stream in probe["streams"]} == {"h264", "aac"}


def test_the_origin_tells_caches_what_they_may_keep(chain):
    origin, _ = chain
    base = f"{origin.base}/live/demo/"
    text = fetch(base + "media.m3u8").text
    msn, part = next_part(text)
    expected = {
        "index.m3u8": "public, max-age=1",
        "media.m3u8": "public, max-age=1",
        # Kept by edges for the second in which its viewers ask; by no browser (docs/origin.md).
        f"media.m3u8?_HLS_msn={msn}&_HLS_part={part}": "public, max-age=0, s-maxage=1",
        init_name(text): "public, max-age=31536000, immutable",
        MediaPlaylist(text).segments[-1]["uri"]: "public, max-age=31536000, immutable",
    }
    for name, cache_control in expected.items():
        response = fetch(base + name)
        assert response.status == 200 and response.headers["cache-control"] == cache_control, name


@pytest.mark.parametrize("where", ["nginx", "varnish"])
def test_viewers_on_an_edge_cost_the_origin_one_request_per_object(chain, where):
    origin, edges = chain
    before = origin.requests()
    viewers = Viewers(edges[where].port, 30)
    # Every viewer follows the parts for about two segments: 30 viewers x 2 requests x 10 parts.
    wait_until(lambda: viewers.requests >= 30 * 2 * 10 or viewers.errors, 30, interval=0.2, what="the viewers' load")
    viewers.stop()
    requests = origin.requests() - before
    assert viewers.errors == []
    assert viewers.requests >= 30 * 2 * 10, "every viewer followed the parts"
    # Each distinct URI the viewers asked for reached the origin once (a little more: a plain
    # playlist expires after its second and is fetched again).
    print(f"{where}: {viewers.requests} viewer requests for {len(viewers.uris)} objects, {requests:.0f} at the origin")
    assert requests <= 1.1 * len(viewers.uris), (requests, len(viewers.uris), viewers.requests)


def test_the_watch_page_plays_through_an_edge(chain):
    from browser import player_status, save_screenshot, start_chromium

    _, edges = chain
    driver = start_chromium()
    try:
        driver.get(f"{edges['varnish'].base}/watch/demo?engine=mse")
        wait_until(lambda: (player_status(driver)["time"] or 0) > 2, 30, interval=0.2, what="playback through Varnish")
        wait_until(lambda: 0 < (player_status(driver)["latency"] or 99) < 3, 15, interval=0.2,
                   what="a low latency through the edge")
        assert player_status(driver)["width"] == 640
        save_screenshot(driver, "origin-varnish-watch.png")
    finally:
        driver.quit()


def test_ffmpeg_publishes_into_the_origin(tmp_path):
    origin = Origin()
    ingest = origin.ingest("third")
    ffmpeg = subprocess.Popen(
        ["ffmpeg", "-v", "error", "-re", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25",
         "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "8",
         "-c:v", "libx264", "-preset", "veryfast", "-g", "25", "-keyint_min", "25", "-sc_threshold", "0",
         "-c:a", "aac", "-f", "hls", "-hls_time", "1", "-hls_list_size", "6", "-hls_flags", "delete_segments",
         "-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4",
         "-hls_segment_filename", f"{ingest}seg%d.m4s", "-method", "PUT",
         "-headers", f"Authorization: Bearer {TOKEN}\r\n", f"{ingest}media.m3u8"],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        wait_until(lambda: listed(origin.base, "third", 3), 30, what="ffmpeg's segments at the origin")
        playlist = MediaPlaylist(fetch(f"{origin.base}/live/third/media.m3u8").text)
        check_media_playlist(playlist, "fmp4", window=6)
        probe = ffprobe(f"{origin.base}/live/third/index.m3u8")
        assert {stream["codec_name"] for stream in probe["streams"]} == {"h264", "aac"}
        assert fetch(f"{origin.base}/api/channels").text.count('"name":"third"') == 1
        assert ffmpeg.wait(timeout=30) == 0, ffmpeg.stderr.read().decode()
        wait_until(lambda: MediaPlaylist(fetch(f"{origin.base}/live/third/media.m3u8").text).ended, 10,
                   what="ffmpeg's ENDLIST at the origin")
    finally:
        ffmpeg.kill()
        origin.stop()


def test_the_ingest_takes_only_its_publishers_and_its_names():
    origin = Origin()
    try:
        base = origin.ingest()
        auth = {"Authorization": f"Bearer {TOKEN}"}

        def put(name, body, headers=auth):
            # A refusal may come before the whole body is sent (a body too large: the server
            # answers and closes); as curl does, the answer is read whatever the sending met.
            url = urlsplit(base + name)
            connection = http.client.HTTPConnection(url.hostname, url.port, timeout=10)
            try:
                try:
                    connection.request("PUT", url.path, body=body, headers=headers)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                response = connection.getresponse()
                return response.status, response.read().decode()
            finally:
                connection.close()

        assert put("seg0.m4s", b"x", headers={})[0] == 401
        assert put("seg0.m4s", b"x", headers={"Authorization": "Bearer wrong-token-0123456789"})[0] == 401
        status, text = put("evil.sh", b"x")
        assert status == 400 and "not a file name of this server" in text
        assert put("..%2Fetc%2Fpasswd", b"x")[0] in (400, 404)
        status, text = put("media.m3u8", b"#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\nhttp://elsewhere/x.ts\n")
        assert status == 400 and "which is not a segment or part name" in text
        assert put("media.m3u8", b"#" * (2 << 20))[0] == 413
        assert put("seg0.m4s", b"x")[0] == 201
        assert fetch(f"{origin.base}/live/demo/seg0.m4s").status == 404, "held until a playlist lists it"
    finally:
        origin.stop()


def test_a_publisher_that_dies_ends_the_channel_and_one_that_comes_back_continues():
    origin = Origin("--publisher-timeout", "2s")
    first = Publisher(*LIVE, *origin.push_arguments())
    try:
        wait_until(lambda: listed(origin.base, count=2), 30, what="two segments")
        first.kill()
        wait_until(lambda: MediaPlaylist(fetch(f"{origin.base}/live/demo/media.m3u8").text).ended, 15,
                   what="the channel to end at the origin")
        assert "channel demo ended: no push for" in origin.output()
        ended = MediaPlaylist(fetch(f"{origin.base}/live/demo/media.m3u8").text)
        second = Publisher(*LIVE, *origin.push_arguments())
        try:
            def continued():
                playlist = MediaPlaylist(fetch(f"{origin.base}/live/demo/media.m3u8").text)
                return not playlist.ended and any(s.get("discontinuity") for s in playlist.segments) and playlist
            playlist = wait_until(continued, 30, what="the channel to continue after a discontinuity")
            check_media_playlist(playlist, "fmp4", window=6)
            restart = next(i for i, s in enumerate(playlist.segments) if s.get("discontinuity"))
            # Under the second publisher's numbers, which follow its start on the epoch: past every
            # number the first gave (its segments leave the playlist if the numbers jump).
            last = ended.sequence + len(ended.segments) - 1
            assert playlist.sequence + restart > last, "a number is never given twice"
            assert restart == 0 or playlist.sequence + restart == last + 1
            assert fetch(f"{origin.base}/live/demo/{ended.segments[-1]['uri']}").status == 200
        finally:
            second.kill()
    finally:
        first.kill()
        origin.stop()


def test_a_hosted_channel_rewinds_is_recorded_in_s3_and_goes_on_to_a_second_origin(tmp_path):
    """What a published channel can be sent to, a hosted one can: `serve --dvr` keeps each channel's
    rewind window, `--record s3://…` records it in a bucket, `--push` sends it on to another origin
    (each channel in a folder of its own). What each viewer receives decodes; when the publisher
    dies, the channel ends everywhere, and the window goes with the origin."""
    store = SeaweedFS(tmp_path / "seaweedfs")
    second = Origin()
    windows = tmp_path / "dvr"
    first = Origin("--publisher-timeout", "2s", "--dvr", "60s", "--dvr-dir", str(windows),
                   "--record", "s3://live/hosted/", "--push", f"{second.base}/ingest/",
                   "--push-header", f"Authorization: Bearer {TOKEN}", env=store.environment())
    publisher = Publisher(*LIVE, *first.push_arguments())
    try:
        wait_until(lambda: listed(first.base, count=3), 30, what="three segments at the first origin")
        # Pushed on, under the same names.
        wait_until(lambda: listed(second.base, count=3), 30, what="three segments at the second origin")
        here = MediaPlaylist(fetch(f"{first.base}/live/demo/media.m3u8").text)
        there = MediaPlaylist(fetch(f"{second.base}/live/demo/media.m3u8").text)
        check_media_playlist(there, "fmp4", window=6)
        assert {s["uri"] for s in here.segments} & {s["uri"] for s in there.segments}
        probe = ffprobe(f"{second.base}/live/demo/index.m3u8")
        assert sorted(s["codec_name"] for s in probe["streams"]) == ["aac", "h264"], probe
        # The rewind window, from the first origin's disk.
        dvr = fetch(f"{first.base}/live/demo/dvr.m3u8")
        assert dvr.status == 200 and "dvr-media.m3u8" in dvr.text, dvr.text
        window = MediaPlaylist(fetch(f"{first.base}/live/demo/dvr-media.m3u8").text)
        assert window.segments and fetch(f"{first.base}/live/demo/{window.segments[0]['uri']}").status == 200
        assert [folder.name for folder in windows.iterdir()] == [f"demo.{first.process.pid}"]
        info = next(c for c in fetch(f"{first.base}/api/channels").json() if c["name"] == "demo")
        assert info["dvrSeconds"] == 60, info
        # Recorded in the bucket, from the run's first segment.
        found = wait_until(lambda: re.search(r"recording channel demo to \S+/live/hosted/(demo/\S+Z)/", first.output()),
                           20, what="where the recording goes")
        base = f"{store.base}/live/hosted/{found.group(1)}/"
        wait_until(lambda: (r := fetch(base + "media.m3u8")) is not None and r.status == 200
                   and len(MediaPlaylist(r.text).segments) >= 2, 30, what="2 segments recorded in the bucket")
        # The publisher dies: the channel ends at both origins, and its recording is whole.
        publisher.kill()
        for origin in (first, second):
            wait_until(lambda: MediaPlaylist(fetch(f"{origin.base}/live/demo/media.m3u8").text).ended, 20,
                       what="the channel to end")
        wait_until(lambda: MediaPlaylist(fetch(base + "media.m3u8").text).ended, 20, what="VOD in the bucket")
        recording = MediaPlaylist(fetch(base + "media.m3u8").text)
        check_recording(recording, "fmp4")
        assert recording.segments[0]["uri"] == "seg0.m4s" and fetch(base + "index.m3u8").status == 200
        assert ffprobe(base + "index.m3u8")["streams"], "the recording plays"
        output = first.output()
        assert "[record_failed]" not in output and "[push_failed]" not in output, output
        first.stop()
        assert first.process.returncode == 0
        assert list(windows.iterdir()) == [], "the rewind window goes with the origin"
    finally:
        publisher.kill()
        first.stop()
        second.stop()
        store.stop()


def test_a_hosted_ladder_goes_on_rung_by_rung_and_its_window_spans_its_publishers_runs(tmp_path):
    """A ladder pushed into an origin goes on to a second origin whole: every rung, its sound and
    the multivariant playlist. The first origin's rewind window (`serve --dvr`) keeps what the
    publisher sent across its restart: the first run's segments stay listed and served, the second
    run's follow after a discontinuity."""
    second = Origin()
    windows = tmp_path / "dvr"
    first = Origin("--publisher-timeout", "2s", "--dvr", "60s", "--dvr-dir", str(windows),
                   "--push", f"{second.base}/ingest/", "--push-header", f"Authorization: Bearer {TOKEN}")
    ladder = ("--renditions", "360p,180p", "--low-latency", "--part-duration", "0.2", "--no-serve")
    publisher = Publisher(*ladder, *first.push_arguments())
    try:
        for rendition in ("360p", "180p", "audio"):
            wait_until(lambda: listed(second.base, f"demo/{rendition}", count=2), 30,
                       what=f"{rendition} at the second origin")
        index = fetch(f"{second.base}/live/demo/index.m3u8").text
        check_multivariant(index)
        assert "360p/media.m3u8" in index and "180p/media.m3u8" in index and 'URI="audio/media.m3u8"' in index
        for rendition in ("360p", "180p", "audio"):
            check_media_playlist(MediaPlaylist(fetch(f"{second.base}/live/demo/{rendition}/media.m3u8").text),
                                 "fmp4", window=6)
        codecs = sorted(s["codec_name"] for s in ffprobe(f"{second.base}/live/demo/index.m3u8")["streams"])
        assert "h264" in codecs and "aac" in codecs, codecs

        # The window of the first run, then a second run of the publisher after the channel ended.
        wait_until(lambda: listed(first.base, "demo/360p", count=3), 30, what="three segments at the first origin")
        wait_until(lambda: (r := fetch(f"{first.base}/live/demo/360p/dvr-media.m3u8")) is not None
                   and r.status == 200 and len(MediaPlaylist(r.text).segments) >= 3, 30, what="the first run's window")
        publisher.kill()
        wait_until(lambda: MediaPlaylist(fetch(f"{first.base}/live/demo/360p/media.m3u8").text).ended, 20,
                   what="the channel to end")
        before = MediaPlaylist(fetch(f"{first.base}/live/demo/360p/dvr-media.m3u8").text)
        publisher = Publisher(*ladder, *first.push_arguments())

        def spans_both_runs():
            window = MediaPlaylist(fetch(f"{first.base}/live/demo/360p/dvr-media.m3u8").text)
            restart = next((i for i, s in enumerate(window.segments) if s.get("discontinuity")), None)
            return restart is not None and len(window.segments) - restart >= 2 and (window, restart)

        window, restart = wait_until(spans_both_runs, 40, what="the window to go on after the restart")
        check_media_playlist(window, "fmp4", window=6)
        assert not window.ended, "the window is live again, as its channel is"
        # The numbers between the runs are gaps (the window keeps the live numbers); what the first
        # run sent is still listed.
        kept = [s["uri"] for s in window.segments[:restart] if not s.get("gap")]
        assert kept and set(kept) <= {s["uri"] for s in before.segments}, "the first run's segments are kept"
        assert kept[0] == before.segments[0]["uri"]
        for segment in (window.segments[0], window.segments[restart], window.segments[-1]):
            assert fetch(f"{first.base}/live/demo/360p/{segment['uri']}").status == 200, segment
        assert ffprobe(f"{first.base}/live/demo/dvr.m3u8")["streams"], "the window plays"
        assert "[push_failed]" not in first.output()
    finally:
        publisher.kill()
        first.stop()
        second.stop()


def test_edges_serve_what_they_have_while_the_origin_restarts(tmp_path):
    origin = Origin()
    publisher = Publisher(*LIVE, *origin.push_arguments())
    edge = VarnishEdge(tmp_path / "varnish", origin.port)
    try:
        wait_until(lambda: listed(origin.base, count=2), 30, what="two segments")
        segment = MediaPlaylist(fetch(f"{edge.base}/live/demo/media.m3u8").text).segments[0]["uri"]
        cached = fetch(f"{edge.base}/live/demo/{segment}").body
        origin.stop()
        response = fetch(f"{edge.base}/live/demo/{segment}")
        assert response.status == 200 and response.body == cached, "media from the edge's cache"
        origin.start()
        # The publisher's next pushes bring the channel back at the origin (the new origin asks for
        # the init segment it never got, HTTP 424, and the publisher sends it again), and through
        # the edge: its newest segment, not the one the edge kept from before.
        wait_until(lambda: listed(origin.base, count=1), 30, what="the channel back at the origin")
        newest = MediaPlaylist(fetch(f"{origin.base}/live/demo/media.m3u8").text).segments[-1]["pdt"]
        wait_until(lambda: (r := fetch(f"{edge.base}/live/demo/media.m3u8")) is not None and r.status == 200
                   and newest in [s["pdt"] for s in MediaPlaylist(r.text).segments], 30,
                   what="the channel back through the edge")
        # The publisher says so once the pass that brought the origin back has ended.
        wait_until(lambda: "[push_recovered]" in (out := publisher.output()) or "[push_failed]" not in out, 10,
                   what="the publisher to find the origin up to date again")
    finally:
        edge.stop()
        publisher.kill()
        origin.stop()


@pytest.mark.parametrize("arguments, env, message", [
    ((), {"ONAIR_INGEST_TOKEN": ""}, "onair serve needs an ingest token"),
    (("--ingest-token", "short"), {}, "--ingest-token must be at least 16 characters"),
    (("--ingest-tokens", "/nonexistent/tokens"), {}, "--ingest-tokens /nonexistent/tokens cannot be read"),
    (("--playlist-size", "2"), {}, "--playlist-size 2 is out of range"),
    (("--publisher-timeout", "0s"), {}, "--publisher-timeout must be 1 s to 1 h"),
    (("--record-keep", "3"), {}, "--record-keep needs --record DIR"),
    (("--record", "/proc/onair-recordings"), {}, "--record /proc/onair-recordings is not writable"),
])
def test_bad_serve_input_is_one_line_and_status_2(arguments, env, message):
    result = run_onair("serve", "--port", "1", *arguments, env={"ONAIR_INGEST_TOKEN": TOKEN, **env})
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and message in result.stderr, result.stderr


def test_a_tokens_file_gives_each_channel_its_own(tmp_path):
    tokens = tmp_path / "tokens"
    tokens.write_text("# channel token\nalpha alpha-token-0123456789\nbeta  beta-token-0123456789\n")
    origin = Origin("--ingest-tokens", str(tokens), env={"ONAIR_INGEST_TOKEN": ""})
    try:
        def put(channel, token):
            import urllib.request
            request = urllib.request.Request(f"{origin.ingest(channel)}seg0.m4s", data=b"x", method="PUT",
                                             headers={"Authorization": f"Bearer {token}"})
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    return response.status
            except urllib.error.HTTPError as error:
                return error.code
        assert put("alpha", "alpha-token-0123456789") == 201
        assert put("beta", "alpha-token-0123456789") == 401
        assert put("beta", "beta-token-0123456789") == 201
        assert put("gamma", TOKEN) == 401
    finally:
        origin.stop()
    tokens.write_text("alpha\n")
    result = run_onair("serve", "--ingest-tokens", str(tokens), env={"ONAIR_INGEST_TOKEN": ""})
    assert result.returncode == 2 and "line 1: expected 'CHANNEL TOKEN'" in result.stderr
