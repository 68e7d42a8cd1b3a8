#!/usr/bin/env python3
"""An example captioner for `onair publish --captions-from`: it stands where a speech-to-text
program would, and writes a caption each time a tone starts.

onair writes the broadcast's sound to its standard input (16 kHz, mono, signed 16-bit
little-endian) and reads its standard output: one caption a line, as JSON,
{"text": "…", "start": seconds, "end": seconds}, the times counted from the start of the input.

    onair publish --channel demo --audio test --captions-from scripts/captions-example.py

With the built-in test sound (a quiet tone, and a loud beep at the start of every second) each
beep becomes a caption, "Beep 1", "Beep 2", … shown for 0.8 s from the beep's start.
"""

import array
import json
import math
import sys

RATE = 16_000
WINDOW = RATE // 100  # 10 ms
LOUD = 0.2  # RMS, of full scale: the test tone is 0.07, its beep 0.35


def main():
    heard = 0  # samples read so far
    loud = False
    count = 0
    source = sys.stdin.buffer
    while True:
        chunk = source.read(WINDOW * 2)
        if len(chunk) < WINDOW * 2:
            return
        samples = array.array("h", chunk)
        if sys.byteorder == "big":
            samples.byteswap()
        rms = math.sqrt(sum(s * s for s in samples) / len(samples)) / 32768
        if rms >= LOUD and not loud:
            count += 1
            start = heard / RATE
            print(json.dumps({"text": f"Beep {count}", "start": round(start, 3), "end": round(start + 0.8, 3)}),
                  flush=True)
        loud = rms >= LOUD
        heard += len(samples)


if __name__ == "__main__":
    try:
        main()
    except (BrokenPipeError, KeyboardInterrupt):
        pass
