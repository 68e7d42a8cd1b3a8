#!/usr/bin/env python3
"""Follows the process whose command line contains MATCH (waiting up to 30 s for it to start)
until it exits, and writes the CPU seconds (user + system) its threads used, summed by thread
name, to OUT: one "name seconds" line each, most first. Read from /proc every 0.2 s, so a thread
is counted up to its last reading (a thread's CPU is gone from /proc once it ends).

    scripts/bench/threads.py MATCH OUT"""
import os
import sys
import time

match, out = sys.argv[1], sys.argv[2]
tick = os.sysconf("SC_CLK_TCK")


def find():
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            command = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        except OSError:
            continue
        # The program itself, not GNU time nor a shell that started it.
        if command and command[0].endswith(b"onair") and match.encode() in b" ".join(command):
            return pid
    return None


deadline = time.monotonic() + 30
pid = find()
while pid is None and time.monotonic() < deadline:
    time.sleep(0.05)
    pid = find()
if pid is None:
    sys.exit(f"threads.py: no onair process matching {match!r}")
seen = {}
while os.path.exists(f"/proc/{pid}/task"):
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        break
    for task in tasks:
        try:
            stat = open(f"/proc/{pid}/task/{task}/stat").read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1:stat.rindex(")")]
        fields = stat[stat.rindex(")") + 2:].split()
        seen[task] = (name, (int(fields[11]) + int(fields[12])) / tick)
    time.sleep(0.2)
totals = {}
for name, seconds in seen.values():
    totals[name] = totals.get(name, 0) + seconds
with open(out, "w") as file:
    for name, seconds in sorted(totals.items(), key=lambda item: -item[1]):
        file.write(f"{name} {seconds:.2f}\n")
