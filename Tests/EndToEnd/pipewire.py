"""A real PipeWire for the per-application sound tests: its own session bus, `pipewire` and
`wireplumber`, and null sinks; applications are `pw-play` processes named with
`application.name`, playing tones into a sink."""

import os
import shutil
import signal
import subprocess
import tempfile
import threading
from pathlib import Path

from harness import wait_until
from soundserver import Listener


class PipeWire:
    """`sinks`: null sinks (what a desktop plays into); `sources`: virtual sources (microphones),
    fed by linking a player to them."""

    def __init__(self, sinks=("desk",), sources=()):
        self.root = Path(tempfile.mkdtemp(prefix="onair-pipewire-"))
        self.runtime = self.root / "run"
        self.runtime.mkdir(mode=0o700)
        self.env = {"XDG_RUNTIME_DIR": str(self.runtime), "HOME": str(self.root),
                    "DBUS_SESSION_BUS_ADDRESS": f"unix:path={self.runtime}/bus",
                    "PIPEWIRE_RUNTIME_DIR": str(self.runtime)}
        self.sinks = sinks
        self.sources = sources
        self.players = []
        self.services = []
        self.bus = self._spawn("dbus", "dbus-daemon", "--session", f"--address={self.env['DBUS_SESSION_BUS_ADDRESS']}",
                               "--nofork", "--nopidfile")
        wait_until(lambda: (self.runtime / "bus").exists(), 10, what="the session bus")
        try:
            self.start()
        except BaseException:
            self.stop()
            raise

    def _spawn(self, name, *command):
        log = open(self.root / f"{name}.log", "a")
        return subprocess.Popen(command, env={**os.environ, **self.env}, stdout=log, stderr=subprocess.STDOUT,
                                cwd=self.root)

    def run(self, *command, check=True):
        return subprocess.run(command, env={**os.environ, **self.env}, capture_output=True, text=True,
                              check=check, timeout=30)

    def start(self):
        """PipeWire, WirePlumber and the sinks: what a desktop session starts."""
        socket = self.runtime / "pipewire-0"
        socket.unlink(missing_ok=True)
        self.services = [self._spawn("pipewire", "pipewire")]
        wait_until(socket.exists, 10, what="PipeWire")
        self.services.append(self._spawn("wireplumber", "wireplumber"))
        nodes = [(sink, "Audio/Sink") for sink in self.sinks] + [(source, "Audio/Source/Virtual")
                                                                 for source in self.sources]
        for name, media_class in nodes:
            self.run("pw-cli", "create-node", "adapter",
                     f"{{ factory.name=support.null-audio-sink node.name={name} media.class={media_class} "
                     "object.linger=true audio.position=[FL FR] }")
        wait_until(lambda: all(f'node.name = "{name}"' in self.run("pw-cli", "ls", "Node").stdout
                               for name, _ in nodes), 10, what="the sinks and sources")

    def kill(self):
        """PipeWire and WirePlumber die at once (a crash); the applications lose their streams."""
        for service in self.services:
            service.kill()
            service.wait()
        for player in self.players:
            player.kill()
            player.wait()
        self.players = []

    def play(self, name, wav, sink="desk", launcher=False):
        """An application called `name` playing `wav` into `sink`; returns its process, or with
        `launcher` the shell that started it and waits for it."""
        command = ["pw-play", "--target", sink, "-P", f"{{ application.name = \"{name}\" }}", str(wav)]
        if launcher:
            command = ["sh", "-c", '"$@"; exit $?', "launcher", *command]
        player = self._spawn(f"play-{name}", *command)
        self.players.append(player)
        wait_until(lambda: f'application.name = "{name}"' in self.run("pw-cli", "ls", "Node").stdout, 10,
                   what=f"{name} playing")
        return player

    def speak(self, name, wav, source):
        """A player feeding the virtual source `source` (a microphone hearing it): linked by hand,
        since a session manager links players to sinks only. `wav` is stereo."""
        node = f"speaker-{name}"
        player = self._spawn(f"play-{name}", "pw-play", "-P",
                             f"{{ application.name = \"{name}\" node.name = {node} node.autoconnect = false }}",
                             str(wav))
        self.players.append(player)
        wait_until(lambda: f"{node}:output_FR" in self.run("pw-link", "-o").stdout, 10, what=f"{name}'s ports")
        for channel in ("FL", "FR"):
            self.run("pw-link", f"{node}:output_{channel}", f"{source}:input_{channel}")
        return player

    def quit(self, player):
        player.send_signal(signal.SIGTERM)
        player.wait()
        self.players.remove(player)

    def stop(self):
        self.kill()
        self.bus.kill()
        self.bus.wait()
        shutil.rmtree(self.root, ignore_errors=True)


class PipeWireListener(Listener):
    """The reference recorder of soundserver.Listener, on PipeWire: pw-record on a sink's monitor,
    noting when each block of samples arrives."""

    def __init__(self, pipewire, sink):
        self.process = subprocess.Popen(
            ["pw-record", "--target", sink, "-P", "{ stream.capture.sink = true }", "--latency", "10ms",
             "--format", "s16", "--channels", "1", "--rate", str(self.RATE), "-"],
            env={**os.environ, **pipewire.env}, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self.raw = bytearray()
        self.arrivals = []
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()
