"""Broadcast control end to end: the bearer-token API, signals, the pause card and silence, and the
typed events in the log and on the Server-Sent Events stream."""

import json
import math
import os
import signal
import stat
import struct
import subprocess
import threading
import urllib.request
from pathlib import Path

from harness import (STATE_HOME, Publisher, fetch, first_number, first_segment, init_segment, segment_files,
                     segment_picture, wait_until)
from hls_rules import MediaPlaylist

WIDTH, HEIGHT = 640, 360
TOKEN = "a-token-of-our-own"


def publish(folder, *arguments):
    return Publisher("--source", "test", "--size", f"{WIDTH}x{HEIGHT}", "--segment-duration", "1",
                     "--hls-dir", str(folder), *arguments)


def state(publisher):
    channels = json.loads(fetch(f"{publisher.base}/api/channels").text)
    return channels[0]["state"]


def segments_out(publisher, token):
    response = publisher.control(method="GET", token=token)
    return json.loads(response.text)["stats"]["segmentsOut"] if response and response.status == 200 else 0


def media(folder):
    return folder / "live/demo"


def segment_data(folder, index):
    """The init segment and the segment at `index` (0 for the first)."""
    return init_segment(media(folder)) + segment_files(media(folder))[index].read_bytes()


def loudness(folder, index):
    """The RMS of a segment's audio, 16-bit mono."""
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", "-", "-map", "0:a", "-ac", "1", "-f", "s16le", "-"],
                         input=segment_data(folder, index), capture_output=True, check=True).stdout
    samples = struct.unpack(f"<{len(raw) // 2}h", raw)
    return math.sqrt(sum(s * s for s in samples) / len(samples))


def test_without_the_token_nothing_changes(tmp_path):
    publisher = publish(tmp_path)
    try:
        wait_until(lambda: first_segment(media(tmp_path)), 30, what="the first segment")
        token = publisher.token()
        file = Path(STATE_HOME, "onair", "demo.token")
        assert stat.S_IMODE(file.stat().st_mode) == 0o600 and stat.S_IMODE(file.parent.stat().st_mode) == 0o700
        # The random token is kept in its private file, which the start names; logs often go to others.
        assert len(token) == 32 and token not in publisher.output() and f"control token in {file}" in publisher.output()
        api = f"{publisher.base}/api/channels/demo"
        wrong = token[:-1] + ("A" if token[-1] != "A" else "B")
        for headers in [{}, {"Authorization": f"Bearer {wrong}"}, {"Authorization": f"Basic {token}"},
                        {"Authorization": f"Bearer {token[:-1]}"}, {"Authorization": "Bearer"}]:
            for method, path in [("POST", "/pause"), ("POST", "/stop"), ("GET", ""), ("GET", "/events")]:
                response = fetch(api + path, headers=headers, method=method)
                assert response.status == 401, (headers, path)
                assert response.headers["www-authenticate"] == 'Bearer realm="onair"'
        assert state(publisher) == "live" and publisher.process.poll() is None
        assert "[paused]" not in publisher.output()
        # Viewer endpoints stay public.
        assert publisher.get("index.m3u8").status == 200 and fetch(f"{publisher.base}/api/channels").status == 200
        assert publisher.control("pause", token=token).status == 200
        assert state(publisher) == "paused"
    finally:
        publisher.kill()


def test_pause_shows_a_card_and_silence_and_resume_continues_the_timeline(tmp_path):
    publisher = publish(tmp_path, "--control-token", TOKEN, "--playlist-size", "60")
    try:
        wait_until(lambda: segments_out(publisher, TOKEN) >= 2, 30, what="two segments")
        assert publisher.control("pause", token=TOKEN).text == '{"state":"paused"}'
        paused_at = segments_out(publisher, TOKEN)
        wait_until(lambda: segments_out(publisher, TOKEN) >= paused_at + 3, 30, what="segments made while paused")
        assert publisher.control("resume", token=TOKEN).text == '{"state":"live"}'
        resumed_at = segments_out(publisher, TOKEN)
        wait_until(lambda: segments_out(publisher, TOKEN) >= resumed_at + 2, 30, what="segments after resuming")
        assert publisher.control("stop", token=TOKEN).text == '{"state":"stopping"}'
        assert publisher.process.wait(timeout=30) == 0
    finally:
        publisher.kill()
    output = publisher.output()
    assert TOKEN not in output, "a token given on the command line is not printed"

    first = first_number(media(tmp_path))
    before, during, after = (segment_picture(media(tmp_path), first + index, WIDTH, HEIGHT)
                             for index in (0, paused_at + 1, resumed_at + 1))
    # The first colour bar (75 % grey) at 40 % brightness; the card's box in the middle.
    assert all(c > 170 for c in before(20, 20)) and all(c > 170 for c in after(20, 20))
    assert all(60 < c < 100 for c in during(20, 20)), during(20, 20)
    assert all(c < 40 for c in during(WIDTH // 2, HEIGHT // 2 - 28)), "the card's dark box above its letters"
    assert any(all(c > 200 for c in during(x, y)) for x in range(WIDTH // 2 - 60, WIDTH // 2 + 60)
               for y in range(HEIGHT // 2 - 8, HEIGHT // 2 + 8)), "white letters on the card"

    assert loudness(tmp_path, 0) > 1000 and loudness(tmp_path, resumed_at + 1) > 1000
    assert loudness(tmp_path, paused_at + 1) == 0, "silence while paused"

    # One timeline: every video frame 1/30 s after the one before, across pause and resume.
    final = MediaPlaylist((media(tmp_path) / "media.m3u8").read_text())
    assert final.ended
    data = init_segment(media(tmp_path)) + b"".join(
        (media(tmp_path) / s["uri"]).read_bytes() for s in final.segments)
    packets = json.loads(subprocess.run(
        ["ffprobe", "-v", "error", "-of", "json", "-select_streams", "v", "-show_entries", "packet=dts", "-"],
        input=data, capture_output=True, check=True).stdout)["packets"]
    # In microseconds (the video track's clock), 1/30 s is 33,333.3: each frame within 1 µs of its slot.
    off = [(i, p["dts"]) for i, p in enumerate(packets) if abs(p["dts"] - packets[0]["dts"] - i * 1_000_000 / 30) > 1]
    assert not off, f"video timestamps jump (packet, dts): {off[:5]}"
    assert final.sequence == publisher.first_sequence() and len(packets) >= 30 * (resumed_at + 2), \
        "the whole broadcast was checked"


def test_signals_pause_and_resume_and_the_log_can_be_json(tmp_path):
    publisher = publish(tmp_path, "--log-format", "json")
    try:
        wait_until(lambda: '"event":"started"' in publisher.output(), 30, what="the started event")
        publisher.process.send_signal(signal.SIGUSR1)
        wait_until(lambda: state(publisher) == "paused", 10, what="paused by SIGUSR1")
        publisher.process.send_signal(signal.SIGUSR2)
        wait_until(lambda: state(publisher) == "live", 10, what="resumed by SIGUSR2")
        assert publisher.stop() == 0
    finally:
        publisher.kill()
    lines = [json.loads(line) for line in publisher.output().splitlines()]
    events = [line["event"] for line in lines if "event" in line]
    assert events == ["started", "paused", "resumed", "stopped"], events
    for line in lines:
        assert {"time", "level", "message"} <= line.keys()
    paused = next(line for line in lines if line.get("event") == "paused")
    assert paused["channel"] == "demo" and paused["level"] == "notice" and paused["time"].endswith("Z")


def test_the_events_stream_replays_then_follows_until_the_end(tmp_path):
    publisher = publish(tmp_path, "--control-token", "events-token-1234")
    received = []
    try:
        wait_until(lambda: '[started]' in publisher.output(), 30, what="the started event")
        request = urllib.request.Request(f"{publisher.base}/api/channels/demo/events",
                                         headers={"Authorization": "Bearer events-token-1234"})
        stream = urllib.request.urlopen(request, timeout=30)
        assert stream.headers["Content-Type"] == "text/event-stream"

        def read():
            for line in stream:
                received.append(line.decode().rstrip("\n"))
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        wait_until(lambda: "event: started" in received, 10, what="the started event replayed")
        publisher.control("pause", token="events-token-1234")
        wait_until(lambda: "event: paused" in received, 10, what="the paused event")
        assert publisher.control("pause", token="events-token-1234").status == 200, "pausing twice is harmless"
        publisher.control("stop", token="events-token-1234")
        reader.join(timeout=30)
        assert not reader.is_alive(), "the stream ends with the broadcast"
        assert publisher.process.wait(timeout=30) == 0
    finally:
        publisher.kill()
    events = [line.removeprefix("event: ") for line in received if line.startswith("event: ")]
    assert events == ["started", "paused", "stopped"], events
    ids = [int(line.removeprefix("id: ")) for line in received if line.startswith("id: ")]
    assert ids == [1, 2, 3]
    data = [json.loads(line.removeprefix("data: ")) for line in received if line.startswith("data: ")]
    assert [d["code"] for d in data] == events and all(d["channel"] == "demo" for d in data)
    assert MediaPlaylist((media(tmp_path) / "media.m3u8").read_text()).ended, "stop ends the playlist"


def test_a_token_too_short_is_refused_before_anything_starts(tmp_path):
    from harness import run_onair
    result = run_onair("publish", "--source", "test", "--control-token", "short", "--hls-dir", str(tmp_path))
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1
    assert "--control-token must be at least 16 characters" in result.stderr
    assert not (tmp_path / "live").exists()
    assert os.path.isdir(tmp_path)


def metrics(publisher):
    """`/metrics` as {name{labels}: value}."""
    response = fetch(f"{publisher.base}/metrics")
    assert response.status == 200 and response.headers["content-type"].startswith("text/plain; version=0.0.4")
    values = {}
    for line in response.text.splitlines():
        if line and not line.startswith("#"):
            name, value = line.rsplit(" ", 1)
            values[name] = float(value)
    return values


def test_metrics_count_frames_segments_viewers_events_and_requests(tmp_path):
    publisher = publish(tmp_path, "--control-token", TOKEN)
    try:
        wait_until(lambda: segments_out(publisher, TOKEN) >= 3, 30, what="three segments")
        assert publisher.get("index.m3u8", headers={"User-Agent": "metrics-test"}).status == 200
        publisher.control("pause", token=TOKEN)
        before = segments_out(publisher, TOKEN)
        values = metrics(publisher)
        after = segments_out(publisher, TOKEN)
        channel = '{channel="demo"}'
        assert values[f"onair_frames_captured_total{channel}"] >= 90
        assert values[f"onair_frames_encoded_total{channel}"] >= 85
        assert values[f"onair_frames_dropped_total{channel}"] == 0
        assert before <= values[f"onair_segments_total{channel}"] <= after
        assert values[f"onair_media_bytes_total{channel}"] > 10_000
        assert values[f"onair_viewers{channel}"] == 1
        assert values['onair_events_total{channel="demo",code="started"}'] == 1
        assert values['onair_events_total{channel="demo",code="paused"}'] == 1
        assert values['onair_http_requests_total{route="playlist",status="200"}'] >= 1
        assert values['onair_http_requests_total{route="api",status="200"}'] >= 1
        assert values['onair_http_request_duration_seconds_count{route="playlist"}'] >= 1
        # Counters only grow, scrape after scrape.
        wait_until(lambda: metrics(publisher)[f"onair_frames_repeated_total{channel}"]
                   > values[f"onair_frames_repeated_total{channel}"], 10, what="repeated frames while paused")
    finally:
        publisher.kill()
