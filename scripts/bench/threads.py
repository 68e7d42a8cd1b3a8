"""CPU seconds of each kind of thread of one process, sampled until it exits (onair names its
threads by stage and sink: RecordingSink, DVRSink, LiveStore, onair-video-enc…).

    python3 scripts/bench/threads.py PATTERN OUT

waits for the process whose command line starts with PATTERN's program (`pgrep -f '^PATTERN'`),
samples /proc/PID/task/*/schedstat five times a second (time on a CPU, in nanoseconds: the
clock-tick figures of /stat round a sink's few milliseconds to 0 or 10), and writes to OUT one
line per thread name: `name cpu_seconds` (threads of one name summed) as last seen before it exited.
"""
import os
import subprocess
import sys
import time

pattern, out = sys.argv[1], sys.argv[2]
deadline = time.monotonic() + 60
pid = None
while pid is None and time.monotonic() < deadline:
    found = subprocess.run(["pgrep", "-f", "^" + pattern], capture_output=True, text=True).stdout.split()
    pid = int(found[0]) if found else None
    time.sleep(0.05)
if pid is None:
    sys.exit(f"no process matches {pattern}")
last = {}
while os.path.exists(f"/proc/{pid}"):
    sample = {}
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/comm") as comm, open(f"/proc/{pid}/task/{tid}/schedstat") as stat:
                sample[tid] = (comm.read().strip(), int(stat.read().split()[0]) / 1e9)
    except (FileNotFoundError, ProcessLookupError, IndexError):
        pass
    # Threads that have ended keep their last figure.
    last.update(sample)
    time.sleep(0.2)
totals = {}
for name, seconds in last.values():
    totals[name] = totals.get(name, 0) + seconds
with open(out, "w") as file:
    for name, seconds in sorted(totals.items()):
        file.write(f"{name} {seconds:.6f}\n")
