"""An independent checker of the MUSTs in shared/HLS-RULES.md, for playlists seen while live."""

import math
import re
from datetime import datetime

PDT = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")


class MediaPlaylist:
    def __init__(self, text):
        assert text.endswith("\n"), "a playlist is served whole (ends with a newline)"
        self.lines = text.splitlines()
        assert self.lines[0] == "#EXTM3U"
        self.tags = {}
        self.segments = []
        # EXT-X-DATERANGE attribute lists, in order, with the index of the segment each precedes.
        self.dateranges = []
        pending = {}
        for line in self.lines[1:]:
            if line.startswith("#EXT-X-DATERANGE:"):
                self.dateranges.append({**{name: value.strip('"') for name, value in
                                           parse_attributes(line.split(":", 1)[1]).items()},
                                        "before": len(self.segments)})
            elif line.startswith("#EXTINF:"):
                pending["duration"] = float(line[len("#EXTINF:"):].split(",")[0])
            elif line.startswith("#EXT-X-PROGRAM-DATE-TIME:"):
                pending["pdt"] = line.split(":", 1)[1]
            elif line == "#EXT-X-DISCONTINUITY":
                pending["discontinuity"] = True
            elif line == "#EXT-X-GAP":
                pending["gap"] = True
            elif line.startswith("#EXT-X-BYTERANGE:"):
                length, _, offset = line.split(":", 1)[1].partition("@")
                pending["byterange"] = (int(length), int(offset))
            elif line.startswith("#"):
                name, _, value = line[1:].partition(":")
                self.tags[name] = value
            elif line:
                self.segments.append({"uri": line, **pending})
                pending = {}
        assert not pending, "every tag that describes a segment is followed by its URI"

    def int_tag(self, name):
        return int(self.tags[name])

    @property
    def target(self):
        return self.int_tag("EXT-X-TARGETDURATION")

    @property
    def sequence(self):
        return self.int_tag("EXT-X-MEDIA-SEQUENCE")

    @property
    def ended(self):
        return "EXT-X-ENDLIST" in self.tags

    @property
    def gaps(self):
        return [segment["uri"] for segment in self.segments if segment.get("gap")]

    @property
    def duration(self):
        return sum(segment["duration"] for segment in self.segments)


def check_media_playlist(playlist, container, window):
    """The MUSTs one playlist must meet on its own."""
    tags = playlist.tags
    assert playlist.target >= 1
    for segment in playlist.segments:
        assert round(segment["duration"]) <= playlist.target, segment
        assert segment["duration"] <= playlist.target + 0.5, segment
        assert PDT.match(segment.get("pdt", "")), f"PROGRAM-DATE-TIME with ms and Z on {segment['uri']}"
    assert "EXT-X-PLAYLIST-TYPE" not in tags, "a live playlist has no PLAYLIST-TYPE"
    assert "EXT-X-DISCONTINUITY-SEQUENCE" in tags
    assert "EXT-X-INDEPENDENT-SEGMENTS" in tags
    if container == "fmp4":
        assert tags.get("EXT-X-MAP", "").startswith('URI="'), "fMP4 needs EXT-X-MAP"
        needed = 8 if playlist.gaps else 6
        assert playlist.int_tag("EXT-X-VERSION") == needed, "EXT-X-MAP needs version 6 (EXT-X-GAP 8), and nothing more"
    else:
        assert "EXT-X-MAP" not in tags
        assert playlist.int_tag("EXT-X-VERSION") == 3, "fractional EXTINF needs version 3, and nothing more"
    if not playlist.ended and len(playlist.segments) >= window:
        assert playlist.duration >= 3 * playlist.target, "a full live playlist holds 3 target durations"
        assert len(playlist.segments) >= 6 or window < 6
    for earlier, later in zip(playlist.segments, playlist.segments[1:]):
        if later.get("discontinuity"):
            continue  # a restart: the wall clock went on while nothing was published
        gap = to_ms(later["pdt"]) - to_ms(earlier["pdt"])
        assert abs(gap - earlier["duration"] * 1000) <= 1, "PROGRAM-DATE-TIME follows the durations"
    check_dateranges(playlist)


def check_dateranges(playlist):
    """RFC 8216bis 4.4.5.1: a date range has an ID, unique in the playlist, and a START-DATE; a playlist
    with date ranges has PROGRAM-DATE-TIME. onair's markers are listed while the segment they start
    in is, before that segment (or after the last one while theirs is being built)."""
    ids = [daterange.get("ID") for daterange in playlist.dateranges]
    assert all(ids) and len(set(ids)) == len(ids), ids
    for daterange in playlist.dateranges:
        assert PDT.match(daterange.get("START-DATE", "")), daterange
        if daterange.get("CLASS") != "org.onair.chapter":
            continue
        assert daterange.get("X-TITLE"), daterange
        start = to_ms(daterange["START-DATE"])
        index = daterange["before"]
        if index < len(playlist.segments):
            segment = playlist.segments[index]
            assert to_ms(segment["pdt"]) - 1 <= start < to_ms(segment["pdt"]) + segment["duration"] * 1000 + 1 \
                or (index == 0 and start < to_ms(segment["pdt"])), (daterange, segment)
        elif playlist.segments:
            last = playlist.segments[-1]
            assert start >= to_ms(last["pdt"]) + last["duration"] * 1000 - 1, (daterange, last)


def check_recording(playlist, container):
    """The MUSTs of a recording's playlist (RFC 8216 4.3.3.5, 6.2.1): EVENT while it grows, VOD with
    EXT-X-ENDLIST once whole, every segment listed from the first (MEDIA-SEQUENCE 0)."""
    tags = playlist.tags
    kind = tags.get("EXT-X-PLAYLIST-TYPE")
    assert kind == ("VOD" if playlist.ended else "EVENT"), (kind, playlist.ended)
    assert playlist.int_tag("EXT-X-MEDIA-SEQUENCE") == 0 and playlist.int_tag("EXT-X-DISCONTINUITY-SEQUENCE") == 0
    assert "EXT-X-INDEPENDENT-SEGMENTS" in tags
    for segment in playlist.segments:
        assert round(segment["duration"]) <= playlist.target, segment
        assert PDT.match(segment.get("pdt", "")), f"PROGRAM-DATE-TIME with ms and Z on {segment['uri']}"
    if container == "fmp4":
        assert tags.get("EXT-X-MAP", "").startswith('URI="') and playlist.int_tag("EXT-X-VERSION") == 6
    for earlier, later in zip(playlist.segments, playlist.segments[1:]):
        if later.get("discontinuity"):
            continue
        gap = to_ms(later["pdt"]) - to_ms(earlier["pdt"])
        assert abs(gap - earlier["duration"] * 1000) <= 1, "PROGRAM-DATE-TIME follows the durations"
    check_dateranges(playlist)


def check_history(history):
    """The MUSTs across the successive playlists a player sees: (time seen, MediaPlaylist) pairs."""
    targets = {playlist.target for _, playlist in history}
    assert len(targets) == 1, f"TARGETDURATION never changes: {targets}"
    sequence_of = {}
    for _, playlist in history:
        for offset, segment in enumerate(playlist.segments):
            number = playlist.sequence + offset
            assert sequence_of.setdefault(segment["uri"], number) == number, "a segment keeps its number"
    sequences = [playlist.sequence for _, playlist in history]
    assert sequences == sorted(sequences), "MEDIA-SEQUENCE never decreases"
    ended = [playlist.ended for _, playlist in history]
    assert ended == sorted(ended), "nothing follows ENDLIST"
    first_seen = {}
    for seen, playlist in history:
        for segment in playlist.segments:
            first_seen.setdefault(segment["uri"], seen)
    times = sorted(first_seen.values())
    target = targets.pop()
    for earlier, later in zip(times, times[1:]):
        assert later - earlier <= 1.5 * target + 0.5, "a new segment within 1.5 target durations"


def to_ms(text):
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").timestamp() * 1000


def parse_attributes(text):
    return dict(re.findall(r'([A-Z-]+)=("[^"]*"|[^,]*)', text))


def check_multivariant(text):
    """The variants of a multivariant playlist, each with its URI; an audio group a variant names
    must exist (RFC 8216 4.4.6.2), with the attributes Apple's authoring rules ask of one."""
    lines = text.splitlines()
    assert lines[0] == "#EXTM3U"
    variants = []
    groups = {}
    for index, line in enumerate(lines):
        if line.startswith("#EXT-X-STREAM-INF:"):
            attributes = parse_attributes(line.split(":", 1)[1])
            for name in ("BANDWIDTH", "AVERAGE-BANDWIDTH", "CODECS", "RESOLUTION", "FRAME-RATE"):
                assert name in attributes, f"{name} on EXT-X-STREAM-INF"
            attributes["URI"] = lines[index + 1]
            variants.append(attributes)
        elif line.startswith("#EXT-X-MEDIA:"):
            attributes = parse_attributes(line.split(":", 1)[1])
            for name in ("TYPE", "GROUP-ID", "NAME"):
                assert name in attributes, f"{name} on EXT-X-MEDIA"
            if attributes["TYPE"] == "AUDIO":
                assert "CHANNELS" in attributes, "CHANNELS on an audio EXT-X-MEDIA"
            assert not any(l.startswith("#EXT-X-STREAM-INF:") for l in lines[:index]), "EXT-X-MEDIA before the variants"
            groups.setdefault(attributes["GROUP-ID"], []).append(attributes)
    assert variants
    for variant in variants:
        if "AUDIO" in variant:
            group = groups.get(variant["AUDIO"])
            assert group and all(m["TYPE"] == "AUDIO" for m in group), f"audio group {variant['AUDIO']} exists"
            # A variant's CODECS name every format its renditions hold, the group's sound included.
            assert any(c.startswith("mp4a") for c in variant["CODECS"].strip('"').split(",")), variant
    return variants


def iframe_streams(text):
    """The EXT-X-I-FRAME-STREAM-INF of a multivariant playlist, with what RFC 8216 4.4.6.3 and
    Apple's authoring rules (an I-frame playlist for every video variant) ask of each."""
    streams = []
    for line in text.splitlines():
        if line.startswith("#EXT-X-I-FRAME-STREAM-INF:"):
            attributes = parse_attributes(line.split(":", 1)[1])
            for name in ("BANDWIDTH", "CODECS", "RESOLUTION", "URI"):
                assert name in attributes, f"{name} on EXT-X-I-FRAME-STREAM-INF"
            assert int(attributes["BANDWIDTH"]) > 0
            # Keyframes carry no sound: the codecs are the video's alone.
            assert not any(c.startswith("mp4a") for c in attributes["CODECS"].strip('"').split(",")), attributes
            for name in ("FRAME-RATE", "AUDIO", "SUBTITLES", "CLOSED-CAPTIONS"):
                assert name not in attributes, f"{name} is not allowed on EXT-X-I-FRAME-STREAM-INF"
            attributes["URI"] = attributes["URI"].strip('"')
            streams.append(attributes)
    return streams


def check_iframe_playlist(text):
    """The MUSTs of an I-frame playlist (RFC 8216 4.3.3.6, 4.3.2.2, 7): EXT-X-I-FRAMES-ONLY, version 4
    or more (5 with EXT-X-MAP), an EXT-X-MAP for fMP4, each entry a byte range of its segment."""
    playlist = MediaPlaylist(text)
    assert "EXT-X-I-FRAMES-ONLY" in playlist.tags
    version = playlist.int_tag("EXT-X-VERSION")
    assert version >= 4 and ("EXT-X-MAP" not in playlist.tags or version >= 5), version
    assert "EXT-X-MAP" in playlist.tags, "an I-frame playlist of fMP4 segments names their init segment"
    assert not any(tag.startswith("EXT-X-PART") or tag == "EXT-X-PRELOAD-HINT" for tag in playlist.tags)
    assert playlist.segments
    for segment in playlist.segments:
        assert segment.get("gap") or "byterange" in segment, segment
        assert 0 < segment["duration"] <= playlist.target + 0.5, segment
    return playlist


def audio_renditions(text):
    """The EXT-X-MEDIA audio renditions of a multivariant playlist, their attributes unquoted."""
    return [{k: v.strip('"') for k, v in parse_attributes(line.split(":", 1)[1]).items()}
            for line in text.splitlines()
            if line.startswith("#EXT-X-MEDIA:") and "TYPE=AUDIO" in line]


def parse_parts(text):
    """Low-Latency HLS parts in playlist order: (segment sequence, index, attributes), and the preload hint."""
    parts, hint = [], None
    lines = text.splitlines()
    sequence = next(int(line.split(":")[1]) for line in lines if line.startswith("#EXT-X-MEDIA-SEQUENCE:"))
    index = 0
    for line in lines:
        if line.startswith("#EXT-X-PART:"):
            parts.append((sequence, index, parse_attributes(line.split(":", 1)[1])))
            index += 1
        elif line.startswith("#EXT-X-PRELOAD-HINT:"):
            hint = parse_attributes(line.split(":", 1)[1])
        elif line.startswith("#EXT-X-SKIP:"):
            sequence += int(parse_attributes(line.split(":", 1)[1])["SKIPPED-SEGMENTS"])
        elif line and not line.startswith("#"):
            sequence += 1
            index = 0
    return parts, hint


def next_part(text):
    """(_HLS_msn, _HLS_part) of the part after the newest listed one."""
    playlist = MediaPlaylist(text)
    parts, _ = parse_parts(text)
    open_sequence = playlist.sequence + len(playlist.segments)
    return open_sequence, sum(1 for sequence, _, _ in parts if sequence == open_sequence)


def check_low_latency(text, sound_only=False):
    """The Low-Latency HLS MUSTs of one playlist. A video playlist's parts are independent where a
    segment starts (its IDR); a sound-only playlist's every part is (every AAC frame is)."""
    playlist = MediaPlaylist(text)
    tags = playlist.tags
    part_target = float(parse_attributes(tags["EXT-X-PART-INF"])["PART-TARGET"])
    control = parse_attributes(tags["EXT-X-SERVER-CONTROL"])
    assert control["CAN-BLOCK-RELOAD"] == "YES"
    assert float(control["PART-HOLD-BACK"]) >= 3 * part_target - 0.001
    assert float(control["HOLD-BACK"]) >= 3 * playlist.target
    assert float(control["CAN-SKIP-UNTIL"]) >= 6 * playlist.target
    parts, hint = parse_parts(text)
    for number, (sequence, index, part) in enumerate(parts):
        duration = float(part["DURATION"])
        assert duration <= part_target + 0.001, part
        last_of_segment = number + 1 == len(parts) or parts[number + 1][0] != sequence
        complete = sequence < playlist.sequence + len(playlist.segments)
        if not (last_of_segment and complete):
            assert duration >= 0.85 * part_target - 0.001, f"only a segment's last part may be short: {part}"
        assert (part.get("INDEPENDENT") == "YES") == (index == 0 or sound_only), "parts that start with an IDR say so"
    # Part tags stay only near the live edge: within 3 target durations (plus the segment holding the boundary).
    tagged = {sequence for sequence, _, _ in parts if sequence < playlist.sequence + len(playlist.segments)}
    recent = 0.0
    for offset, segment in reversed(list(enumerate(playlist.segments))):
        if playlist.sequence + offset in tagged:
            assert recent < 3 * playlist.target + 0.001, "part tags of a segment far from the edge"
        recent += segment["duration"]
    if not playlist.ended:
        assert hint and hint["TYPE"] == "PART", "the next part is hinted"
    return parts, hint
