"""A real PulseAudio server in user mode with two null sinks, reached through ALSA's pulse plugin
as `pulse:desk.monitor` and `pulse:mic.monitor`, fed with tones by paplay; and a reference
recorder that dates what a sink played on the wall clock."""

import math
import os
import re
import struct
import subprocess
import tempfile
import threading
import time
import wave
from datetime import datetime
from pathlib import Path

from harness import init_segment, wait_until
from hls_rules import MediaPlaylist


def write_wave(path, seconds, rate, sample):
    """A 16-bit stereo WAV of `seconds`, sample i (both channels) being `sample(i)`."""
    with wave.open(str(path), "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(rate)
        frames = bytearray()
        for i in range(rate * seconds):
            value = sample(i)
            frames += struct.pack("<hh", value, value)
        out.writeframes(bytes(frames))


def tone(path, frequency, seconds=60, rate=44100, amplitude=8000):
    write_wave(path, seconds, rate, lambda i: int(amplitude * math.sin(2 * math.pi * frequency * i / rate)))


def beeps(path, seconds=60, rate=44100, amplitude=8000):
    """1 kHz for the first 100 ms of every second, silence between."""
    write_wave(path, seconds, rate,
               lambda i: int(amplitude * math.sin(2 * math.pi * 1000 * i / rate)) if i % rate < rate // 10 else 0)


def onsets(*source, data=None, end):
    """Where each beep starts, in seconds of the source's own time: where silence ends in the 1 kHz
    band, before `end`, the source's length (a source cut in a silence seems to end one there too)."""
    output = subprocess.run(
        ["ffmpeg", "-nostats", "-v", "info", *source, "-map", "0:a",
         "-af", "bandpass=f=1000:width_type=h:w=200,silencedetect=n=-30dB:d=0.5", "-f", "null", "-"],
        input=data, capture_output=True, check=True).stderr.decode()
    return [t for t in map(float, re.findall(r"silence_end: ([0-9.]+)", output)) if t < end - 0.1]


class Listener:
    """Records a sink's sound with parec, 10 ms at a time, noting the wall-clock time each block
    arrives. A block arrives a little after its last sample played, never before, so the earliest
    arrival just after a moment, less the samples after it, dates that moment to a few
    milliseconds. Just after: a sink's clock held up (its server kept off the CPU of a loaded
    machine) plays on from where it stopped, so everything after plays that much later, for good;
    blocks from before a hold-up would date what follows it too early (seen: 53 ms, then 22 and
    20 more, in 8 s)."""

    RATE = 44100

    def __init__(self, server, sink):
        self.process = subprocess.Popen(
            ["parec", f"--device={sink}.monitor", "--latency-msec=10", "--format=s16le", "--channels=1",
             f"--rate={self.RATE}", "--raw"], env={**os.environ, **server.env}, stdout=subprocess.PIPE)
        self.raw = bytearray()
        self.arrivals = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        while chunk := os.read(self.process.stdout.fileno(), 1 << 16):
            now = time.time()
            self.raw += chunk
            self.arrivals.append((len(self.raw) // 2 / self.RATE, now))

    def stop(self):
        self.process.terminate()
        self.process.wait()
        self.thread.join()

    # How far past a moment the blocks that date it may end: some 50 of them, one of which comes
    # within a few milliseconds of its samples.
    DATING = 0.5

    def wall_time(self, seconds):
        """When the sample `seconds` into the recording played, as a Unix time, dated by the blocks
        that end in the half second after it. A block after samples the recorder lost (fallen
        behind on a loaded machine) counts fewer than have played, so it dates the moment later
        than the blocks before the loss: the earliest is kept."""
        after = [(end, arrived) for end, arrived in self.arrivals if end >= seconds]
        return min(arrived - end for end, arrived in after if end <= after[0][0] + self.DATING) + seconds

    def offsets(self, media):
        """Where each beep published in the channel folder `media` sits against the moment it was
        heard, in milliseconds (positive: sound late). Published beeps are dated through the first
        PROGRAM-DATE-TIME (media time 0 is the broadcast clock's anchor, by which every frame of
        the picture is stamped)."""
        playlist = MediaPlaylist((media / "media.m3u8").read_text())
        anchor = datetime.fromisoformat(playlist.segments[0]["pdt"].replace("Z", "+00:00")).timestamp()
        data = init_segment(media) + b"".join((media / s["uri"]).read_bytes()
                                                            for s in playlist.segments)
        published = [anchor + t for t in onsets("-i", "-", data=data, end=playlist.duration)]
        heard = self.heard_onsets()
        return [round((p - min(heard, key=lambda h: abs(h - p))) * 1000, 1) for p in published]

    def heard_onsets(self):
        """The wall-clock times at which beeps started playing."""
        raw = bytes(self.raw)
        return [self.wall_time(t) for t in onsets("-f", "s16le", "-ar", str(self.RATE), "-ac", "1", "-i", "-",
                                                  data=raw, end=len(raw) / 2 / self.RATE)]


class SoundServer:
    def __init__(self):
        self.folder = Path(tempfile.mkdtemp(prefix="onair-pulse-"))
        self.env = {"PULSE_RUNTIME_PATH": str(self.folder), "XDG_RUNTIME_DIR": str(self.folder),
                    "HOME": str(self.folder)}
        self.players = []
        self.start()

    def start(self):
        self.process = subprocess.Popen(
            ["pulseaudio", "-n", "--daemonize=no", "--exit-idle-time=-1", "--disallow-exit",
             "--load=module-null-sink sink_name=desk", "--load=module-null-sink sink_name=mic",
             "--load=module-native-protocol-unix"],
            env={**os.environ, **self.env}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(lambda: subprocess.run(["pactl", "list", "short", "sinks"], env={**os.environ, **self.env},
                                          capture_output=True).returncode == 0, 20, what="PulseAudio")

    def play(self, sink, wav):
        player = subprocess.Popen(["paplay", f"--device={sink}", str(wav)], env={**os.environ, **self.env})
        self.players.append(player)
        return player

    def kill(self):
        self.process.kill()
        self.process.wait()

    def stop(self):
        for player in self.players:
            player.kill()
            player.wait()
        if self.process.poll() is None:
            self.kill()
