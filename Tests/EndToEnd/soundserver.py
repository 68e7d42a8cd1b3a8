"""A real PulseAudio server in user mode with two null sinks, reached through ALSA's pulse plugin
as `pulse:desk.monitor` and `pulse:mic.monitor`, fed with tones by paplay."""

import math
import os
import struct
import subprocess
import tempfile
import wave
from pathlib import Path

from harness import wait_until


def tone(path, frequency, seconds=60, rate=44100, amplitude=8000):
    with wave.open(str(path), "wb") as out:
        out.setnchannels(2)
        out.setsampwidth(2)
        out.setframerate(rate)
        frames = bytearray()
        for i in range(rate * seconds):
            sample = int(amplitude * math.sin(2 * math.pi * frequency * i / rate))
            frames += struct.pack("<hh", sample, sample)
        out.writeframes(bytes(frames))


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
