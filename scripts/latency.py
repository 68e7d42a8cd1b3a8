"""The body of scripts/latency.sh: one publisher and one headless Chromium per mode."""

import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "Tests" / "EndToEnd"))
from browser import start_chromium  # noqa: E402

# (mode, publish options, watch page engine): the page's own choice, and its MSE engine beside
# Chromium's native HLS for whole segments.
MODES = [
    ("2 s segments", ["--segment-duration", "2"], "native", None),
    ("2 s segments", ["--segment-duration", "2"], "mse", None),
    ("1 s segments", ["--segment-duration", "1"], "native", None),
    ("1 s segments", ["--segment-duration", "1"], "mse", None),
    ("low latency (0.2 s parts)", ["--low-latency"], "auto", None),
    ("LL, AV1 (0.2 s parts)", ["--low-latency", "--codec", "av1"], "auto", None),
    # Pushed into `onair serve`, watched through an edge of deploy/ (the watch page too).
    ("LL, origin + nginx edge", ["--low-latency"], "auto", "nginx"),
    ("LL, origin + Varnish edge", ["--low-latency"], "auto", "varnish"),
]

SAMPLER = """
window.latencySamples = []; window.stalls = 0;
const video = window.onair.video, canvas = document.createElement('canvas');
video.addEventListener('waiting', () => { if (video.currentTime > 0) window.stalls += 1; });
setInterval(() => {
    const wall = OnairTimeCode.read(video, canvas);
    if (wall !== null && !video.paused) window.latencySamples.push((Date.now() - wall) / 1000);
}, 200);
"""


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def answers(url):
    try:
        with urllib.request.urlopen(url, timeout=2):
            return True
    except OSError:
        return False


def wait_until(condition, timeout):
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit("latency: timed out waiting for playback")
        time.sleep(0.1)


def measure(binary, arguments, engine, seconds, edge_kind=None):
    port = free_port()
    log = tempfile.TemporaryFile()
    origin = edge = None
    if edge_kind:
        from edges import NginxEdge, Origin, VarnishEdge
        origin = Origin()
        edge = (NginxEdge if edge_kind == "nginx" else VarnishEdge)(tempfile.mkdtemp(), origin.port)
        arguments = [*arguments, "--no-serve", *origin.push_arguments("latency")]
    publisher = subprocess.Popen([binary, "publish", "--channel", "latency", "--host", "127.0.0.1",
                                  "--port", str(port), "--audio", "none", *arguments], stdout=log, stderr=log)
    driver = start_chromium()
    try:
        driver.get("about:blank")
        url = f"{edge.base if edge else f'http://127.0.0.1:{port}'}/watch/latency"
        wait_until(lambda: answers(url), 15)
        driver.get(f"{url}?engine={engine}")
        driver.execute_script("const s = document.createElement('script'); s.src = '/web/timecode.js';"
                              "document.head.append(s)")
        wait_until(lambda: driver.execute_script(
            "return typeof OnairTimeCode !== 'undefined' && window.onair.video.currentTime > 0.5"), 60)
        driver.execute_script(SAMPLER)
        # Let the player settle at its hold-back before counting.
        time.sleep(5)
        driver.execute_script("window.latencySamples = []; window.stalls = 0;")
        time.sleep(seconds)
        samples, stalls, engine = driver.execute_script(
            "return [window.latencySamples, window.stalls, window.onair.engine]")
    finally:
        driver.quit()
        publisher.terminate()
        publisher.wait(timeout=30)
        if edge:
            edge.stop()
            origin.stop()
    return samples, stalls, engine


def main():
    seconds = int(sys.argv[1])
    binary = sys.argv[2]
    only = sys.argv[3] if len(sys.argv) > 3 else ""
    os.environ["ONAIR_BINARY"] = binary
    print(f"glass-to-glass latency, {seconds} s per mode, 1280x720 test pattern, headless Chromium on loopback")
    print(f"{'mode':<28}{'player':<10}{'samples':>8}{'p50 s':>8}{'p95 s':>8}{'stalls':>8}")
    modes = [mode for mode in MODES if not only or only in mode[0]]
    for name, arguments, wanted, edge_kind in modes:
        samples, stalls, engine = measure(binary, arguments, wanted, seconds, edge_kind)
        if len(samples) < 2:
            print(f"{name:<28}{engine:<10}{len(samples):>8}   no readable frames")
            continue
        quantiles = statistics.quantiles(samples, n=20)
        print(f"{name:<28}{engine:<10}{len(samples):>8}{statistics.median(samples):>8.2f}"
              f"{quantiles[18]:>8.2f}{stalls:>8}")


if __name__ == "__main__":
    main()
