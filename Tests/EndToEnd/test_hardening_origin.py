"""Hardening of what publishers and viewers can do to an origin and to a recording folder: every
number a publisher pushes is bounded (400 with the rule, never a crash), one publisher a channel
(409), memory budgets (507), ended channels that make room, retention that removes only recordings
onair made, recording files served without following links and with RFC 9110 byte ranges."""

import re
import socket
import time
import urllib.request
from pathlib import Path

from edges import TOKEN, Origin
from harness import Publisher, fetch, wait_until
from hls_rules import MediaPlaylist, check_media_playlist

LIVE = ("--size", "640x360", "--no-serve")


def put(url, body, token=TOKEN):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    request = urllib.request.Request(url, data=body, headers=headers, method="PUT")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def media_playlist(target, segments, sequence=0, extra=""):
    text = f"#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-TARGETDURATION:{target}\n{extra}#EXT-X-MEDIA-SEQUENCE:{sequence}\n"
    text += '#EXT-X-MAP:URI="init.mp4"\n'
    for uri, duration in segments:
        text += f"#EXTINF:{duration},\n{uri}\n"
    return text.encode()


ATTACKS = [
    ("1e-20 seconds", None, media_playlist(1, [("seg0.m4s", "1e-20")]), "#EXTINF:0.000 of seg0.m4s is out of range"),
    ("0x1p-80 seconds", None, media_playlist(2, [("seg0.m4s", "0x1p-80")]), "is out of range"),
    ("a day under TARGETDURATION 2", None, media_playlist(2, [("seg0.m4s", "86400")]),
     "#EXTINF:86400.000 of seg0.m4s is out of range"),
    ("TARGETDURATION 2^63-1", None, media_playlist(9223372036854775807, [("seg0.m4s", "1")]),
     "EXT-X-TARGETDURATION 9223372036854775807 is out of range"),
    ("LL TARGETDURATION 2e15", None,
     media_playlist(2000000000000000, [], extra="#EXT-X-PART-INF:PART-TARGET=0.2\n")
     + b'#EXT-X-PART:DURATION=0.2,URI="part0.0.m4s"\n', "EXT-X-TARGETDURATION 2000000000000000 is out of range"),
    ("40,000 segments", None, media_playlist(1, [(f"seg{i}.m4s", "1") for i in range(40000)]),
     "media.m3u8 lists 40000 segments; an origin takes at most 1000"),
    ("AVERAGE-BANDWIDTH 9e17",
     b"#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2000000,AVERAGE-BANDWIDTH=900000000000000000\nmedia.m3u8\n", None,
     "AVERAGE-BANDWIDTH 900000000000000000, above its BANDWIDTH"),
    ("a script in CODECS",
     b'#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="avc1\\"<script>alert(1)</script>"\nmedia.m3u8\n', None,
     "is not a codec string"),
    ("RESOLUTION 99999999999x99999999999",
     b"#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2000000,RESOLUTION=99999999999x99999999999\nmedia.m3u8\n", None,
     "RESOLUTION 99999999999x99999999999, out of range"),
]


def test_no_number_a_publisher_sends_can_take_the_origin_down(tmp_path):
    """Each input that once killed the origin (a trap in its arithmetic) is one 400 saying the rule;
    the origin, and the channel pushed with its own token from --ingest-tokens, go on."""
    tokens = tmp_path / "tokens"
    tokens.write_text("own own-channel-token-0123456789\n")
    tokens.chmod(0o600)
    origin = Origin("--ingest-tokens", str(tokens))
    try:
        for what, index, media, reason in ATTACKS:
            base = origin.ingest("own")
            assert put(base + "init.mp4", b"init", token="own-channel-token-0123456789")[0] == 201
            assert put(base + "seg0.m4s", b"media", token="own-channel-token-0123456789")[0] == 201
            status, text = put(base + ("index.m3u8" if index else "media.m3u8"), index or media,
                               token="own-channel-token-0123456789")
            assert status == 400 and reason in text, (what, status, text)
            assert origin.process.poll() is None, f"the origin died of {what}"
        assert fetch(f"{origin.base}/api/channels").status == 200
        # A real publisher still goes live on the same origin.
        publisher = Publisher(*LIVE, *origin.push_arguments("after"), channel="after")
        try:
            wait_until(lambda: (r := fetch(f"{origin.base}/live/after/media.m3u8")) and r.status == 200
                       and r.text.count("#EXTINF") >= 2, 30, what="a channel after the attacks")
        finally:
            publisher.kill()
    finally:
        origin.stop()


def test_a_jump_in_the_publishers_numbers_is_served_under_them_after_a_discontinuity():
    origin = Origin()
    try:
        base = origin.ingest()
        assert put(base + "init.mp4", b"init")[0] == 201
        for number in range(3):
            assert put(base + f"seg{number}.m4s", b"media")[0] == 201
        assert put(base + "media.m3u8", media_playlist(2, [(f"seg{n}.m4s", "2.000") for n in range(3)]))[0] == 201
        far = (1 << 49) - 10
        for number in range(far, far + 3):
            assert put(base + f"seg{number}.m4s", b"media")[0] == 201
        status, text = put(base + "media.m3u8",
                           media_playlist(2, [(f"seg{n}.m4s", "2.000") for n in range(far, far + 3)], sequence=far))
        assert status == 201, text
        playlist = MediaPlaylist(fetch(f"{origin.base}/live/demo/media.m3u8").text)
        # The publisher's numbers, so every origin it feeds serves the same names: a playlist lists
        # consecutive numbers only, so the earlier ones left it, and stay downloadable for a while.
        assert [s["uri"] for s in playlist.segments] == [f"seg{n}.m4s" for n in range(far, far + 3)]
        assert [bool(s.get("discontinuity")) for s in playlist.segments] == [True, False, False]
        assert playlist.sequence == far and playlist.int_tag("EXT-X-DISCONTINUITY-SEQUENCE") == 0
        assert fetch(f"{origin.base}/live/demo/seg2.m4s").status == 200
        check_media_playlist(playlist, "fmp4", window=6)
    finally:
        origin.stop()


def test_a_second_publisher_on_a_live_channel_is_refused_and_told():
    origin = Origin()
    first = Publisher(*LIVE, *origin.push_arguments())
    second = None
    try:
        wait_until(lambda: (r := fetch(f"{origin.base}/live/demo/media.m3u8")) and r.status == 200
                   and r.text.count("#EXTINF") >= 2, 30, what="the first publisher live")
        second = Publisher(*LIVE, *origin.push_arguments())
        wait_until(lambda: "409" in second.output() and "is live from another publisher" in second.output(), 30,
                   what="the second publisher to be told")
        assert "a second publisher refused (409)" in origin.output()
        # The first goes on alone: no new run, numbers at one segment per segment's worth of time.
        before = MediaPlaylist(fetch(f"{origin.base}/live/demo/media.m3u8").text)
        wait_until(lambda: MediaPlaylist(fetch(f"{origin.base}/live/demo/media.m3u8").text).sequence
                   + len(MediaPlaylist(fetch(f"{origin.base}/live/demo/media.m3u8").text).segments)
                   >= before.sequence + len(before.segments) + 2, 20, what="two more segments")
        after = MediaPlaylist(fetch(f"{origin.base}/live/demo/media.m3u8").text)
        assert not any(s.get("discontinuity") for s in after.segments), "no run of the second publisher"
        check_media_playlist(after, "fmp4", window=6)
    finally:
        if second:
            second.kill()
        first.kill()
        origin.stop()


def test_what_a_channel_and_the_origin_hold_is_bounded():
    """Eight renditions of 8 MB files under a 20 MB channel budget: the third file is 507, and so is
    the origin's budget across channels."""
    origin = Origin("--channel-memory", "20M", "--origin-memory", "30M")
    try:
        piece = bytes(8_000_000)
        statuses = [put(f"{origin.ingest('big')}r{n}/seg0.m4s", piece)[0] for n in range(8)]
        assert statuses == [201, 201] + [507] * 6, statuses
        status, text = put(f"{origin.ingest('big')}r7/seg0.m4s", piece)
        assert "--channel-memory" in text
        statuses = [put(f"{origin.ingest('other')}r{n}/seg0.m4s", piece)[0] for n in range(2)]
        assert statuses == [201, 507], statuses
        assert "--origin-memory" in put(f"{origin.ingest('other')}r1/seg0.m4s", piece)[1]
        metrics = fetch(f"{origin.base}/metrics").text
        held = float(re.search(r"^onair_origin_memory_bytes(?:\{[^}]*\})? (\S+)$", metrics, re.MULTILINE).group(1))
        assert held == 24_000_000, held
    finally:
        origin.stop()


def test_ended_channels_make_room_for_live_ones():
    """100 channels that each pushed one segment and ended: a new channel is taken at once, not
    after their retention."""
    origin = Origin()
    try:
        for number in range(100):
            base = origin.ingest(f"c{number}")
            assert put(base + "init.mp4", b"init")[0] == 201
            assert put(base + "seg0.m4s", b"media")[0] == 201
            status, text = put(base + "media.m3u8", media_playlist(1, [("seg0.m4s", "1.000")]) + b"#EXT-X-ENDLIST\n")
            assert status == 201, (number, text)
        base = origin.ingest("fresh")
        assert put(base + "init.mp4", b"init")[0] == 201, "an ended channel made room"
        assert put(base + "seg0.m4s", b"media")[0] == 201
        assert put(base + "media.m3u8", media_playlist(1, [("seg0.m4s", "1.000")]))[0] == 201
        assert fetch(f"{origin.base}/live/fresh/media.m3u8").status == 200
        assert fetch(f"{origin.base}/live/c0/media.m3u8").status == 404, "the oldest ended channel went"
        assert "channel c0 removed before its retention" in origin.output()
    finally:
        origin.stop()


def foreign_folder(root, channel, stamp, name, text):
    folder = root / channel / stamp
    folder.mkdir(parents=True)
    (folder / name).write_text(text)
    return folder


def test_retention_removes_only_recordings_onair_made(tmp_path):
    root = tmp_path / "rec"
    notes = foreign_folder(root, "talk", "2000-01-01T00-00-00Z", "notes.txt", "mine")
    first = Publisher("--record", str(root), "--duration", "2s", channel="talk")
    assert first.process.wait(timeout=30) == 0, first.output()
    made = next(p for p in (root / "talk").iterdir() if p != notes)
    (made / "thesis.txt").write_text("added by hand")
    keep = Publisher("--record", str(root), "--record-keep", "1", "--duration", "2s", channel="talk")
    assert keep.process.wait(timeout=30) == 0, keep.output()
    assert (notes / "notes.txt").read_text() == "mine", "a folder onair never wrote is left whole"
    assert sorted(p.name for p in made.iterdir()) == ["thesis.txt"], "only onair's files of its recording go"
    removed = [line for line in keep.output().splitlines() if "removed the recording" in line]
    assert len(removed) == 1 and made.name in removed[0], removed


def test_a_recording_never_continues_or_marks_a_folder_onair_did_not_make(tmp_path):
    """Someone's own unfinished HLS under a name like a start time, newer than any recording: once
    continued by the next run, marked as onair's, and then removed by --record-keep 1."""
    root = tmp_path / "rec"
    theirs = foreign_folder(root, "talk", "2099-01-01T00-00-00Z", "media.m3u8",
                            "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nseg0.m4s\n")
    (theirs / "seg0.m4s").write_bytes(b"their media")
    for arguments in (("--duration", "2s"), ("--record-keep", "1", "--duration", "2s")):
        run = Publisher("--record", str(root), *arguments, channel="talk")
        assert run.process.wait(timeout=30) == 0, run.output()
    assert sorted(p.name for p in theirs.iterdir()) == ["media.m3u8", "seg0.m4s"], "not written into, nor marked"
    assert (theirs / "seg0.m4s").read_bytes() == b"their media"
    assert "#EXT-X-ENDLIST" not in (theirs / "media.m3u8").read_text()
    ours = [p for p in (root / "talk").iterdir() if p != theirs]
    assert len(ours) == 1 and (ours[0] / ".onair-recording").exists(), ours


def test_an_origins_retention_leaves_what_a_publisher_named_alike(tmp_path):
    root = tmp_path / "srec"
    thesis = foreign_folder(root, "c1", "1999-01-01T00-00-00Z", "thesis.txt", "years of work")
    origin = Origin("--record", str(root), "--record-keep", "1")
    try:
        run = Publisher(*LIVE, "--duration", "3s", *origin.push_arguments("c1"), channel="c1")
        assert run.process.wait(timeout=30) == 0, run.output()
        wait_until(lambda: any((p / "media.m3u8").exists() for p in (root / "c1").iterdir() if p != thesis), 20,
                   what="the origin's recording")
        assert (thesis / "thesis.txt").read_text() == "years of work"
        assert "recording_removed" not in origin.output()
    finally:
        origin.stop()


def test_recording_files_are_served_without_links_and_with_rfc_9110_ranges(tmp_path):
    root = tmp_path / "rec"
    done = Publisher("--record", str(root), "--record-mp4", "--duration", "2s", channel="kept")
    assert done.process.wait(timeout=30) == 0, done.output()
    folder = next((root / "kept").iterdir())
    secret = tmp_path / "secret.txt"
    secret.write_text("outside the recordings")
    (folder / "seg99999.m4s").symlink_to(secret)
    mp4 = (folder / "recording.mp4").read_bytes()
    server = Publisher("--record", str(root), channel="onnow")
    try:
        server.wait_for_segments(1)
        base = f"{server.base}/recordings/kept/{folder.name}"
        assert fetch(f"{base}/seg99999.m4s").status == 404, "a link out of the folder is not followed"
        last = fetch(f"{base}/recording.mp4", headers={"Range": "bytes=-10"})
        assert last.status == 206 and last.body == mp4[-10:]
        assert last.headers["content-range"] == f"bytes {len(mp4) - 10}-{len(mp4) - 1}/{len(mp4)}"
        for header in ("bytes=99999999-", "bytes=-0"):
            refused = fetch(f"{base}/recording.mp4", headers={"Range": header})
            assert refused.status == 416, header
            assert refused.headers["content-range"] == f"bytes */{len(mp4)}", header
        whole = fetch(f"{base}/recording.mp4")
        assert whole.status == 200 and whole.body == mp4 and whole.headers["accept-ranges"] == "bytes"
        # A recording whose MP4 is a link to a file elsewhere lists no MP4.
        (folder / "recording.mp4").unlink()
        (folder / "recording.mp4").symlink_to("/etc/hostname")
        entry = next(e for e in fetch(f"{server.base}/api/recordings").json()["recordings"] if e["channel"] == "kept")
        assert entry.get("mp4") is None and entry.get("mp4Bytes") is None, entry
        assert fetch(f"{base}/recording.mp4").status == 404
    finally:
        server.kill()


def test_a_push_is_refused_before_its_body_and_a_waiting_client_is_told_to_send():
    origin = Origin("--idle-timeout", "30s")
    try:
        def exchange(head, body=b""):
            """What the origin answers until it closes the connection, and how long that took."""
            with socket.create_connection(("127.0.0.1", origin.port), timeout=10) as connection:
                connection.sendall(head + body)
                started = time.monotonic()
                received = b""
                while chunk := connection.recv(65536):
                    received += chunk
                return received, time.monotonic() - started

        # No token: 401 and the connection closed at once, the rest of the body not waited for.
        answer, seconds = exchange(b"PUT /ingest/demo/seg0.m4s HTTP/1.1\r\nHost: o\r\nContent-Length: 1000000\r\n\r\n",
                                   b"x" * 1000)
        assert answer.startswith(b"HTTP/1.1 401") and seconds < 5, (answer[:80], seconds)
        # Too large by its Content-Length: 413 before the body.
        auth = f"Authorization: Bearer {TOKEN}\r\n".encode()
        answer, seconds = exchange(b"PUT /ingest/demo/seg0.m4s HTTP/1.1\r\nHost: o\r\n" + auth
                                   + b"Content-Length: 100000000\r\n\r\n")
        assert answer.startswith(b"HTTP/1.1 413") and b"larger than this server takes" in answer, answer[:200]
        # Expect: 100-continue is answered, then the body taken.
        with socket.create_connection(("127.0.0.1", origin.port), timeout=10) as connection:
            connection.sendall(b"PUT /ingest/demo/seg0.m4s HTTP/1.1\r\nHost: o\r\n" + auth
                               + b"Content-Length: 5\r\nExpect: 100-continue\r\n\r\n")
            assert connection.recv(4096).startswith(b"HTTP/1.1 100 Continue")
            connection.sendall(b"media")
            assert connection.recv(4096).startswith(b"HTTP/1.1 201")
    finally:
        origin.stop()


def origin_memory(origin):
    metrics = fetch(f"{origin.base}/metrics").text
    return float(re.search(r"^onair_origin_memory_bytes(?:\{[^}]*\})? (\S+)$", metrics, re.MULTILINE).group(1))


def resident_megabytes(process):
    status = Path(f"/proc/{process.pid}/status").read_text()
    return int(re.search(r"^VmRSS:\s+(\d+) kB", status, re.MULTILINE).group(1)) / 1024


def test_a_part_listed_many_times_is_refused_and_allocates_nothing():
    """One 1 MiB part, then a playlist that lists it 600 times in one segment: once 600 copies
    (670 MB resident under a 64 MB budget, and 7.5 GB tried for a 12 MiB part). Now a 400 naming
    the part, and the budgets hold."""
    origin = Origin("--channel-memory", "16M", "--origin-memory", "64M")
    try:
        base = origin.ingest()
        assert put(base + "init.mp4", b"init")[0] == 201
        assert put(base + "part0.0.m4s", bytes(1 << 20))[0] == 201
        before = resident_megabytes(origin.process)
        text = "#EXTM3U\n#EXT-X-VERSION:9\n#EXT-X-TARGETDURATION:2\n#EXT-X-PART-INF:PART-TARGET=0.2\n"
        text += '#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-MAP:URI="init.mp4"\n'
        text += '#EXT-X-PART:DURATION=0.2,URI="part0.0.m4s"\n' * 600 + "#EXTINF:2.000,\nseg0.m4s\n"
        status, reason = put(base + "media.m3u8", text.encode())
        assert status == 400 and "lists part0.0.m4s twice" in reason, (status, reason)
        assert origin.process.poll() is None
        assert origin_memory(origin) <= 64_000_000
        assert resident_megabytes(origin.process) - before < 50, "nothing was copied"
    finally:
        origin.stop()


def delete(url, token=TOKEN, run=None):
    headers = {"Authorization": f"Bearer {token}"}
    if run:
        headers["Onair-Run"] = run
    request = urllib.request.Request(url, headers=headers, method="DELETE")
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def put_as(url, body, run):
    request = urllib.request.Request(
        url, data=body, method="PUT", headers={"Authorization": f"Bearer {TOKEN}", "Onair-Run": run})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


def test_a_second_token_holder_can_neither_end_nor_take_nor_rewrite_a_live_channel(tmp_path):
    """While onair's publisher pushes, another holder of the same ingest token (naming no run, or
    another) is refused every playlist: the window plus EXT-X-ENDLIST (which once ended the channel
    for every viewer and, with --record-keep, deleted real recordings), a jump to MEDIA-SEQUENCE
    900000 with one gap (which once took the channel over), a rewritten index.m3u8, a DELETE."""
    records = tmp_path / "rec"
    origin = Origin("--record", str(records), "--record-keep", "3")
    publisher = Publisher(*LIVE, *origin.push_arguments())
    try:
        live = f"{origin.base}/live/demo/"
        wait_until(lambda: (r := fetch(live + "media.m3u8")) and r.status == 200 and r.text.count("#EXTINF") >= 2,
                   30, what="the publisher live")
        base = origin.ingest()
        window = fetch(live + "media.m3u8").text
        jump = media_playlist(2, [("seg900000.m4s", "2.000")], sequence=900000).replace(
            b"#EXTINF", b"#EXT-X-GAP\n#EXTINF")
        rewritten = (b'#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=2000000,CODECS="hvc1.1.6.L93.B0,ec-3",'
                     b"RESOLUTION=16384x16384,FRAME-RATE=1000\nmedia.m3u8\n")
        for run in (None, "intruder-0123456789"):
            for name, body in [("media.m3u8", (window + "#EXT-X-ENDLIST\n").encode()), ("media.m3u8", jump),
                               ("index.m3u8", rewritten)]:
                status, text = put_as(base + name, body, run) if run else put(base + name, body)
                assert status == 409 and "is live from another publisher" in text, (run, name, status, text)
            assert delete(base + "init.mp4", run=run)[0] == 409
        # The real publisher goes on, told nothing, and viewers see its stream, not the intruder's.
        first = MediaPlaylist(fetch(live + "media.m3u8").text)
        wait_until(lambda: MediaPlaylist(fetch(live + "media.m3u8").text).sequence >= first.sequence + 2, 20,
                   what="two more segments from the publisher")
        playlist = MediaPlaylist(fetch(live + "media.m3u8").text)
        assert not playlist.ended and not any(s.get("gap") for s in playlist.segments)
        assert not any(s.get("discontinuity") for s in playlist.segments), "one run, never interrupted"
        index = fetch(live + "index.m3u8").text
        assert "hvc1" not in index and "16384" not in index, index
        # No 409 reached the publisher (a number with 409 in it, a port, is not one).
        assert not re.search(r"(?<![\d.:])409(?!\d)", publisher.output()), publisher.output()
        # One recording: the intruders started none, so retention had nothing to remove.
        folders = [p for p in (records / "demo").iterdir() if p.is_dir()]
        assert len(folders) == 1, folders
        assert "recording_removed" not in origin.output()
    finally:
        publisher.kill()
        origin.stop()


def test_files_pushed_to_made_up_names_do_not_keep_a_real_channel_out():
    """100 one-byte PUTs to made-up channels once held every slot, and the real publisher's first
    playlist got 507: a channel takes a slot for good with its first playlist that lists media."""
    origin = Origin()
    try:
        for number in range(100):
            assert put(origin.ingest(f"made-up-{number}") + "seg0.m4s", b"x")[0] == 201
        base = origin.ingest("real")
        assert put(base + "init.mp4", b"init")[0] == 201
        assert put(base + "seg0.m4s", b"media")[0] == 201
        status, text = put(base + "media.m3u8", media_playlist(1, [("seg0.m4s", "1.000")]))
        assert status == 201, text
        assert fetch(f"{origin.base}/live/real/media.m3u8").status == 200
        assert "channel made-up-0 removed before its retention" in origin.output()
    finally:
        origin.stop()


def answer_of(connection, seconds):
    """What the origin sent on `connection` within `seconds`: b"" once it closed, None for nothing yet."""
    connection.settimeout(seconds)
    try:
        return connection.recv(65536)
    except socket.timeout:
        return None
    except OSError:
        return b""


def test_uploads_in_flight_are_budgeted_paced_and_leave_viewers_their_connections():
    """30 PUTs declaring 32 MiB and trickling a byte every few seconds once took an origin with
    --origin-memory 32M to 1,020 MB, outlived a 5 s --idle-timeout and filled --max-connections, so
    new viewers were reset. Now a declared body counts against the budget (507 before it is read),
    uploads take at most half the connections (503), and a body that has not kept 16 KiB/s on
    average once its grace (the idle timeout) is over is closed."""
    origin = Origin("--origin-memory", "32M", "--channel-memory", "16M", "--idle-timeout", "5s",
                    "--max-connections", "64")
    auth = f"Authorization: Bearer {TOKEN}\r\n".encode()

    def upload(channel, length):
        connection = socket.create_connection(("127.0.0.1", origin.port), timeout=10)
        connection.sendall(f"PUT /ingest/{channel}/seg0.m4s HTTP/1.1\r\nHost: o\r\n".encode() + auth
                           + f"Content-Length: {length}\r\n\r\n".encode() + b"x")
        return connection

    connections = []
    try:
        declared = upload("big", 30 << 20)
        declared.sendall(bytes((30 << 20) - 1))
        answer = answer_of(declared, 10)
        assert answer and answer.startswith(b"HTTP/1.1 507") and b"-memory)" in answer, answer
        declared.close()
        # 40 uploads of 500 kB each, trickling: 32 are taken (half of 64 connections), 8 told to wait.
        connections = [upload(f"c{n}", 500_000) for n in range(40)]
        wait_until(lambda: origin_memory(origin) >= 32 * 500_000, 10, what="32 uploads counted")
        answers = [None] * len(connections)

        def eight_answered():
            for index, connection in enumerate(connections):
                if answers[index] is None:
                    answers[index] = answer_of(connection, 0.01)
            return sum(a is not None for a in answers) >= 8

        wait_until(eight_answered, 3, what="the uploads past the share told")
        refused = [a for a in answers if a is not None]
        assert len(refused) == 8 and all(a.startswith(b"HTTP/1.1 503") for a in refused), refused
        assert origin_memory(origin) == 32 * 500_000 <= 32_000_000
        # Viewers still get in while every upload slot is held.
        for _ in range(20):
            assert fetch(f"{origin.base}/api/channels").status == 200
        trickling = [c for c, a in zip(connections, answers) if a is None]
        started = time.monotonic()

        def all_closed():
            for connection in trickling:
                try:
                    connection.sendall(b"x")
                except OSError:
                    pass
            return all(answer_of(c, 0.05) == b"" for c in trickling)

        wait_until(all_closed, 30, interval=1, what="trickled bodies closed")
        assert time.monotonic() - started >= 3, "not before the grace"
        wait_until(lambda: origin_memory(origin) == 0, 10, what="their budget given back")
        assert origin.process.poll() is None
    finally:
        for connection in connections:
            connection.close()
        origin.stop()


def test_a_failed_mp4_export_leaves_no_older_mp4_listed_as_the_recording(tmp_path):
    """A run continued after a crash whose export fails (a segment gone): the MP4 of the first run,
    shorter than the recording, once stayed and was listed as the recording's."""
    root = tmp_path / "rec"
    first = Publisher("--record", str(root), "--record-mp4", "--duration", "2s", channel="talk")
    assert first.process.wait(timeout=30) == 0, first.output()
    folder = next((root / "talk").iterdir())
    assert (folder / "recording.mp4").exists()
    # As if killed: no EXT-X-ENDLIST, so the next run continues the recording; and a segment lost.
    playlist = folder / "media.m3u8"
    playlist.write_text(playlist.read_text().replace("#EXT-X-ENDLIST\n", ""))
    (folder / "seg0.m4s").unlink()
    second = Publisher("--record", str(root), "--record-mp4", "--duration", "2s", channel="talk")
    assert second.process.wait(timeout=30) == 0, second.output()
    assert "could not be saved as an MP4" in second.output()
    assert not (folder / "recording.mp4").exists(), "the older, shorter MP4 is not left as the recording's"
    assert [p.name for p in (root / "talk").iterdir()] == [folder.name], "the run continued that recording"


def test_an_ended_channel_takes_a_new_stream_with_other_settings():
    """After a clean stop (ENDLIST), a publisher in TS with 4 s segments was refused for the
    channel's 10 minutes of retention: an ended stream is over, and the next may differ."""
    origin = Origin()
    live = f"{origin.base}/live/demo/media.m3u8"
    second = None
    try:
        first = Publisher(*LIVE, "--duration", "3s", *origin.push_arguments())
        assert first.process.wait(timeout=30) == 0, first.output()
        wait_until(lambda: "#EXT-X-ENDLIST" in fetch(live).text, 15, what="the first stream ended")
        second = Publisher(*LIVE, "--format", "ts", "--segment-duration", "4", *origin.push_arguments())
        wait_until(lambda: (r := fetch(live)) and "#EXT-X-TARGETDURATION:4" in r.text and ".ts\n" in r.text, 40,
                   what="the new stream, in TS with 4 s segments")
        playlist = MediaPlaylist(fetch(live).text)
        assert not playlist.ended and "409" not in second.output(), second.output()
        check_media_playlist(playlist, "ts", window=6)
    finally:
        if second:
            second.kill()
        origin.stop()
