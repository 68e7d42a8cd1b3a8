"""Twin origins: two `onair serve` fed by one publisher serve the same stream line for line, an origin
killed and restarted empty serves what its twin serves again by itself, and the edges shipped in
deploy/ (nginx, Varnish) carry their viewers across an origin's death without a gap or a repeat."""

import http.client
import json
import re
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from edges import TOKEN, NginxEdge, Origin, VarnishEdge, Viewers
from harness import Publisher, fetch, free_port, wait_until
from hls_rules import MediaPlaylist, check_low_latency, next_part, parse_parts

# 2 s segments of ten 0.2 s parts, six listed: two target durations are 4 s.
LIVE = ("--low-latency", "--part-duration", "0.2", "--size", "640x360", "--no-serve")
TARGET = 2


def playlist_url(origin, msn=None, part=None):
    query = "" if msn is None else f"?_HLS_msn={msn}&_HLS_part={part}"
    return f"{origin.base}/live/demo/media.m3u8{query}"


def at_once(origins, msn, part):
    """The same blocking reload asked of every origin at the same moment: their answers' texts (None
    for one that does not answer 200)."""
    return all_at_once([playlist_url(origin, msn, part) for origin in origins])


def all_at_once(urls):
    """The answers' texts to requests sent together (None for one that is not 200)."""
    answers = [None] * len(urls)

    def ask(index):
        response = fetch(urls[index])
        answers[index] = response.text if response is not None and response.status == 200 else None
    threads = [threading.Thread(target=ask, args=(index,)) for index in range(len(urls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    return answers


def segment_number(uri):
    return int(re.match(r"seg(\d+)\.", uri).group(1))


def trimmed_to(text, first):
    """`text` as it would be with its window starting at segment `first`: the segments before it
    and their tags left out, MEDIA-SEQUENCE moved on. What a twin whose window is still filling
    (restarted, or joined late) must serve, line for line."""
    lines = text.splitlines()
    sequence = MediaPlaylist(text).sequence
    header_end = next(i for i, line in enumerate(lines) if line == "#EXT-X-DISCONTINUITY"
                      or line.startswith(("#EXT-X-PROGRAM-DATE-TIME", "#EXT-X-PART:", "#EXTINF", "#EXT-X-GAP")))
    kept, block, number = lines[:header_end], [], sequence
    for line in lines[header_end:]:
        block.append(line)
        if line and not line.startswith("#"):
            if number >= first:
                kept += block
            block, number = [], number + 1
    kept += block
    return "\n".join(line if not line.startswith("#EXT-X-MEDIA-SEQUENCE:") else f"#EXT-X-MEDIA-SEQUENCE:{first}"
                     for line in kept) + "\n"


def serving(origin, count=2):
    response = fetch(playlist_url(origin))
    return response is not None and response.status == 200 and response.text.count("#EXTINF") >= count


@pytest.fixture(scope="module")
def twins():
    """Two origins and one Low-Latency publisher pushing to both. A test that kills the primary
    starts it again (empty) and waits for it to serve, so the next finds both up."""
    yield from fed_twins(Origin(), Origin())


def pathway_twins():
    """Two origins that name each other to players (`--pathway a=… --pathway b=…`)."""
    ports = free_port(), free_port()
    pathways = ("--pathway", f"a=http://127.0.0.1:{ports[0]}", "--pathway", f"b=http://127.0.0.1:{ports[1]}")
    return Origin(*pathways, port=ports[0]), Origin(*pathways, port=ports[1])


def fed_twins(primary, twin):
    """One Low-Latency publisher pushing to both origins, once each serves two segments; all stopped after."""
    publisher = Publisher(*LIVE, "--push", primary.ingest(), "--push", twin.ingest(),
                          "--push-header", f"Authorization: Bearer {TOKEN}")
    for origin in (primary, twin):
        wait_until(lambda: serving(origin), 30, what="two segments at each origin")
    yield primary, twin, publisher
    publisher.kill()
    primary.stop()
    twin.stop()


def kill(origin):
    origin.process.send_signal(signal.SIGKILL)
    origin.process.wait()


def back(origin):
    """Starts a killed origin again, empty, and waits for it to serve the channel."""
    if origin.process.poll() is not None:
        origin.start()
    wait_until(lambda: serving(origin, 1), 20, what="the origin serving again")


# These two run first, before the module's fixtures start their publishers and origins: beside
# those (two Low-Latency publishers and four origins), a ladder's player on this 2-core machine
# stalled near the live edge and never played steadily.
def test_a_publishers_own_server_and_an_origin_serve_the_same_text():
    # A viewer may move between the publisher's built-in server and an origin it pushes to.
    origin = Origin()
    publisher = Publisher(*[a for a in LIVE if a != "--no-serve"], "--push", origin.ingest(),
                          "--push-header", f"Authorization: Bearer {TOKEN}")
    try:
        wait_until(lambda: serving(origin), 30, what="two segments at the origin")

        class Own:
            base = publisher.base
        text = fetch(playlist_url(origin)).text
        for _ in range(10):
            msn, part = next_part(text)
            own, theirs = at_once([Own, origin], msn, part)
            first = MediaPlaylist(theirs).segments[0]["uri"]
            # The origin joined at the publisher's start, so only a window still filling differs.
            assert own is not None and theirs == trimmed_to(own, max(segment_number(first), MediaPlaylist(own).sequence))
            text = theirs
    finally:
        publisher.kill()
        origin.stop()


def test_twins_serve_a_ladder_alike_rung_by_rung_and_a_player_moves_with_its_sound(page):
    from browser import console_errors

    primary, twin = pathway_twins()
    # Captioned by the example captioner: a caption each beep of the test sound, every second.
    example = Path(__file__).resolve().parents[2] / "scripts/captions-example.py"
    publisher = Publisher("--renditions", "360p,180p", "--low-latency", "--part-duration", "0.2", "--no-serve",
                          "--audio", "test", "--captions-from", str(example),
                          "--push", primary.ingest("ladder"), "--push", twin.ingest("ladder"),
                          "--push-header", f"Authorization: Bearer {TOKEN}", channel="ladder")
    try:
        for origin in (primary, twin):
            wait_until(lambda: (r := fetch(f"{origin.base}/live/ladder/180p/media.m3u8")) is not None
                       and r.status == 200 and r.text.count("#EXTINF") >= 2, 40, what="two segments of each rung")
        # The same variants on both (their measured rates follow the publisher's newest push to each).
        def variants(origin):
            text = fetch(f"{origin.base}/live/ladder/index.m3u8").text
            return [re.sub(r"BANDWIDTH=\d+", "", line) for line in text.splitlines()]
        assert variants(primary) == variants(twin)
        rungs = ("360p", "180p", "audio")
        texts = {rung: fetch(f"{primary.base}/live/ladder/{rung}/media.m3u8").text for rung in rungs}
        for _ in range(10):
            # Each rung's next part (the sound's parts are its own), asked of both origins together.
            urls = []
            for rung in rungs:
                msn, part = next_part(texts[rung])
                urls += [f"{o.base}/live/ladder/{rung}/media.m3u8?_HLS_msn={msn}&_HLS_part={part}"
                         for o in (primary, twin)]
            answers = all_at_once(urls)
            for index, rung in enumerate(rungs):
                first, second = answers[2 * index], answers[2 * index + 1]
                # Each rung's own lines are the same on both; its reports of the other rungs may
                # be a part apart, as each origin heard the rungs' pushes.
                own = [line for line in first.splitlines() if not line.startswith("#EXT-X-RENDITION-REPORT")]
                theirs = [line for line in second.splitlines() if not line.startswith("#EXT-X-RENDITION-REPORT")]
                assert own == theirs, (rung, first, second)
                texts[rung] = first
        # Every rung numbered from the same start: the same numbers in each, the captions' too.
        numbers = {rung: MediaPlaylist(fetch(f"{twin.base}/live/ladder/{rung}/media.m3u8").text).sequence
                   for rung in ("360p", "180p", "audio", "captions")}
        assert len(set(numbers.values())) == 1, numbers
        # The captions alike on both, segment by segment, a caption in each.
        def captions(origin, last):
            text = fetch(f"{origin.base}/live/ladder/captions/media.m3u8?_HLS_msn={last}").text
            cut = [line for line in text.splitlines() if not line.startswith("#EXT-X-RENDITION-REPORT")]
            return cut[:cut.index(f"seg{last}.vtt") + 1] if f"seg{last}.vtt" in cut else None
        last = MediaPlaylist(fetch(f"{primary.base}/live/ladder/captions/media.m3u8").text).segments[-1]["uri"]
        last = int(re.search(r"(\d+)", last).group(1)) + 1
        listed = [wait_until(lambda: captions(o, last), 10, interval=0.2, what="the next captions") for o in (primary, twin)]
        assert listed[0][-8:] == listed[1][-8:], listed
        files = [fetch(f"{o.base}/live/ladder/captions/seg{last}.vtt").text for o in (primary, twin)]
        assert files[0] == files[1] and "Beep " in files[0], files
        for origin in (primary, twin):
            index = fetch(f"{origin.base}/live/ladder/index.m3u8").text
            # Each pathway's captions in a group of its own, at its own origin.
            for pathway, base in (("a", primary.base), ("b", twin.base)):
                assert f'GROUP-ID="subs-{pathway}",NAME="English",LANGUAGE="en",DEFAULT=YES,AUTOSELECT=YES,FORCED=NO,' \
                       f'URI="{base}/live/ladder/captions/media.m3u8"' in index, index
                assert index.count(f'SUBTITLES="subs-{pathway}"') == 2, index
        # Offered on both pathways, each with its own sound: the watch page's player moves to the
        # twin with every rung and the sound, without starting over.
        samples, killed = play_across_a_death(page, f"{primary.base}/watch/ladder?engine=mse", primary,
                                              top_quality=True)
        sound = page.execute_script("return window.onair.sound && window.onair.sound.uri")
        pathway = page.execute_script("return window.onair.pathway")
        # The captions move too, and go on showing: the twin's.
        assert page.execute_script("return window.onair.captions.uri").startswith(
            f"{twin.base}/live/ladder/captions/media.m3u8")
        showing = """return Array.from(window.onair.video.textTracks).filter((t) => t.mode === "showing")
            .flatMap((t) => Array.from(t.activeCues || []).map((c) => c.text))"""
        try:
            wait_until(lambda: any(text.startswith("Beep ") for text in page.execute_script(showing)), 10,
                       interval=0.2, what="a caption shown from the twin")
        except AssertionError as error:
            state = page.execute_script("""
                const p = window.onair, v = p.video, t = p.captions.track;
                const cues = Array.from(t.cues || []).map((c) => [c.startTime.toFixed(2), c.endTime.toFixed(2), c.text]);
                return {time: v.currentTime.toFixed(2), paused: v.paused, readyState: v.readyState, mode: t.mode,
                        offset: p.buffer && p.buffer.timestampOffset, cues: cues.length, last: cues.slice(-4),
                        near: cues.filter((c) => Math.abs(c[0] - v.currentTime) < 3), fetched: p.captions.fetched.size};""")
            raise AssertionError(f"{error}: {state}") from None
        page.get("about:blank")
        refused = console_errors(page)
        assert (pathway, sound.split("?")[0]) == ("b", f"{twin.base}/live/ladder/audio/media.m3u8")
        assert_played_on(samples, killed, "a ladder without an edge")
        assert all(error.startswith(primary.base + "/") for error in refused), refused
    finally:
        publisher.kill()
        primary.stop()
        twin.stop()


def test_twins_fed_by_one_publisher_serve_the_same_text_for_every_blocking_reload(twins):
    primary, twin, _ = twins
    text = fetch(playlist_url(primary)).text
    compared = 0
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        msn, part = next_part(text)
        first, second = at_once([primary, twin], msn, part)
        assert first is not None and first == second, (msn, part, first, second)
        check_low_latency(first)
        compared += 1
        text = first
    # Every part in turn for 5 s: about five a second, across segment boundaries.
    assert compared >= 15, compared
    listed = MediaPlaylist(text)
    assert listed.sequence > 1_000_000_000 / TARGET, "numbered on the epoch, not from 0"


def test_an_origin_killed_and_restarted_empty_serves_what_its_twin_serves_within_two_target_durations(twins):
    primary, twin, publisher = twins
    failures = publisher.output().count(f"[push_failed] pushing to {primary.ingest()} failed")
    recoveries = publisher.output().count(f"[push_recovered] {primary.ingest()} is up to date again")
    kill(primary)
    # Down until the publisher has noticed (a push found no one listening), as when a restart takes
    # longer than a part: the restarted origin's first news is then from mid-segment.
    wait_until(lambda: publisher.output().count(f"[push_failed] pushing to {primary.ingest()} failed")
               == failures + 1, 10, interval=0.01, what="the publisher to notice the primary is down")
    primary.start()
    restarted = time.monotonic()

    def level():
        msn, part = next_part(fetch(playlist_url(twin)).text)
        mine, theirs = at_once([primary, twin], msn, part)
        if mine is None or theirs is None:
            return None
        first = MediaPlaylist(mine).segments
        return first and mine == trimmed_to(theirs, segment_number(first[0]["uri"])) and mine
    # It asks nothing of its twin: the publisher's next push is refused (424), and what it sends
    # again brings the origin level, under the same names.
    text = wait_until(level, 2 * TARGET, interval=0.01, what="the restarted origin to serve what its twin serves")
    print(f"level {time.monotonic() - restarted:.2f} s after the restart: {MediaPlaylist(text).sequence}")
    # The publisher said once which destination was down (not again when the restarted origin
    # asked for what it lost), and that it is up to date again; the twin never missed a push.
    said = [line for line in publisher.output().splitlines() if "[push_" in line]
    assert sum(f"[push_failed] pushing to {primary.ingest()} failed" in line for line in said) == failures + 1, said
    wait_until(lambda: publisher.output().count(f"[push_recovered] {primary.ingest()} is up to date again")
               == recoveries + 1, 10, what="the primary up to date again")
    assert f"pushing to {twin.ingest()} failed" not in publisher.output()
    # Once its window has filled, the whole text is the same.
    def whole():
        msn, part = next_part(fetch(playlist_url(twin)).text)
        mine, theirs = at_once([primary, twin], msn, part)
        return mine is not None and mine == theirs
    wait_until(whole, 6 * TARGET + 10, interval=0.1, what="the same whole playlist once the window filled")


class Follower:
    """One Low-Latency player on an edge, on a thread of its own: asks for each part in turn (the
    blocking reload that lists it, then the part), and records when each was answered."""

    def __init__(self, port):
        self.port = port
        self.parts = []  # (monotonic time it came, part URI, its bytes)
        self.errors = []
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self.follow, daemon=True)
        self.thread.start()

    def follow(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        try:
            connection.request("GET", "/live/demo/media.m3u8")
            response = connection.getresponse()
            text = response.read().decode()
            while not self.stopping.is_set():
                msn, part = next_part(text)
                connection.request("GET", f"/live/demo/media.m3u8?_HLS_msn={msn}&_HLS_part={part}")
                response = connection.getresponse()
                body = response.read()
                if response.status != 200:
                    self.errors.append((msn, part, response.status))
                    return
                text = body.decode()
                named = [attributes["URI"].strip('"') for sequence, index, attributes in parse_parts(text)[0]
                         if (sequence, index) == (msn, part)]
                if not named:
                    continue  # the segment closed with fewer parts: its successor is next
                connection.request("GET", f"/live/demo/{named[0]}")
                response = connection.getresponse()
                media = response.read()
                if response.status != 200:
                    self.errors.append((named[0], response.status))
                    return
                self.parts.append((time.monotonic(), named[0], media))
        except (OSError, http.client.HTTPException) as error:
            self.errors.append(("connection", repr(error)))
        finally:
            connection.close()

    def stop(self):
        self.stopping.set()
        self.thread.join(timeout=20)


def part_key(uri):
    sequence, index = re.match(r"part(\d+)\.(\d+)\.", uri).groups()
    return int(sequence), int(index)


@pytest.mark.parametrize("kind", ["nginx", "varnish"])
def test_an_edge_carries_its_viewers_across_the_death_of_its_origin(twins, kind, tmp_path):
    primary, twin, _ = twins
    edge = (NginxEdge if kind == "nginx" else VarnishEdge)(tmp_path / kind, primary.port, twin.port)
    follower = Follower(edge.port)
    try:
        wait_until(lambda: len(follower.parts) >= 10 or follower.errors, 20, what="ten parts through the edge")
        killed = time.monotonic()
        kill(primary)
        wait_until(lambda: len([p for p in follower.parts if p[0] > killed]) >= 15 or follower.errors, 20,
                   what="fifteen parts after the primary died")
    finally:
        follower.stop()
        edge.stop()
        back(primary)
    assert follower.errors == []
    # Every part in turn, none twice, none skipped: the same names on both origins.
    keys = [part_key(uri) for _, uri, _ in follower.parts]
    for (sequence, index), (next_sequence, next_index) in zip(keys, keys[1:]):
        assert (next_sequence, next_index) in ((sequence, index + 1), (sequence + 1, 0)), keys
    # Parts come every 0.2 s; the longest wait across the death is within the player's hold-back
    # (three parts), so playback does not stall (a loaded machine's scheduling aside).
    times = [seen for seen, _, _ in follower.parts]
    gaps = [later - earlier for earlier, later in zip(times, times[1:])]
    across = max(later - earlier for earlier, later in zip(times, times[1:]) if later > killed)
    print(f"{kind}: longest wait {max(gaps):.3f} s, across the death {across:.3f} s")
    assert across < 0.6, gaps


@pytest.mark.parametrize("kind", ["nginx", "varnish"])
def test_a_hundred_viewers_on_an_edge_cost_one_request_per_object_over_both_origins(twins, kind, tmp_path):
    primary, twin, _ = twins
    edge = (NginxEdge if kind == "nginx" else VarnishEdge)(tmp_path / kind, primary.port, twin.port)
    try:
        before = primary.requests() + twin.requests()
        viewers = Viewers(edge.port, 100)
        # Every viewer follows the parts for about a segment: 100 viewers x 2 requests x 10 parts.
        wait_until(lambda: viewers.requests >= 100 * 2 * 10 or viewers.errors, 40, interval=0.2,
                   what="the viewers' load")
        viewers.stop()
        requests = primary.requests() + twin.requests() - before
    finally:
        edge.stop()
    assert viewers.errors == []
    print(f"{kind}: {viewers.requests} viewer requests for {len(viewers.uris)} objects, {requests:.0f} at the origins")
    assert requests <= 1.1 * len(viewers.uris), (requests, len(viewers.uris), viewers.requests)


def play_across_a_death(page, url, victim, restarts=0, top_quality=False):
    """Opens a watch page, lets it play, and samples the time code on screen every 0.1 s: once it has
    moved to its hold-back (a player starting leaps to it once) and played steadily for 1.5 s, not
    catching up on a stall, kills `victim` (an origin) and samples 8 s more: the samples (when, time
    code in seconds) and when it died. The player plays on, having started over `restarts` times. `top_quality`: a
    ladder's largest rung is chosen from the quality menu (the time code is too small to read in the
    smallest)."""
    from browser import assert_played_through, player_status, time_code_reader

    page.get(url)
    if top_quality:
        wait_until(lambda: page.execute_script("return window.onair.variants.length") > 1, 30, what="the variants")
        page.execute_script("window.onair.setQuality(window.onair.variants.length - 1)")
    wait_until(lambda: (player_status(page)["time"] or 0) > 4, 30, interval=0.1, what="playback")
    # The MSE engine's one move to the hold-back behind the live edge, soon after it starts, is done.
    wait_until(lambda: page.execute_script("return window.onair.engine !== 'mse' || window.onair.positioned"), 10,
               interval=0.1, what="the player's start at its hold-back")
    generation = page.execute_script("return window.onair.generation")
    shown = time_code_reader(page)
    samples = []

    def sample_for(seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            code = shown()
            if code is not None:
                samples.append((time.monotonic(), code))
            time.sleep(0.1)

    def steady():
        recent = [(seen, code) for seen, code in samples if seen > time.monotonic() - 1.5]
        return len(recent) > 5 and samples[0][0] < time.monotonic() - 1.5 and recent[-1][1] - recent[0][1] > 1 and all(
            0 <= (later - earlier) <= (then - now) + 0.3
            for (now, earlier), (then, later) in zip(recent, recent[1:]))

    def at_its_pace():
        return page.execute_script("return window.onair.engine !== 'mse' || window.onair.video.playbackRate === 1")
    # Played steadily at its hold-back: not still catching up on a stall at 1.1 times (a player too
    # far behind leaps to its hold-back, which is not what this measures).
    try:
        wait_until(lambda: sample_for(0.1) or (steady() and at_its_pace()), 60, interval=0, what="steady playback")
    except AssertionError as error:
        start = samples[0][0] if samples else 0
        state = page.execute_script("""
            const p = window.onair, v = p.video, q = v.getVideoPlaybackQuality();
            const ranges = (r) => Array.from({length: r.length}, (_, i) => [r.start(i), r.end(i)].map((t) => t.toFixed(2)));
            return {rate: v.playbackRate, time: v.currentTime.toFixed(2), buffered: ranges(v.buffered),
                    size: v.videoWidth + "x" + v.videoHeight, frames: q.totalVideoFrames, dropped: q.droppedVideoFrames,
                    quality: p.quality(), problem: p.problem, readyState: v.readyState};""")
        raise AssertionError(f"{error}: {state}, the last samples "
                             f"{[(round(seen - start, 2), code) for seen, code in samples[-30:]]}") from None
    killed = time.monotonic()
    kill(victim)
    sample_for(8)
    assert_played_through(page, generation + restarts)
    return samples, killed


# How far behind the clock (s) a player the browser's HLS starts on a twin may play: the channel's
# HOLD-BACK (three target durations), up to one more for where a segment begins, and 1 s of
# capture-to-screen delay (measured 6.6-8.0 s behind in all).
RESTARTED_BEHIND = 4 * TARGET + 1


def assert_played_on(samples, killed, label, restarted=False):
    """From the last sample before the death: the time code never goes back, and never leaps, moving
    on by no more than the time between two samples (about 0.1 s apart) and 0.9 s; it plays on after
    the death, about the 8 s sampled, with at most one short stall. A player `restarted` on the twin
    starts again once, at its usual hold-back behind the live edge: less than 2 s back from where it
    was (media seen again), and on only as far as that hold-back (a player that had fallen behind
    before the death catches up there), its picture then at most RESTARTED_BEHIND behind the clock."""
    last_before = max(index for index, (seen, _) in enumerate(samples) if seen <= killed)
    kept = samples[last_before:]
    # How far the picture moved on between two samples, less the time between them.
    leads = [(later - earlier) - (then - now) for (now, earlier), (then, later) in zip(kept, kept[1:])]
    steps = [later - earlier for (_, earlier), (_, later) in zip(kept, kept[1:])]
    if restarted:
        restart = max(range(len(leads)), key=lambda i: abs(leads[i]))
        # Samples are read on the monotonic clock; the time code is wall time.
        wall = time.time() - time.monotonic()
        behind = [round(seen + wall - code, 2) for seen, code in kept[restart + 1:]]
        print(f"{label}: started again {leads[restart]:+.2f} s from where it was, then "
              f"{min(behind):.2f}-{max(behind):.2f} s behind the clock")
        assert leads[restart] > -2, steps
        assert leads[restart] < 2 or max(behind) < RESTARTED_BEHIND, (steps, behind)
        del steps[restart], leads[restart]
    assert min(steps) >= 0, steps
    assert max(leads) < 0.9, (leads, steps)
    after = [(seen, code) for seen, code in samples if seen > killed]
    assert after[-1][1] - after[0][1] > 6, after
    stalls, still_since = [], None
    for (seen, code), (_, before) in zip(kept[1:], kept):
        if code == before:
            still_since = still_since or seen
        elif still_since:
            stalls.append(seen - still_since)
            still_since = None
    print(f"{label}: stalls {[round(s, 2) for s in stalls]}, steps up to {max(steps):.2f} s, "
          f"ahead of the clock by at most {max(leads):.2f} s")
    assert len([s for s in stalls if s > 0.5]) <= 1 and max(stalls, default=0) < 2, stalls


@pytest.mark.parametrize("kind", ["nginx", "varnish"])
@pytest.mark.parametrize("engine", ["native", "mse"])
def test_the_watch_page_plays_on_through_an_edge_when_the_primary_dies(twins, page, engine, kind, tmp_path):
    primary, twin, _ = twins
    edge = (NginxEdge if kind == "nginx" else VarnishEdge)(tmp_path / kind, primary.port, twin.port)
    try:
        samples, killed = play_across_a_death(page, f"{edge.base}/watch/demo?engine={engine}", primary)
        page.get("about:blank")
    finally:
        edge.stop()
        back(primary)
    assert_played_on(samples, killed, f"{engine} through {kind}")


@pytest.fixture(scope="module")
def steered():
    """Two origins that name each other (`--pathway`), and one Low-Latency publisher pushing to both."""
    yield from fed_twins(*pathway_twins())


def test_twins_named_by_pathway_offer_each_other_to_players(steered):
    primary, twin, _ = steered
    texts = all_at_once([f"{origin.base}/live/demo/index.m3u8" for origin in (primary, twin)])
    assert texts[0] is not None and texts[0] == texts[1], texts
    lines = texts[0].splitlines()
    assert lines[3] == '#EXT-X-CONTENT-STEERING:SERVER-URI="/steering/demo",PATHWAY-ID="a"', lines
    variants = [(line, uri) for line, uri in zip(lines, lines[1:]) if line.startswith("#EXT-X-STREAM-INF:")]
    assert [uri for _, uri in variants] == [f"{primary.base}/live/demo/media.m3u8", f"{twin.base}/live/demo/media.m3u8"]
    assert [line.rsplit(",", 1)[1] for line, _ in variants] == ['PATHWAY-ID="a"', 'PATHWAY-ID="b"']
    # The same variant on each, but for its pathway.
    assert len({line.rsplit(",", 1)[0] for line, _ in variants}) == 1
    # The steering manifest keeps a player on its pathway and sends its next reload to the twin.
    for origin in (primary, twin):
        for pathway, priority, reload in (("a", ["a", "b"], twin), ("b", ["b", "a"], primary)):
            steering = fetch(f"{origin.base}/steering/demo?_HLS_pathway={pathway}")
            assert steering.status == 200 and steering.headers["content-type"] == "application/json"
            assert json.loads(steering.text) == {"VERSION": 1, "TTL": 1, "RELOAD-URI": f"{reload.base}/steering/demo",
                                                 "PATHWAY-PRIORITY": priority}
    # What ffmpeg makes of it: both pathways' variants, each one playable.
    probe = subprocess.run(["ffprobe", "-v", "error", "-show_entries", "stream=codec_name,width", "-of", "csv=p=0",
                            f"{primary.base}/live/demo/index.m3u8"], capture_output=True, text=True, timeout=60)
    assert probe.returncode == 0, probe.stderr
    assert set(probe.stdout.split()) == {"h264,640", "aac"}, probe.stdout


@pytest.mark.parametrize("engine", ["mse", "native"])
def test_the_watch_page_moves_to_the_twin_when_its_origin_dies_without_an_edge(steered, page, engine):
    from browser import console_errors

    primary, twin, _ = steered
    try:
        # The browser's own HLS is started again on the twin (it does not move by itself); this
        # player's MSE engine moves without starting over.
        samples, killed = play_across_a_death(page, f"{primary.base}/watch/demo?engine={engine}", primary,
                                              restarts=1 if engine == "native" else 0)
        pathway = page.execute_script("return window.onair.pathway")
        moves = page.execute_script("return window.onair.pathwayMoves")
        page.get("about:blank")
        # What the browser says of the dead origin: a few refused requests, nothing of any other kind.
        refused = console_errors(page)
    finally:
        back(primary)
    assert (pathway, moves) == ("b", 1)
    assert_played_on(samples, killed, engine + " without an edge", restarted=engine == "native")
    # Refused, or cut off mid-request (a blocking reload held when the origin died).
    gone = ("net::ERR_CONNECTION_", "net::ERR_SOCKET_NOT_CONNECTED", "net::ERR_EMPTY_RESPONSE")
    assert all(error.startswith(primary.base + "/") and any(kind in error for kind in gone)
               for error in refused), "\n".join(refused)
    assert len(refused) < 20, refused
