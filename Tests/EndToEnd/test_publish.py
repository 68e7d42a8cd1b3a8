"""`onair publish` end to end: what a viewer downloads over HTTP while the channel is live."""

import subprocess
import time
from pathlib import Path

import pytest

from harness import Publisher, ffprobe, init_segment, wait_until
from hls_rules import MediaPlaylist, check_history, check_media_playlist, check_multivariant

RUNS = {
    "fmp4": {"arguments": ["--format", "fmp4"], "size": (1280, 720), "fps": 30},
    # Low-Latency HLS: the same whole segments for players that ignore parts.
    "fmp4-low-latency": {"arguments": ["--low-latency"], "size": (1280, 720), "fps": 30, "container": "fmp4"},
    "ts": {"arguments": ["--format", "ts", "--size", "640x360", "--fps", "25"], "size": (640, 360), "fps": 25},
}


class Broadcast:
    """Everything recorded from one 7-second broadcast."""

    def __init__(self, run, folder):
        settings = RUNS[run]
        self.container = container = settings.get("container", run)
        self.fps = settings["fps"]
        self.size = settings["size"]
        self.folder = folder
        self.publisher = Publisher(*settings["arguments"], "--duration", "7s", "--hls-dir", str(folder))
        self.history = []
        self.multivariants = []
        self.segments = {}
        self.listed_status = {}
        try:
            self.record()
            self.exit_code = self.publisher.process.wait(timeout=30)
        finally:
            self.publisher.kill()
        self.mirror = folder / "live" / "demo"
        self.final = MediaPlaylist((self.mirror / "media.m3u8").read_text())
        # Segments listed after the last poll (the final one, flushed at the stop) come from the mirror.
        for segment in self.final.segments:
            if segment["uri"] not in self.segments:
                self.segments[segment["uri"]] = (self.mirror / segment["uri"]).read_bytes()
        self.init = init_segment(self.mirror) if container == "fmp4" else b""
        # The first segment: its number follows the broadcast's start on the epoch.
        self.first = self.final.segments[0]["uri"]

    def record(self):
        publisher = self.publisher
        wait_until(lambda: publisher.get("index.m3u8"), 30, what="the server")
        while publisher.process.poll() is None:
            response = publisher.get("media.m3u8")
            multivariant = publisher.get("index.m3u8")
            if response is None or multivariant is None:
                break
            playlist = MediaPlaylist(response.text)
            self.history.append((time.monotonic(), playlist))
            self.multivariants.append((playlist, multivariant.text))
            for segment in playlist.segments:
                if segment["uri"] not in self.segments:
                    download = publisher.get(segment["uri"])
                    self.listed_status[segment["uri"]] = (download.status, download.headers.get("content-type"))
                    self.segments[segment["uri"]] = download.body
            time.sleep(0.1)

    def probe(self, uri, tmp_path):
        path = tmp_path / (uri + (".mp4" if self.container == "fmp4" else ""))
        path.write_bytes(self.init + self.segments[uri])
        return ffprobe(path, "-show_packets")

    def packets(self, uri, tmp_path, kind):
        probe = self.probe(uri, tmp_path)
        index = next(s["index"] for s in probe["streams"] if s["codec_type"] == kind)
        return [p for p in probe["packets"] if p["stream_index"] == index]


@pytest.fixture(scope="module", params=sorted(RUNS))
def broadcast(request, tmp_path_factory):
    return Broadcast(request.param, tmp_path_factory.mktemp(f"hls-{request.param}"))


def test_duration_stops_cleanly_with_endlist(broadcast):
    assert broadcast.exit_code == 0, broadcast.publisher.output()
    assert broadcast.final.ended
    assert broadcast.final.segments[-1]["uri"] in broadcast.segments
    assert abs(broadcast.final.duration - 7) <= 1 / broadcast.fps + 1e-6


def test_every_playlist_seen_while_live_obeys_the_hls_rules(broadcast):
    assert len(broadcast.history) >= 10
    for _, playlist in broadcast.history:
        check_media_playlist(playlist, broadcast.container, window=6)
    check_media_playlist(broadcast.final, broadcast.container, window=6)
    check_history(broadcast.history + [(time.monotonic(), broadcast.final)])


def test_segments_are_downloadable_the_moment_they_are_listed(broadcast):
    expected_type = "video/mp4" if broadcast.container == "fmp4" else "video/mp2t"
    assert len(broadcast.listed_status) >= 3
    for uri, (status, content_type) in broadcast.listed_status.items():
        assert (status, content_type) == (200, expected_type), uri


def test_streams_are_h264_and_aac_at_the_requested_size_and_rate(broadcast, tmp_path):
    streams = {s["codec_type"]: s for s in broadcast.probe(broadcast.first, tmp_path)["streams"]}
    video, audio = streams["video"], streams["audio"]
    assert (video["codec_name"], video["profile"], video["pix_fmt"]) == ("h264", "High", "yuv420p")
    assert (video["width"], video["height"]) == broadcast.size
    assert video["r_frame_rate"] == f"{broadcast.fps}/1"
    assert (audio["codec_name"], audio["profile"], audio["sample_rate"], audio["channels"]) == ("aac", "LC", "48000", 2)


def test_every_segment_starts_with_an_idr_and_lasts_its_extinf(broadcast, tmp_path):
    for segment in broadcast.final.segments:
        video = broadcast.packets(segment["uri"], tmp_path, "video")
        assert "K" in video[0]["flags"], f"{segment['uri']} starts with a keyframe"
        assert sum("K" in p["flags"] for p in video) == 1, "no IDR inside a segment"
        measured = len(video) / broadcast.fps
        assert abs(measured - segment["duration"]) <= 1 / broadcast.fps, segment


def test_timestamps_continue_across_segments_with_audio_aligned(broadcast, tmp_path):
    frame = 1 / broadcast.fps
    previous = None
    for index, segment in enumerate(broadcast.final.segments):
        video = broadcast.packets(segment["uri"], tmp_path, "video")
        audio = broadcast.packets(segment["uri"], tmp_path, "audio")
        first_video, first_audio = float(video[0]["pts_time"]), float(audio[0]["pts_time"])
        if index == 0:
            assert abs(first_video - first_audio) <= frame, "audio and video start together"
        else:
            last_video, last_audio, audio_duration = previous
            assert abs(first_video - (last_video + frame)) < 0.002, f"no video gap before {segment['uri']}"
            assert abs(first_audio - (last_audio + audio_duration)) < 0.002, f"no audio gap before {segment['uri']}"
        assert abs(first_video - first_audio) < 0.025, "audio runs beside the video in every segment"
        previous = (float(video[-1]["pts_time"]), float(audio[-1]["pts_time"]), 1024 / 48000)


def test_multivariant_names_real_codecs_and_measured_bandwidth(broadcast, tmp_path):
    playlist, text = broadcast.multivariants[-1]
    (variant,) = check_multivariant(text)
    assert variant["URI"] == "media.m3u8"
    assert variant["RESOLUTION"] == "{}x{}".format(*broadcast.size)
    assert float(variant["FRAME-RATE"]) == broadcast.fps
    video = broadcast.probe(broadcast.first, tmp_path)["streams"]
    h264 = next(s for s in video if s["codec_type"] == "video")
    level = "{:02x}".format(h264["level"])
    assert variant["CODECS"] == f'"avc1.6400{level},mp4a.40.2"'
    rates = [len(broadcast.segments[s["uri"]]) * 8 / s["duration"] for s in playlist.segments]
    average = sum(len(broadcast.segments[s["uri"]]) * 8 for s in playlist.segments) / playlist.duration
    assert abs(int(variant["AVERAGE-BANDWIDTH"]) - average) <= 0.10 * average
    assert abs(int(variant["BANDWIDTH"]) - max(rates)) <= 0.25 * max(rates)


def test_every_segment_is_a_join_point_for_its_container(broadcast):
    """TS: PAT and PMT at the head of each segment. fMP4: an init segment of ftyp + moov, and
    segments made of whole moof + mdat fragments."""
    for uri, data in broadcast.segments.items():
        if broadcast.container == "ts":
            assert len(data) % 188 == 0 and data[0] == 0x47
            pids = [((data[i + 1] & 0x1F) << 8) | data[i + 2] for i in range(0, 188 * 4, 188)]
            assert 0 in pids and 4096 in pids, f"{uri} starts with PAT and PMT: {pids}"
        else:
            assert boxes(data)[0] == "moof" and set(boxes(data)) == {"moof", "mdat"}, uri
    if broadcast.container == "fmp4":
        assert boxes(broadcast.init) == ["ftyp", "moov"]


def boxes(data):
    """The top-level ISO BMFF box types, checking that their sizes add up."""
    types, offset = [], 0
    while offset < len(data):
        size = int.from_bytes(data[offset:offset + 4], "big")
        assert size >= 8, "a whole box"
        types.append(data[offset + 4:offset + 8].decode())
        offset += size
    assert offset == len(data), "boxes fill the segment exactly"
    return types


def test_mirror_holds_the_same_files_as_the_server(broadcast):
    for segment in broadcast.final.segments:
        data = (broadcast.mirror / segment["uri"]).read_bytes()
        assert data == broadcast.segments[segment["uri"]]
    leftovers = [p.name for p in broadcast.mirror.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def ext(broadcast):
    return "m4s" if broadcast.container == "fmp4" else "ts"


def test_sps_and_pps_travel_in_band_before_every_idr(broadcast):
    for uri, data in broadcast.segments.items():
        if broadcast.container == "ts":
            units = annexb_nal_types(subprocess.run(
                ["ffmpeg", "-v", "error", "-i", "-", "-map", "0:v", "-c", "copy", "-f", "h264", "-"],
                input=data, capture_output=True, check=True).stdout)
        else:
            units = mdat_nal_types(data)
        first_slice = next(i for i, t in enumerate(units) if t in (1, 5))
        assert units[first_slice] == 5, f"{uri}: the first slice is an IDR"
        assert {7, 8} <= set(units[:first_slice]), f"{uri}: SPS and PPS before it: {units}"


def annexb_nal_types(stream, limit=8):
    types, index = [], 0
    while index < len(stream) - 3 and len(types) < limit:
        if stream[index:index + 3] == b"\0\0\1":
            types.append(stream[index + 3] & 0x1F)
            index += 3
        else:
            index += 1
    return types


def mdat_nal_types(segment, limit=16):
    """NAL unit types of the first mdat up to its first slice (the video run comes first in a fragment)."""
    index = segment.find(b"mdat") + 4
    types = []
    while len(types) < limit and not set(types) & {1, 5}:
        size = int.from_bytes(segment[index:index + 4], "big")
        types.append(segment[index + 4] & 0x1F)
        index += 4 + size
    return types
