"""The web's standard HLS players, hls.js, Shaka Player and Video.js (unchanged builds in players/),
play what twin origins serve from a page on another site, and play on when the origin they started
on dies: plain HLS, Low-Latency HLS, and a ladder with its sound apart in each, the twins named with
--pathway; and hls.js and Shaka Player on Low-Latency HLS through the nginx edge of deploy/, the
twins behind it. Named with
--pathway, the twins are on two hosts (127.0.0.1 and 127.0.0.2), as twins are: Shaka Player passes
over a failed host, not a port.

The three play at once, each in its own Chromium, so one origin's death is tried by all three;
each page samples its own video every 0.1 s (the time on its clock, the player's position, and the
time code the test pattern draws into the picture) and the test reads the samples afterwards."""

import json
import signal
import time
from pathlib import Path

import pytest

from browser import OtherOrigin, start_chromium
from edges import TOKEN, NginxEdge, Origin
from harness import Publisher, fetch, free_port, wait_until

HERE = Path(__file__).resolve().parent
PLAYERS = HERE / "players"
TIME_CODE = (HERE.parents[1] / "web" / "timecode.js").read_text()

# How each player starts, as its documentation has it; `SOURCE` is the multivariant playlist.
START = {
    "hls.js": ("hls-1.7.0.min.js", """
        const hls = new Hls({lowLatencyMode: true});
        hls.on(Hls.Events.ERROR, (event, data) => failed(data.details, data.fatal));
        // What hls.js did, for a failure's message: when (s), the event, and what it names.
        window.trace = [];
        const traced = (name, detail) => window.trace.push([Date.now() / 1000, name, detail]);
        hls.on(Hls.Events.ERROR, (event, data) => traced("error", data.details + " " + (data.context?.url || data.frag?.url || "") + " " + (data.response?.code ?? "") + " action " + (data.errorAction?.action ?? "") + " resolved " + data.errorAction?.resolved));
        hls.on(Hls.Events.LEVELS_UPDATED, (event, data) => traced("levels", data.levels.map((level) => level.url[0]).join(" ")));
        hls.on(Hls.Events.LEVEL_LOADING, (event, data) => traced("level loading", data.url));
        hls.on(Hls.Events.LEVEL_LOADED, (event, data) => traced("level loaded", data.details.url + " " + data.details.lastPartSn + "." + data.details.lastPartIndex));
        hls.on(Hls.Events.FRAG_LOADING, (event, data) => traced("loading", (data.part || data.frag).url));
        hls.on(Hls.Events.FRAG_BUFFERED, (event, data) => traced("buffered", (data.part || data.frag).url));
        hls.on(Hls.Events.STEERING_MANIFEST_LOADED, (event, data) => traced("steering", JSON.stringify(data.steeringManifest)));
        setInterval(() => traced("at", video.currentTime.toFixed(2) + " buffered " + Array.from(
            {length: video.buffered.length}, (_, i) => video.buffered.start(i).toFixed(2) + "-" + video.buffered.end(i).toFixed(2)).join(" ")), 250);
        hls.loadSource(SOURCE);
        hls.attachMedia(video);"""),
    "shaka": ("shaka-player-4.16.44.compiled.js", """
        shaka.polyfill.installAll();
        (async () => {
            const player = window.shakaPlayer = new shaka.Player();
            player.addEventListener("error", (event) => failed("shaka " + event.detail.code, event.detail.severity === 2));
            await player.attach(video);
            player.configure({streaming: {lowLatencyMode: true}});
            try {
                await player.load(SOURCE);
            } catch (error) { failed("shaka load " + error.code, true); }
        })();"""),
    "video.js": ("video-8.16.1.min.js", """
        const element = document.createElement("video-js");
        video.replaceWith(element);
        const player = window.vjsPlayer = videojs(element, {muted: true, html5: {vhs: {overrideNative: true, llhls: true}}});
        player.on("error", () => failed("video.js " + JSON.stringify(player.error()), true));
        player.src({src: SOURCE, type: "application/x-mpegURL"});"""),
}


def page_for(name, source, setup="", sampled="video.videoHeight"):
    """A page on another site playing `source` in player `name`, sampling every 0.1 s. `setup`:
    script run after the player starts; `sampled`: the sample's last field (the picture's height)."""
    build, start = START[name]
    return OtherOrigin(f"""<!doctype html><body style="margin:0">
<video muted autoplay playsinline width="640" height="360"></video>
<script>{(PLAYERS / build).read_text()}</script>
<script>{TIME_CODE}</script>
<script>
"use strict";
const SOURCE = "{source}";
const video = document.querySelector("video");
window.errors = [];
window.samples = [];
function failed(what, fatal) {{ window.errors.push(what + (fatal ? " (fatal)" : "")); }}
{start}
{setup}
// Every 0.1 s: when (s), where the player is (s), the time code on the picture (s, or null) and
// `sampled`.
const canvas = document.createElement("canvas");
setInterval(() => {{
    const video = document.querySelector("video");  // Video.js plays in a <video> of its own
    if (video.paused) video.play().catch(() => {{}});
    const code = OnairTimeCode.read(video, canvas);
    window.samples.push([Date.now() / 1000, video.currentTime, code === null ? null : code / 1000, {sampled}]);
}}, 100);
</script>""")


def stalls(samples):
    """The stretches (s) in which the position stood still for more than 0.3 s."""
    found, since = [], None
    for (then, position, *_), (now, later, *_) in zip(samples, samples[1:]):
        if later - position < 0.01:
            since = then if since is None else since
        else:
            if since is not None and now - since > 0.3:
                found.append(round(now - since, 2))
            since = None
    if since is not None and samples[-1][0] - since > 0.3:
        found.append(round(samples[-1][0] - since, 2))
    return found


def steady(samples, legible, seconds=3):
    """The last `seconds` played without a stall, and when `legible`, the time code readable in
    most of them."""
    if not samples or samples[-1][0] - samples[0][0] < seconds + 1:
        return False
    recent = [sample for sample in samples if sample[0] > samples[-1][0] - seconds]
    readable = [sample for sample in recent if sample[2] is not None]
    return recent[-1][1] - recent[0][1] > seconds - 0.5 and not stalls(recent) and (
        not legible or len(readable) > len(recent) / 2)


# How far behind live (s) a Low-Latency player may play, capture to screen: two parts' hold-back
# and the publisher's own delay come to about 1 s; measured 0.7-2.8 s.
MOST_BEHIND = 5.0

MODES = {
    "plain": ("--size", "640x360"),
    "low-latency": ("--size", "640x360", "--low-latency", "--part-duration", "0.2"),
    "plain-ladder": ("--renditions", "360p,180p"),
    "ladder": ("--renditions", "360p,180p", "--low-latency", "--part-duration", "0.2"),
    # No --pathway: the players see one address, deploy/nginx-edge.conf's, which turns to the twin.
    "nginx-edge": ("--size", "640x360", "--low-latency", "--part-duration", "0.2"),
}


@pytest.mark.parametrize("mode", list(MODES))
def test_every_standard_player_plays_on_when_its_origin_dies(mode, tmp_path):
    ports = free_port(), free_port()
    steered = mode != "nginx-edge"
    pathways = ("--pathway", f"a=http://127.0.0.1:{ports[0]}", "--pathway", f"b=http://127.0.0.2:{ports[1]}")
    primary = Origin(*(pathways if steered else ()), port=ports[0])
    twin = Origin(*(pathways if steered else ()), port=ports[1], host="127.0.0.2" if steered else "127.0.0.1")
    publisher = Publisher(*MODES[mode], "--no-serve", "--push", primary.ingest("show"), "--push", twin.ingest("show"),
                          "--push-header", f"Authorization: Bearer {TOKEN}", channel="show")
    # Through the edge, hls.js and Shaka Player: Video.js stalled there for 1.2 s in one run and
    # 9.3 s in another (docs/origin.md), which no limit here would hold to.
    players = list(START) if steered else ["hls.js", "shaka"]
    pages, drivers, edge = {}, {}, None
    try:
        if not steered:
            edge = NginxEdge(tmp_path / "nginx", primary.port, twin.port)
        for origin in (primary, twin):
            wait_until(lambda: (r := fetch(f"{origin.base}/live/show/index.m3u8")) is not None and r.status == 200,
                       40, what="the channel on both origins")
        source = f"{(primary if steered else edge).base}/live/show/index.m3u8"
        for name in players:
            pages[name] = page_for(name, source)
            drivers[name] = start_chromium(width=700, height=450)
            drivers[name].get(pages[name].url)

        def samples(name):
            return drivers[name].execute_script("return window.samples")
        # Each plays steadily, its picture's time code readable, before the origin it plays from dies.
        for name in players:
            try:
                wait_until(lambda: steady(samples(name), legible="ladder" not in mode), 60, interval=0.5,
                           what=f"{name} playing steadily")
            except AssertionError as error:
                raise AssertionError(f"{error}: the last samples {samples(name)[-5:]}, errors "
                                     f"{drivers[name].execute_script('return window.errors')}") from None
        if mode in ("low-latency", "nginx-edge"):
            # Low-Latency players play near live: the picture's time code against the clock, over
            # the last 3 s. (Video.js played 6-7 s behind while browsers kept blocking answers.)
            for name in players:
                lags = sorted(at - code for at, _, code, _ in samples(name)[-30:] if code is not None)
                print(f"{mode} {name}: {lags[len(lags) // 2]:.2f} s behind live")
                assert lags[len(lags) // 2] < MOST_BEHIND, f"{name} plays {lags[len(lags) // 2]:.2f} s behind live"
        killed = time.time()
        primary.process.send_signal(signal.SIGKILL)
        primary.process.wait()
        if steered:
            # The twin finds it down and steers players off it, the next reload on itself.
            wait_until(lambda: f"pathway a ({primary.base}) does not answer" in twin.output(), 5,
                       what="the twin to find the primary down")
            steering = fetch(f"{twin.base}/steering/show?_HLS_pathway=a")
            assert json.loads(steering.text) == {"VERSION": 1, "TTL": 1, "RELOAD-URI": f"{twin.base}/steering/show",
                                                 "PATHWAY-PRIORITY": ["b", "a"]}
        wait_until(lambda: all(samples(name)[-1][0] > killed + 10 for name in players), 30, interval=0.5,
                   what="10 s of playing after the death")
        failures = []
        for name in players:
            taken = samples(name)
            errors = drivers[name].execute_script("return window.errors")
            after = [sample for sample in taken if sample[0] >= killed]
            last_before = [sample for sample in taken if sample[0] < killed][-1]
            codes = [code for _, _, code, _ in [last_before] + after if code is not None]
            backwards = [round(later - earlier, 2) for earlier, later in zip(codes, codes[1:]) if later < earlier - 0.05]
            held = stalls([last_before] + after)
            played = after[-1][1] - last_before[1]
            print(f"{mode} {name}: played {played:.1f} s in {after[-1][0] - killed:.1f} s after the death, "
                  f"stalls {held}, time code read in {len(codes)} of {len(after) + 1} samples, errors {errors}")
            if any(error.endswith("(fatal)") for error in errors):
                failures.append(f"{name}: a fatal error {errors}")
            if backwards:
                # With the samples around the first (when, position, time code), to tell a
                # player that played media again from one that showed a picture out of order.
                first = next(i for i, (_, _, code, _) in enumerate(after) if code is not None and code < max(
                    [c for _, _, c, _ in [last_before] + after[:i] if c is not None], default=code) - 0.05)
                around = [(round(t - killed, 2), round(p, 2), c) for t, p, c, _ in after[max(0, first - 5):first + 5]]
                failures.append(f"{name}: the time code went back {backwards}, around the first {around}")
            if any(later < earlier for (_, earlier, *_), (_, later, *_) in zip(after, after[1:])):
                failures.append(f"{name}: its position went back")
            wall = after[-1][0] - killed
            trace = drivers[name].execute_script("return window.trace || []")
            if name == "video.js" and mode == "ladder":
                # Video.js with a Low-Latency ladder and its sound apart plays on, but has stalled
                # for up to 3.5 s in some runs (docs/origin.md): only that it plays on is held to
                # here. Without parts (plain-ladder) it is held to the limits of the others.
                if played < wall / 3:
                    failures.append(f"{name}: played {played:.1f} s of {wall:.1f}")
            else:
                # Stalled 2 s at most in all: one stall, or a few short ones (Shaka Player under
                # Low-Latency HLS, beside the other two players on a busy machine: 0.36 + 0.69 s).
                if sum(held) > 2:
                    failures.append(f"{name}: stalled {held}")
                if played < wall - 2.5:
                    failures.append(f"{name}: played {played:.1f} s of {wall:.1f}")
            # A ladder's player may move to the 180p rung, whose time code is too small to read:
            # there its position stands for it.
            if "ladder" not in mode and len(codes) < len(after) / 2:
                failures.append(f"{name}: the time code read in only {len(codes)} of {len(after)} samples")
            if any(failure.startswith(f"{name}:") for failure in failures):
                # What the player did from 2 s before the death, where it keeps a trace (hls.js).
                for then, what, detail in trace:
                    if then > killed - 2:
                        print(f"{name} {then - killed:+7.2f} {what} {detail}")
        assert failures == []
    finally:
        for driver in drivers.values():
            driver.quit()
        for page in pages.values():
            page.close()
        if edge:
            edge.stop()
        publisher.kill()
        primary.stop()
        twin.stop()
