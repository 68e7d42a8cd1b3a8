"""`--record DIR`: the whole broadcast kept as an HLS recording, EVENT while live and VOD once stopped,
continued after a SIGKILL, byte for byte what the live stream published."""

import re
import shutil
import signal

from destinations import SeaweedFS
from edges import Origin
from harness import Publisher, fetch, ffprobe, frame_counts, run_onair, wait_until
from hls_rules import MediaPlaylist, audio_renditions, check_multivariant, check_recording


def recording_of(root, channel):
    folders = sorted((root / channel).iterdir())
    assert len(folders) == 1, folders
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ", folders[0].name), folders[0].name
    return folders[0]


def playlist_in(folder):
    path = folder / "media.m3u8"
    return MediaPlaylist(path.read_text()) if path.exists() else None


def frames_in(folder, init, segment):
    data = (folder / init).read_bytes() + (folder / segment).read_bytes()
    path = folder.parent.parent / f"probe-{segment}.mp4"
    path.write_bytes(data)
    probe = ffprobe(path, "-count_frames")
    return {s["codec_type"]: int(s["nb_read_frames"]) for s in probe["streams"]}


def check_mp4(path, video_frames, audio_frames, seconds, width=None):
    """A whole MP4 with the index at the front: these frame counts, timestamps that only grow."""
    data = path.read_bytes()
    assert data.index(b"moov") < data.index(b"mdat"), "faststart: the index before the media"
    probe = ffprobe(path, "-count_frames", "-show_format")
    counted = {s["codec_type"]: int(s["nb_read_frames"]) for s in probe["streams"]}
    assert counted == {"video": video_frames, "audio": audio_frames}, counted
    assert abs(float(probe["format"]["duration"]) - seconds) < 0.2, (probe["format"], seconds)
    if width:
        assert [s["width"] for s in probe["streams"] if s["codec_type"] == "video"] == [width]
    times = ffprobe(path, "-select_streams", "v", "-show_entries", "packet=dts_time")["packets"]
    stamps = [float(p["dts_time"]) for p in times]
    assert all(b > a for a, b in zip(stamps, stamps[1:])), "timestamps grow across the restart"


def test_a_recording_survives_a_pause_and_a_kill_and_ends_as_vod(tmp_path):
    root = tmp_path / "recordings"
    first = Publisher("--record", str(root), channel="kept")
    try:
        wait_until(lambda: (root / "kept").exists() and any((root / "kept").iterdir())
                   and (p := playlist_in(recording_of(root, "kept"))) and len(p.segments) >= 2, 30,
                   what="two recorded segments")
        folder = recording_of(root, "kept")
        # While live: an EVENT playlist that only grows.
        before = playlist_in(folder)
        check_recording(before, "fmp4")
        assert not before.ended
        # Paused: the segments carry the standby card and silence, and the recording keeps them.
        assert first.control("pause").status == 200
        wait_until(lambda: len(playlist_in(folder).segments) >= len(before.segments) + 1, 10, what="a paused segment")
        assert first.control("resume").status == 200
        wait_until(lambda: len(playlist_in(folder).segments) >= len(before.segments) + 2, 10, what="one more")
        grown = playlist_in(folder)
        assert [s["uri"] for s in grown.segments[:len(before.segments)]] == [s["uri"] for s in before.segments]
        first.process.send_signal(signal.SIGKILL)
        first.process.wait(timeout=10)
    finally:
        first.kill()
    killed = playlist_in(folder)
    check_recording(killed, "fmp4")
    assert not killed.ended, "a killed broadcast leaves a valid EVENT playlist"
    assert all((folder / s["uri"]).is_file() for s in killed.segments)
    assert not list(folder.glob(".*.tmp")), "no half-written file"

    second = Publisher("--record", str(root), "--record-mp4", channel="kept")
    try:
        wait_until(lambda: len(playlist_in(folder).segments) >= len(killed.segments) + 2, 30,
                   what="the recording to go on")
        assert "continuing the recording in" in second.output()
        # What the live stream publishes now, to compare with what the recording keeps.
        live = MediaPlaylist(second.get("media.m3u8").text)
        published = [second.get(s["uri"]).body for s in live.segments]
        assert second.stop() == 0
    finally:
        second.kill()
    assert recording_of(root, "kept") == folder, "one recording, continued"
    final = playlist_in(folder)
    check_recording(final, "fmp4")
    assert final.ended
    # The discontinuity is where the restart was, with the new run's own init segment.
    restart = len(killed.segments)
    assert [i for i, s in enumerate(final.segments) if s.get("discontinuity")] == [restart]
    assert f'#EXT-X-MAP:URI="init{restart}.mp4"' in (folder / "media.m3u8").read_text()
    assert [s["uri"] for s in final.segments] == [f"seg{i}.m4s" for i in range(len(final.segments))]
    # Every frame: each segment holds the frames its EXTINF says (30 fps), none missing or twice.
    counts = []
    for index, segment in enumerate(final.segments):
        init = "init.mp4" if index < restart else f"init{restart}.mp4"
        counts.append(frames_in(folder, init, segment["uri"]))
        assert counts[-1]["video"] == round(segment["duration"] * 30), (segment, counts[-1])
        assert counts[-1]["audio"] > 0
    # --record-mp4: the same frames in one MP4, the restart closed up, the index at the front.
    check_mp4(folder / "recording.mp4", sum(c["video"] for c in counts), sum(c["audio"] for c in counts),
              sum(s["duration"] for s in final.segments))
    assert "saved " in second.output() and not list(folder.glob(".*.tmp"))
    # Byte for byte what the live stream published, in order.
    kept = [(folder / s["uri"]).read_bytes() for s in final.segments]
    assert published and all(body in kept for body in published)
    positions = [kept.index(body) for body in published]
    assert positions == sorted(positions) and positions[-1] - positions[0] == len(positions) - 1
    assert (folder / "index.m3u8").is_file()


def test_a_ladder_is_recorded_rendition_by_rendition(tmp_path):
    root = tmp_path / "recordings"
    publisher = Publisher("--renditions", "360p,180p", "--record", str(root), "--record-mp4", "--duration", "5s",
                          channel="ladderrec")
    assert publisher.process.wait(timeout=30) == 0
    folder = recording_of(root, "ladderrec")
    index = (folder / "index.m3u8").read_text()
    assert [v["URI"] for v in check_multivariant(index)] == ["360p/media.m3u8", "180p/media.m3u8"]
    assert [a["URI"] for a in audio_renditions(index)] == ["audio/media.m3u8"]
    playlists = {rung: playlist_in(folder / rung) for rung in ("360p", "180p", "audio")}
    for rung, playlist in playlists.items():
        check_recording(playlist, "fmp4")
        assert playlist.ended and len(playlist.segments) == 3, (rung, playlist.segments)
    assert len({tuple(s["uri"] for s in p.segments) for p in playlists.values()}) == 1
    # The MP4: the largest rung's picture with the sound rendition's sound.
    picture = [frames_in(folder / "360p", "init.mp4", s["uri"])["video"] for s in playlists["360p"].segments]
    sound = [frames_in(folder / "audio", "init.mp4", s["uri"])["audio"] for s in playlists["audio"].segments]
    check_mp4(folder / "recording.mp4", sum(picture), sum(sound),
              sum(s["duration"] for s in playlists["360p"].segments), width=640)


def test_a_recording_folder_that_cannot_be_written_is_one_line_and_status_2(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    result = run_onair("publish", "--record", str(blocker / "inside"), "--duration", "1s")
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"onair: --record {blocker / 'inside'} is not writable; choose a folder you can write to"]


def test_retention_removes_the_oldest_recordings_and_says_so(tmp_path):
    root = tmp_path / "recordings"
    first = Publisher("--record", str(root), "--duration", "3s", channel="kept")
    assert first.process.wait(timeout=30) == 0
    made = recording_of(root, "kept")
    # Two older copies of it, as earlier broadcasts would have left them.
    for stamp in ("2020-01-01T00-00-00Z", "2021-01-01T00-00-00Z"):
        shutil.copytree(made, root / "kept" / stamp)
    keep = Publisher("--record", str(root), "--record-keep", "2", "--duration", "3s", channel="kept")
    assert keep.process.wait(timeout=30) == 0
    names = sorted(p.name for p in (root / "kept").iterdir())
    assert len(names) == 2 and names[0] == made.name, names
    removed = [line for line in keep.output().splitlines() if "removed the recording" in line]
    assert len(removed) == 2 and "2020-01-01T00-00-00Z" in removed[0] and "2021-01-01T00-00-00Z" in removed[1]
    assert all("to keep to --record-keep 2" in line for line in removed)
    # A size no recording fits: every older one goes, never the one being written.
    tight = Publisher("--record", str(root), "--record-max-size", "1", "--duration", "3s", channel="kept")
    assert tight.process.wait(timeout=30) == 0
    left = list((root / "kept").iterdir())
    assert len(left) == 1 and left[0].name not in names
    final = playlist_in(left[0])
    assert final.ended and len(final.segments) >= 1


def test_an_origin_records_each_run_of_the_channels_it_hosts(tmp_path):
    root = tmp_path / "recordings"
    origin = Origin("--record", str(root))
    try:
        def ended_recordings():
            folders = sorted((root / "relayed").iterdir()) if (root / "relayed").exists() else []
            playlists = [playlist_in(f) for f in folders]
            return all(p and p.ended for p in playlists) and list(zip(folders, playlists))

        runs = []
        for number, seconds in enumerate((5, 3), start=1):
            run = Publisher("--size", "640x360", "--no-serve", "--duration", f"{seconds}s",
                            *origin.push_arguments("relayed"), channel="relayed")
            assert run.process.wait(timeout=30) == 0, run.output()
            # Every slot of the run is a frame encoded or one its queue dropped (a stall of the
            # whole process on a loaded machine drops some); the recording holds every one encoded.
            *_, dropped, encoded = frame_counts(run.output())
            assert dropped + encoded == seconds * 30, run.output()
            runs.append(encoded)
            recordings = wait_until(lambda: (r := ended_recordings()) and len(r) == number and r, 20,
                                    what=f"recording {number} to end")
        assert "recording channel relayed to" in origin.output()
        # One recording a run, each holding exactly that run: every frame, numbered from 0.
        for (folder, playlist), encoded in zip(recordings, runs):
            check_recording(playlist, "fmp4")
            assert [s["uri"] for s in playlist.segments] == [f"seg{i}.m4s" for i in range(len(playlist.segments))]
            assert not any(s.get("discontinuity") for s in playlist.segments)
            frames = sum(frames_in(folder, "init.mp4", s["uri"])["video"] for s in playlist.segments)
            assert frames == encoded, (folder, frames, encoded)
            assert (folder / "index.m3u8").is_file()
        listed = fetch(f"{origin.base}/api/recordings").json()["recordings"]
        assert [(e["channel"], e["name"], e["ended"]) for e in listed] == [
            ("relayed", folder.name, True) for folder, _ in reversed(recordings)]
    finally:
        origin.stop()


def test_a_recording_kept_in_s3_ends_as_vod_in_the_bucket(tmp_path):
    """`--record s3://…`: the same recording, put in object storage (SeaweedFS's S3 gateway)."""
    store = SeaweedFS(tmp_path / "seaweedfs")
    publisher = Publisher("--size", "640x360", "--record", "s3://live/archive/", env=store.environment())
    try:
        found = wait_until(lambda: re.search(r"recording to s3://live/archive/(demo/\S+Z)/", publisher.output()), 20,
                           what="where the recording goes")
        base = f"{store.base}/live/archive/{found.group(1)}/"
        wait_until(lambda: (r := fetch(base + "media.m3u8")) is not None and r.status == 200
                   and len(MediaPlaylist(r.text).segments) >= 4, 30, what="4 segments recorded in the bucket")
        live = MediaPlaylist(fetch(base + "media.m3u8").text)
        check_recording(live, "fmp4")
        assert not live.ended
        assert fetch(base + "media.m3u8").headers["cache-control"] == "no-cache"
        assert publisher.stop() == 0
        wait_until(lambda: MediaPlaylist(fetch(base + "media.m3u8").text).ended, 10, what="VOD in the bucket")
        vod = MediaPlaylist(fetch(base + "media.m3u8").text)
        check_recording(vod, "fmp4")
        assert [s["uri"] for s in vod.segments] == [f"seg{n}.m4s" for n in range(len(vod.segments))]
        check_multivariant(fetch(base + "index.m3u8").text)
        copy = tmp_path / "copy" / "demo" / "recording"
        copy.mkdir(parents=True)
        (copy / "init.mp4").write_bytes(fetch(base + "init.mp4").body)
        recorded = 0
        for segment in vod.segments:
            response = fetch(base + segment["uri"])
            assert response.status == 200 and response.headers["content-type"] == "video/mp4"
            assert "immutable" in response.headers["cache-control"]
            (copy / segment["uri"]).write_bytes(response.body)
            counted = frames_in(copy, "init.mp4", segment["uri"])
            assert counted["video"] <= round(segment["duration"] * 30), (segment, counted)
            recorded += counted["video"]
        # Every frame encoded, none twice (a frame fewer than the segment's slots is one the
        # encoder's queue dropped in a stall of the whole process, and said so), and the playlist
        # lasting no more slots than the run had.
        *_, dropped, encoded = frame_counts(publisher.output())
        assert recorded == encoded and encoded + dropped >= sum(round(s["duration"] * 30) for s in vod.segments)
        assert "[record_failed]" not in publisher.output()
    finally:
        publisher.kill()
        store.stop()


def test_s3_recording_options_are_checked_before_anything_starts(tmp_path):
    keys = {"AWS_ACCESS_KEY_ID": "k", "AWS_SECRET_ACCESS_KEY": "s"}
    for arguments, env, message in [
        (["publish", "--record", "s3://live/x/"], {}, "--record s3://live/x/: no S3 credentials"),
        (["publish", "--record", "s3://live/x/", "--record-mp4"], keys, "--record-mp4 is made from a recording on"),
        (["publish", "--record", "s3://live/x/", "--record-keep", "2"], keys, "keep a bucket's recordings with its"),
        (["serve", "--record", "s3://live/x/"], {}, "--record s3://live/x/: no S3 credentials"),
    ]:
        result = run_onair(*arguments, env={"AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": "", **env}, timeout=20)
        assert result.returncode == 2, (arguments, result.stderr)
        assert message in result.stderr, result.stderr
