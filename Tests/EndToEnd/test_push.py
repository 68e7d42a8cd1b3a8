"""Pushing to real destinations: nginx as a WebDAV ingest, SeaweedFS as S3-compatible storage, nginx
with the RTMP module; and the faults of a real ingest (down at start, killed and restarted, answering
500, slower than the stream). What a viewer of the destination reads is checked while live: every
playlist it serves obeys the HLS rules and names only files that are there, every segment starts
with an IDR and decodes, and the end of the stream arrives with EXT-X-ENDLIST."""

import json
import re
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest

from destinations import ClosingProxy, Nginx, SeaweedFS, ThrottlingProxy
from edges import TOKEN, Origin
from harness import Publisher, fetch, free_port, make_certificate, run_onair, wait_until
from hls_rules import MediaPlaylist, check_history, check_media_playlist
from test_faults import check_every_run_decodes

SMALL = ["--source", "test", "--size", "640x360", "--segment-duration", "1", "--playlist-size", "4"]


class DestinationViewer:
    """A viewer of a destination, on a thread of its own: reads its media playlist every 100 ms,
    checks each against the HLS rules and that every file it names is there at that moment, and
    fetches each new segment once (with its init segment) to check it later."""

    def __init__(self, url, window=4, container="fmp4"):
        self.url = url.rstrip("/") + "/"
        self.window = window
        self.container = container
        self.history = []
        self.problems = []
        self.segments = {}
        self.inits = {}
        self.running = True
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()

    def run(self):
        while self.running:
            try:
                self.look()
            except AssertionError as problem:
                self.problems.append(f"{problem}")
            time.sleep(0.1)

    def look(self):
        response = fetch(self.url + "media.m3u8")
        if response is None or response.status != 200:
            return
        text = response.text
        playlist = MediaPlaylist(text)
        check_media_playlist(playlist, self.container, self.window)
        maps = [line.split('"')[1] for line in text.splitlines() if line.startswith("#EXT-X-MAP:URI=")]
        for name in maps:
            if name not in self.inits:
                init = fetch(self.url + name)
                assert init is not None and init.status == 200, f"{name} is named but missing"
                self.inits[name] = init.body
        for segment in playlist.segments:
            if segment.get("gap"):
                continue
            name = segment["uri"]
            if name in self.segments:
                continue
            body = fetch(self.url + name)
            assert body is not None and body.status == 200, f"{name} is named but missing"
            self.segments[name] = (maps[-1] if maps else None, body.body)
        self.history.append((time.monotonic(), playlist))

    def stop(self):
        self.running = False
        self.thread.join()

    @property
    def newest(self):
        return self.history[-1][1] if self.history else None

    def check(self, timing=True):
        """Every playlist seen was valid; every segment starts with an IDR and decodes."""
        assert not self.problems, self.problems[:5]
        assert self.history, "the destination served a playlist"
        history = [(seen, playlist) for seen, playlist in self.history]
        if timing:
            check_history(history)
        else:
            sequences = [playlist.sequence for _, playlist in history]
            assert sequences == sorted(sequences), "MEDIA-SEQUENCE never decreases"
        with tempfile.TemporaryDirectory() as folder:
            for name, (init, body) in self.segments.items():
                path = Path(folder) / f"{name}.mp4"
                path.write_bytes((self.inits[init] if init else b"") + body)
                packets = json.loads(subprocess.run(
                    ["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=flags",
                     "-of", "json", str(path)], capture_output=True, text=True, check=True).stdout)["packets"]
                assert packets and packets[0]["flags"].startswith("K"), f"{name} starts with an IDR"

    def download(self, folder):
        """The destination's last playlist and what it names, to decode as a whole."""
        folder.mkdir(parents=True, exist_ok=True)
        text = fetch(self.url + "media.m3u8").text
        for name, init in self.inits.items():
            (folder / name).write_bytes(init)
        for line in text.splitlines():
            if line and not line.startswith("#"):
                response = fetch(self.url + line)
                assert response.status == 200, line
                (folder / line).write_bytes(response.body)
        (folder / "media.m3u8").write_text(text)
        return folder / "media.m3u8"


def events(publisher, code):
    return [line for line in publisher.output().splitlines() if f"[{code}]" in line]


def push_series(publisher, name, destination):
    """The value of one onair_push_* series of `destination` on the publisher's /metrics."""
    text = fetch(f"{publisher.base}/metrics").text
    pattern = rf'^{name}\{{(?=[^}}]*channel="demo")(?=[^}}]*destination="{re.escape(destination)}")[^}}]*\}} (\S+)$'
    values = [float(value) for value in re.findall(pattern, text, re.MULTILINE)]
    assert values, f"{name} for {destination} is not on /metrics"
    return sum(values)


def check_push_metrics(publisher, destination, stored):
    """The destination's series say what it received: uploads, their bytes at least what it holds of
    the segments, no failure, a duration for each upload, the queue."""
    uploads = push_series(publisher, "onair_push_uploads_total", destination)
    sent = push_series(publisher, "onair_push_bytes_total", destination)
    held = sum(path.stat().st_size for path in stored.glob("seg*.m4s"))
    assert uploads >= 6 and sent >= held > 0, (uploads, sent, held)
    assert push_series(publisher, "onair_push_failures_total", destination) == 0
    assert push_series(publisher, "onair_push_upload_seconds_count", destination) >= uploads - 2
    push_series(publisher, "onair_push_queue_depth", destination)


def local_segments(publisher):
    response = publisher.get("media.m3u8")
    return MediaPlaylist(response.text).sequence + len(MediaPlaylist(response.text).segments) if response else 0


def test_an_http_ingest_gets_the_stream_valid_at_every_moment_and_its_end(tmp_path):
    nginx = Nginx(tmp_path / "nginx")
    publisher = Publisher(*SMALL, "--push", f"{nginx.base}/live/demo/")
    viewer = DestinationViewer(f"{nginx.base}/live/demo/")
    try:
        first = publisher.first_sequence()
        wait_until(lambda: viewer.newest and len(viewer.newest.segments) >= 4, 30, what="4 segments at nginx")
        wait_until(lambda: viewer.newest.sequence >= first + 4, 30, what="the window to slide at nginx")
        # Once out of the playlist and its availability window (1 s + the playlist's 4 s), deleted.
        wait_until(lambda: not (nginx.root / f"live/demo/seg{first}.m4s").exists(), 20,
                   what="the first segment to be deleted")
        check_push_metrics(publisher, f"{nginx.base}/live/demo/", stored=nginx.root / "live/demo")
        assert publisher.stop() == 0
        wait_until(lambda: viewer.newest.ended, 10, what="EXT-X-ENDLIST at nginx")
        viewer.stop()
        viewer.check()
        # What is stored is what is listed, and what is still in its availability window.
        stored = sorted(path.name for path in (nginx.root / "live/demo").glob("seg*.m4s"))
        listed = [segment["uri"] for segment in viewer.newest.segments]
        assert set(listed) <= set(stored) and len(stored) <= len(listed) + 6, stored
        # Everything the final playlist names decodes, frame for frame.
        check_every_run_decodes(viewer.download(tmp_path / "copy"))
        # The stored objects carry what a CDN needs: nginx serves the playlist as a playlist.
        response = fetch(f"{nginx.base}/live/demo/index.m3u8")
        assert response.status == 200 and response.headers["content-type"] == "application/vnd.apple.mpegurl"
        assert "#EXT-X-STREAM-INF" in response.text and "media.m3u8" in response.text
        assert not events(publisher, "push_failed")
    finally:
        viewer.running = False
        publisher.kill()
        nginx.stop()


def test_low_latency_parts_are_pushed_before_the_playlist_lists_them(tmp_path):
    nginx = Nginx(tmp_path / "nginx")
    publisher = Publisher(*SMALL, "--low-latency", "--part-duration", "0.2", "--push", f"{nginx.base}/live/demo/")
    try:
        seen = []

        def parts_listed_are_there():
            response = fetch(f"{nginx.base}/live/demo/media.m3u8")
            if not response or response.status != 200:
                return False
            parts = [line.split('URI="')[1].split('"')[0] for line in response.text.splitlines()
                     if line.startswith("#EXT-X-PART:")]
            for name in parts:
                assert (nginx.root / "live/demo" / name).exists(), f"{name} is listed but missing"
            seen.extend(parts)
            return len(set(seen)) >= 20

        wait_until(parts_listed_are_there, 30, interval=0.05, what="20 parts listed at nginx")
        assert publisher.stop() == 0
    finally:
        publisher.kill()
        nginx.stop()


def test_s3_storage_gets_the_stream_with_its_types_and_players_read_it_anonymously(tmp_path):
    store = SeaweedFS(tmp_path / "seaweedfs")
    publisher = Publisher(*SMALL, "--push", "s3://live/shows/demo/", env=store.environment())
    viewer = DestinationViewer(f"{store.base}/live/shows/demo/")
    try:
        first = publisher.first_sequence()
        wait_until(lambda: viewer.newest and viewer.newest.sequence >= first + 2, 40, what="the window to slide in S3")
        # Once out of the playlist and its availability window, deleted.
        wait_until(lambda: fetch(f"{store.base}/live/shows/demo/seg{first}.m4s").status in (403, 404), 20,
                   what="the first segment to be deleted")
        segment = fetch(f"{store.base}/live/shows/demo/{viewer.newest.segments[-1]['uri']}")
        assert segment.status == 200
        assert segment.headers["content-type"] == "video/mp4"
        assert "immutable" in segment.headers["cache-control"]
        playlist = fetch(f"{store.base}/live/shows/demo/media.m3u8")
        assert playlist.headers["content-type"] == "application/vnd.apple.mpegurl"
        assert playlist.headers["cache-control"] == "public, max-age=1"
        assert publisher.stop() == 0
        wait_until(lambda: viewer.newest.ended, 10, what="EXT-X-ENDLIST in S3")
        viewer.stop()
        viewer.check()
        check_every_run_decodes(viewer.download(tmp_path / "copy"))
        assert not events(publisher, "push_failed")
    finally:
        viewer.running = False
        publisher.kill()
        store.stop()


def flv_streams(path):
    probe = json.loads(subprocess.run(
        ["ffprobe", "-v", "error", "-show_streams", "-show_format", "-of", "json", str(path)],
        capture_output=True, text=True, check=True).stdout)
    return probe


def check_received(path, container):
    """What a packet destination kept of one connection (an FLV recording, an MPEG-TS capture): the
    published H.264 and AAC at 640x360 in `container`, starting on a keyframe, decoding without an error."""
    probe = flv_streams(path)
    assert sorted(stream["codec_name"] for stream in probe["streams"]) == ["aac", "h264"], probe
    assert probe["format"]["format_name"] == container
    video = next(stream for stream in probe["streams"] if stream["codec_type"] == "video")
    assert (video["width"], video["height"]) == (640, 360)
    packets = json.loads(subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "packet=flags", "-of", "json",
         str(path)], capture_output=True, text=True, check=True).stdout)["packets"]
    assert packets[0]["flags"].startswith("K"), "each connection starts on a keyframe"
    result = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-f", "null", "-"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stderr == "", result.stderr


def test_rtmp_gets_the_same_encode_and_reconnects_after_the_ingest_restarts(tmp_path):
    nginx = Nginx(tmp_path / "rtmp", webdav=False, rtmp=True)
    publisher = Publisher(*SMALL, "--push", f"rtmp://127.0.0.1:{nginx.port}/live/secret-key")
    try:
        recordings = nginx.recordings
        wait_until(lambda: any(path.stat().st_size > 50_000 for path in recordings.glob("*.flv")), 30,
                   what="nginx-rtmp to record the stream")
        assert "secret-key" not in publisher.output(), "the stream key stays out of the log"
        nginx.kill()
        wait_until(lambda: events(publisher, "push_failed"), 15, what="push_failed")
        nginx.start()
        wait_until(lambda: events(publisher, "push_recovered"), 30, what="push_recovered")
        wait_until(lambda: len(list(recordings.glob("*.flv"))) >= 2
                   and min(path.stat().st_size for path in recordings.glob("*.flv")) > 50_000, 30,
                   what="a second recording")
        assert publisher.stop() == 0
        nginx.stop()
        for path in recordings.glob("*.flv"):
            check_received(path, "flv")
        assert len(events(publisher, "push_failed")) == 1, "said once per episode"
    finally:
        publisher.kill()
        nginx.stop()


class SRTListener:
    """ffmpeg as an SRT listener (libsrt), keeping each connection's MPEG-TS in a file of its own."""

    PASSPHRASE = "srt-secret-0123456789"

    def __init__(self, folder):
        self.folder = folder
        folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        self.runs = []
        self.start()

    def start(self):
        path = self.folder / f"run{len(self.runs) + 1}.ts"
        self.runs.append(path)
        url = f"srt://127.0.0.1:{self.port}?mode=listener&passphrase={self.PASSPHRASE}"
        self.process = subprocess.Popen(["ffmpeg", "-v", "error", "-nostdin", "-y", "-i", url, "-c", "copy",
                                         "-f", "mpegts", str(path)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def received(self, path, size=50_000):
        return path.exists() and path.stat().st_size > size

    def stop(self):
        """Ends the listener as an operator would (SIGINT): its file is closed whole."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


def test_srt_gets_the_same_encode_and_reconnects_after_the_listener_restarts(tmp_path):
    listener = SRTListener(tmp_path / "srt")
    destination = f"srt://127.0.0.1:{listener.port}?streamid=demo&passphrase={SRTListener.PASSPHRASE}"
    publisher = Publisher(*SMALL, "--push", destination)
    try:
        wait_until(lambda: listener.received(listener.runs[0]), 30, what="the SRT listener to receive the stream")
        assert SRTListener.PASSPHRASE not in publisher.output(), "the passphrase stays out of the log"
        assert f"srt://127.0.0.1:{listener.port}?…" in publisher.output()
        listener.stop()
        wait_until(lambda: events(publisher, "push_failed"), 30, what="push_failed")
        listener.start()
        wait_until(lambda: events(publisher, "push_recovered"), 30, what="push_recovered")
        wait_until(lambda: listener.received(listener.runs[1]), 30, what="the restarted listener to receive")
        assert publisher.stop() == 0
        listener.stop()
        for path in listener.runs:
            check_received(path, "mpegts")
        assert len(events(publisher, "push_failed")) == 1, "said once per episode"
    finally:
        publisher.kill()
        listener.stop()


def test_rtmps_is_verified_and_takes_a_private_authority(tmp_path):
    certificate, key = make_certificate(tmp_path)
    nginx = Nginx(tmp_path / "rtmps", webdav=False, rtmp=True, rtmps=(certificate, key))
    destination = f"rtmps://127.0.0.1:{nginx.tls_port}/live/secret-key"
    untrusted = Publisher(*SMALL, "--push", destination, "--no-serve")
    try:
        # Without the authority the ingest's certificate is refused: nothing is sent to it.
        wait_until(lambda: events(untrusted, "push_failed"), 20, what="push_failed for an unknown certificate")
        assert not any(path.stat().st_size > 0 for path in nginx.recordings.glob("*.flv"))
    finally:
        untrusted.kill()
    publisher = Publisher(*SMALL, "--push", destination, "--push-ca", str(certificate), "--no-serve")
    try:
        wait_until(lambda: any(path.stat().st_size > 50_000 for path in nginx.recordings.glob("*.flv")), 30,
                   what="nginx-rtmp to record the stream sent over TLS")
        assert publisher.stop() == 0
        nginx.stop()
        path = max(nginx.recordings.glob("*.flv"), key=lambda p: p.stat().st_size)
        assert sorted(s["codec_name"] for s in flv_streams(path)["streams"]) == ["aac", "h264"]
    finally:
        publisher.kill()
        nginx.stop()


def test_an_https_ingest_is_verified_and_takes_a_private_authority(tmp_path):
    certificate, key = make_certificate(tmp_path)
    origin = Origin("--tls-cert", str(certificate), "--tls-key", str(key))
    destination = f"https://127.0.0.1:{origin.port}/ingest/demo/"
    header = f"Authorization: Bearer {TOKEN}"
    untrusted = Publisher(*SMALL, "--push", destination, "--push-header", header, "--no-serve")
    try:
        wait_until(lambda: events(untrusted, "push_failed"), 20, what="push_failed for an unknown certificate")
    finally:
        untrusted.kill()
    publisher = Publisher(*SMALL, "--push", destination, "--push-header", header, "--push-ca", str(certificate),
                          "--no-serve")
    try:
        def listed():
            response = fetch_tls(f"https://127.0.0.1:{origin.port}/live/demo/media.m3u8", certificate)
            return response and MediaPlaylist(response).segments and MediaPlaylist(response)
        playlist = wait_until(listed, 30, what="the channel at the https origin")
        check_media_playlist(playlist, "fmp4", window=6)
        assert not events(publisher, "push_failed")
    finally:
        publisher.kill()
        origin.stop()


def fetch_tls(url, certificate):
    import ssl
    import urllib.request
    context = ssl.create_default_context(cafile=str(certificate))
    try:
        with urllib.request.urlopen(url, context=context, timeout=5) as response:
            return response.read().decode()
    except (OSError, urllib.error.URLError):
        return None


def test_an_ingest_down_at_start_is_reported_and_gets_the_stream_once_it_comes_up(tmp_path):
    port = free_port()
    publisher = Publisher(*SMALL, "--push", f"http://127.0.0.1:{port}/live/demo/")
    nginx = None
    try:
        publisher.wait_for_segments(2)
        wait_until(lambda: events(publisher, "push_failed"), 10, what="push_failed")
        assert "connection refused" in events(publisher, "push_failed")[0]
        nginx = Nginx(tmp_path / "nginx", port=port)
        viewer = DestinationViewer(f"{nginx.base}/live/demo/")
        wait_until(lambda: events(publisher, "push_recovered"), 20, what="push_recovered")
        wait_until(lambda: viewer.newest and viewer.newest.sequence >= local_segments(publisher) - 5, 10,
                   what="nginx to catch up")
        assert publisher.stop() == 0
        wait_until(lambda: viewer.newest.ended, 10, what="EXT-X-ENDLIST at nginx")
        viewer.stop()
        viewer.check(timing=False)
        assert len(events(publisher, "push_failed")) == 1
    finally:
        publisher.kill()
        if nginx:
            nginx.stop()


def steady(publisher, count):
    """The live channel goes on at its pace, a segment a second, whatever the destination does."""
    start = local_segments(publisher)
    wait_until(lambda: local_segments(publisher) >= start + count, count + 2, what=f"{count} more live segments")


@pytest.mark.parametrize("fault", ["500", "killed", "slow"])
def test_an_ingest_fault_is_survived_and_its_playlist_stays_valid(tmp_path, fault):
    nginx = Nginx(tmp_path / "nginx")
    proxy = ThrottlingProxy(nginx.port) if fault == "slow" else None
    target = f"http://127.0.0.1:{proxy.port if proxy else nginx.port}/live/demo/"
    publisher = Publisher(*SMALL, "--push", target)
    viewer = DestinationViewer(f"{nginx.base}/live/demo/")
    try:
        wait_until(lambda: viewer.newest and len(viewer.newest.segments) >= 3, 30, what="3 segments at nginx")
        if fault == "500":
            nginx.failing(True)
        elif fault == "killed":
            nginx.kill()
        else:
            proxy.rate = 8_000  # bytes a second: far below the stream's rate
        wait_until(lambda: events(publisher, "push_failed"), 20, what="push_failed")
        # The live channel loses nothing meanwhile.
        steady(publisher, 6)
        if fault == "500":
            nginx.failing(False)
        elif fault == "killed":
            nginx.start()
        else:
            proxy.rate = None
        wait_until(lambda: events(publisher, "push_recovered"), 30, what="push_recovered")
        newest_local = local_segments(publisher)
        wait_until(lambda: viewer.newest.sequence + len(viewer.newest.segments) >= newest_local, 15,
                   what="nginx to catch up")
        if fault == "slow":
            # Segments that could not arrive in time were given up, said on recovery; a player of the
            # destination skips any still listed (EXT-X-GAP, checked by the viewer's rules).
            assert "too late" in events(publisher, "push_recovered")[0]
        assert publisher.stop() == 0
        wait_until(lambda: viewer.newest.ended, 15, what="EXT-X-ENDLIST at nginx")
        viewer.stop()
        viewer.check(timing=False)
        assert len(events(publisher, "push_failed")) == 1, "said once per episode"
        assert not list((nginx.root / "live/demo").glob("*.tmp")) and not list(nginx.root.rglob(".*"))
    finally:
        viewer.running = False
        publisher.kill()
        if proxy:
            proxy.close()
        nginx.stop()


def test_a_kept_alive_connection_closed_as_a_request_goes_out_is_not_a_failure(tmp_path):
    """A server may end a kept-alive connection just as the publisher sends on it (its keep-alive
    timeout, a restart): the PUT, idempotent, goes again on a new connection, and nobody is told
    of a failure that was none."""
    nginx = Nginx(tmp_path / "nginx")
    proxy = ClosingProxy(nginx.port)
    publisher = Publisher(*SMALL, "--push", f"http://127.0.0.1:{proxy.port}/live/demo/")
    viewer = DestinationViewer(f"{nginx.base}/live/demo/")
    try:
        wait_until(proxy.cut.is_set, 20, what="the proxy to close the first connection under a request")
        wait_until(lambda: viewer.newest and len(viewer.newest.segments) >= 3, 30, what="3 segments at nginx")
        assert publisher.stop() == 0
        wait_until(lambda: viewer.newest.ended, 15, what="EXT-X-ENDLIST at nginx")
        viewer.stop()
        viewer.check(timing=False)
        assert events(publisher, "push_failed") == []
    finally:
        viewer.running = False
        publisher.kill()
        proxy.close()
        nginx.stop()


def test_without_the_built_in_server_it_only_pushes(tmp_path):
    nginx = Nginx(tmp_path / "nginx")
    port = free_port()
    publisher = Publisher(*SMALL, "--no-serve", "--push", f"{nginx.base}/live/demo/")
    try:
        wait_until(lambda: (nginx.root / "live/demo/media.m3u8").exists(), 30, what="the playlist at nginx")
        assert fetch(f"{publisher.base}/live/demo/media.m3u8") is None, "nothing listens"
        assert "without the built-in server" in publisher.output()
        # No control API to offer a token for: the signals are what pause and resume.
        assert "no built-in server: pause with kill -USR1" in publisher.output()
        assert "control token" not in publisher.output()
        assert publisher.stop() == 0
        assert "#EXT-X-ENDLIST" in (nginx.root / "live/demo/media.m3u8").read_text()
    finally:
        publisher.kill()
        nginx.stop()


def test_a_second_ctrl_c_stops_waiting_for_a_destination_that_is_down():
    publisher = Publisher(*SMALL, "--push", f"http://127.0.0.1:{free_port()}/live/demo/")
    try:
        publisher.wait_for_segments(1)
        publisher.process.send_signal(signal.SIGINT)
        wait_until(lambda: "waiting up to 15 s (Ctrl-C again to quit now)" in publisher.output(), 10,
                   what="the wait to be said")
        started = time.monotonic()
        publisher.process.send_signal(signal.SIGINT)
        assert publisher.process.wait(timeout=5) == 0
        assert time.monotonic() - started < 3
        assert "is not up to date" in publisher.output()
    finally:
        publisher.kill()


@pytest.mark.parametrize("arguments,message", [
    (["--push", "ftp://host/x/"], "unknown scheme 'ftp'"),
    (["--push", "s3://bucket/live/"], "no S3 credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"),
    (["--push", "http://[bad/"], "not a URL"),
    (["--push", "rtmp://host/app"], "expected rtmp://HOST/APP/STREAM-KEY"),
    (["--push", "srt://host:9000?passphrase=short"], "an SRT passphrase is 10 to 64 characters"),
    (["--push-header", "nocolon", "--push", "http://h/x/"], "expected 'Name: value'"),
    (["--no-serve"], "--no-serve needs at least one --push destination"),
])
def test_bad_destinations_are_refused_before_anything_starts(arguments, message):
    result = run_onair("publish", "--source", "test", "--port", str(free_port()), *arguments, timeout=20,
                       env={"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""})
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], lines


def test_chromium_plays_the_stream_from_the_ingest(tmp_path):
    from browser import assert_snippet_plays_on_another_site, start_chromium

    nginx = Nginx(tmp_path / "nginx")
    publisher = Publisher(*SMALL, "--push", f"{nginx.base}/live/demo/")
    # The page any site would carry: the video element, its source at the ingest, the player script.
    snippet = f"""<video data-onair="mse" src="{nginx.base}/live/demo/index.m3u8" crossorigin="anonymous" controls
        autoplay muted playsinline width="640"></video>
        <script src="{publisher.base}/web/player.js" async></script>"""
    driver = start_chromium()
    try:
        wait_until(lambda: (nginx.root / "live/demo/media.m3u8").exists(), 30, what="the playlist at nginx")
        assert_snippet_plays_on_another_site(driver, snippet, 640, "mse", within=8, screenshot="push-nginx.png")
        requested = (nginx.folder / "access.log").read_text()
        assert "GET /live/demo/media.m3u8" in requested and "GET /live/demo/seg" in requested
    finally:
        driver.quit()
        publisher.kill()
        nginx.stop()
