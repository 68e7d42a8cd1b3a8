"""Bad input: one clear line on stderr, exit status 2, nothing written."""

import socket

import pytest

from harness import assert_refused, free_port, run_onair

CASES = [
    (["--channel", "my channel"], "channel 'my channel' must be 1 to 64 letters, digits, '-' or '_'"),
    (["--channel", "../etc"], "channel '../etc' must be"),
    (["--size", "1279x720"], "--size 1279x720 must have even width and height"),
    (["--size", "9999x9999"], "--size 9999x9999 is out of range"),
    (["--fps", "0"], "--fps 0 is out of range: 1 to 60"),
    (["--fps", "120"], "--fps 120 is out of range: 1 to 60"),
    (["--segment-duration", "0"], "--segment-duration 0.0 is out of range: 1 to 10 seconds"),
    (["--segment-duration", "12"], "--segment-duration 12.0 is out of range: 1 to 10 seconds"),
    (["--playlist-size", "2"], "--playlist-size 2 is too small: players need at least 3 segments"),
    (["--segment-duration", "1.5", "--fps", "30", "--playlist-size", "3"],
     "--playlist-size 3 of 1.5 s segments is too short: a live playlist holds at least 3 target durations (6 s)"),
    (["--format", "mkv"], "The value 'mkv' is invalid for '--format <format>'"),
    (["--port", "0"], "--port 0 is out of range: 1 to 65535"),
    (["--record-mp4"], "--record-mp4 needs --record DIR: the MP4 is made from the recording"),
    (["--record-keep", "2"], "--record-keep needs --record DIR: it prunes that folder's recordings"),
    (["--record", "/tmp", "--record-keep", "0"], "--record-keep 0 is out of range: keep at least 1 recording"),
    (["--record-max-size", "lots"], "The value 'lots' is invalid for '--record-max-size <size>'"),
    (["--port", "8089", "--push", "http://127.0.0.1:8089/ingest/demo/"],
     "--push http://127.0.0.1:8089/ingest/demo/ is this publisher's own server (port 8089)"),
    (["--pathway", "a=http://a.example:8080"], "--pathway names every origin viewers may use"),
]


@pytest.mark.parametrize("arguments, message", CASES, ids=[" ".join(a) for a, _ in CASES])
def test_bad_option_is_one_line_and_status_2(tmp_path, arguments, message):
    out = tmp_path / "out"
    result = run_onair("publish", "--hls-dir", str(out), *arguments)
    assert_refused(result, message)
    assert not out.exists(), "nothing is written"


SERVE_CASES = [
    (["--pathway", "a=http://a.example:8080"],
     "--pathway names every origin viewers may use, this one and its twin: give at least two"),
    (["--pathway", "a=http://a.example:8080", "--pathway", "b=http://A.EXAMPLE:8080/"],
     "--pathway a and b name the same server: a twin is another server"),
    (["--pathway", "a=http://a.example", "--pathway", "a=http://b.example"],
     "--pathway a is given twice: each origin needs a name of its own"),
    (["--pathway", "a=http://a.example", "--pathway", "b=b.example:8080"],
     "--pathway b.example:8080: the URL is http:// or https://, a host, an optional port and path, no query"),
    (["--pathway", "http://a.example", "--pathway", "b=http://b.example"],
     "--pathway http://a.example: give NAME=URL"),
    (["--pathway", "a b=http://a.example", "--pathway", "b=http://b.example"],
     "--pathway a b: a name is 1 to 32 letters, digits, '.', '-' or '_'"),
    (["--push", "rtmp://a.example/live/key"],
     "--push rtmp://a.example/live/…: onair serve pushes its channels onward as HLS, to http(s):// or s3://"),
    (["--port", "18081", "--push", "http://localhost:18081/ingest/"],
     "--push http://localhost:18081/ingest/ is this origin itself (port 18081)"),
] + [
    # Spelled otherwise, the same addresses: compared once resolved.
    (["--port", "18081", "--push", f"http://{host}:18081/ingest/"], f"--push http://{host}:18081/ingest/ is this origin itself")
    for host in ["2130706433", "0x7f.1", "0", "[::ffff:127.0.0.1]", "[0:0:0:0:0:0:0:1]", socket.gethostname()]
] + [
    (["--dvr", "10s"], "--dvr 10s is out of range: viewers may rewind from 30s to 7 days"),
]


@pytest.mark.parametrize("arguments, message", SERVE_CASES, ids=[" ".join(a) for a, _ in SERVE_CASES])
def test_a_bad_serve_option_is_one_line_and_status_2(arguments, message):
    result = run_onair("serve", "--port", str(free_port()), *arguments)
    assert_refused(result, message)


def test_unwritable_hls_dir_is_refused(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    folder = blocker / "hls"
    result = run_onair("publish", "--port", str(free_port()), "--hls-dir", str(folder))
    assert result.returncode == 2
    assert result.stderr.strip() == f"onair: --hls-dir {folder} is not writable; choose a folder you can write to"


def test_help_reads_as_documentation():
    result = run_onair("publish", "--help")
    assert result.returncode == 0
    for text in ("--channel", "--format <format>", "fmp4", "--segment-duration", "--hls-dir", "--duration",
                 "/live/<channel>/index.m3u8"):
        assert text in result.stdout
