#!/usr/bin/env bash
# Request collapsing through the edges of deploy/: onair serve as the origin, a publisher pushing
# Low-Latency HLS into it, and simulated LL-HLS viewers (hinted part + blocking reload, in turn) on
# an nginx edge, then on a Varnish edge, 10 and then N of them. Prints, for each, the requests the
# viewers made, the distinct objects, the requests that reached the origin (from its /metrics),
# their ratio per object, and the origin's CPU per second of load. With "private", the channel is
# private (--viewer-token) and every viewer plays the one signed link the host hands out.
# Usage: scripts/bench-edge.sh [seconds per run, default 20] [viewers, default 200] [public|private]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
viewers=${2:-200}
access=${3:-public}
case "$access" in public|private) ;; *) echo "the third argument is public or private, not '$access'" >&2; exit 2 ;; esac
[ -x .build/release/onair ] || ONAIR_BUILD=release scripts/setup.sh >/dev/null
export ONAIR_BINARY="$PWD/.build/release/onair"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ulimit -n 65536 2>/dev/null || true
PYTHONPATH=Tests/EndToEnd python3 - "$seconds" "$viewers" "$work" "$access" <<'PY'
import re, sys, time
from edges import NginxEdge, Origin, VarnishEdge, Viewers
from harness import Publisher, fetch, wait_until

seconds, count, work, private = float(sys.argv[1]), int(sys.argv[2]), sys.argv[3], sys.argv[4] == "private"
secret = "bench-viewer-secret-0123456789"
ticks = 100  # clock ticks a second (getconf CLK_TCK)

def cpu(pid):
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / ticks

origin = Origin(*(("--viewer-token", secret) if private else ()))
publisher = Publisher("--low-latency", "--part-duration", "0.2", "--no-serve", *origin.push_arguments())
edges = {"nginx": NginxEdge(f"{work}/nginx", origin.port), "varnish": VarnishEdge(f"{work}/varnish", origin.port)}
try:
    def link():
        """The query every viewer adds: the signed link's token, or nothing."""
        if not private:
            return ""
        channels = fetch(f"{origin.base}/api/channels", headers={"Authorization": f"Bearer {secret}"}).json()
        return "token=" + re.search(r"token=([^&]+)", channels[0]["playlist"]).group(1) if channels else None
    wait_until(lambda: link() is not None, 60, what="the channel at the origin")
    query = link()
    wait_until(lambda: (r := fetch(f"{origin.base}/live/demo/media.m3u8?{query}")) and r.text.count("#EXTINF") >= 2, 60,
               what="the channel's segments at the origin")
    print("private channel: every viewer plays one signed link" if private else "public channel")
    print(f"{'edge':8} {'viewers':>7} {'requests':>9} {'req/s':>7} {'objects':>8} {'origin':>7} {'per object':>10} {'origin CPU %':>12}")
    for name, edge in edges.items():
        for n in (10, count):
            before, cpu_before, started = origin.requests(), cpu(origin.process.pid), time.monotonic()
            load = Viewers(edge.port, n, query=query or None)
            time.sleep(seconds)
            load.stop()
            elapsed = time.monotonic() - started
            reached = origin.requests() - before
            used = cpu(origin.process.pid) - cpu_before
            objects = len(load.uris)
            print(f"{name:8} {n:7} {load.requests:9} {load.requests / elapsed:7.0f} {objects:8} {reached:7.0f} "
                  f"{reached / objects:10.3f} {100 * used / elapsed:12.1f}" + (f"  errors: {len(load.errors)}" if load.errors else ""))
finally:
    for edge in edges.values():
        edge.stop()
    publisher.kill()
    origin.stop()
PY
