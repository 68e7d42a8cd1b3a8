"""A real PipeWire for the per-application sound tests: its own session bus, `pipewire` and
`wireplumber`, and null sinks; applications are `pw-play` processes named with
`application.name`, playing tones into a sink."""

import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from harness import wait_until


class PipeWire:
    def __init__(self, sinks=("desk",)):
        self.root = Path(tempfile.mkdtemp(prefix="onair-pipewire-"))
        self.runtime = self.root / "run"
        self.runtime.mkdir(mode=0o700)
        self.env = {"XDG_RUNTIME_DIR": str(self.runtime), "HOME": str(self.root),
                    "DBUS_SESSION_BUS_ADDRESS": f"unix:path={self.runtime}/bus",
                    "PIPEWIRE_RUNTIME_DIR": str(self.runtime)}
        self.sinks = sinks
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
        for sink in self.sinks:
            self.run("pw-cli", "create-node", "adapter",
                     f"{{ factory.name=support.null-audio-sink node.name={sink} media.class=Audio/Sink "
                     "object.linger=true audio.position=[FL FR] }")
        wait_until(lambda: all(f'node.name = "{sink}"' in self.run("pw-cli", "ls", "Node").stdout
                               for sink in self.sinks), 10, what="the sinks")

    def kill(self):
        """PipeWire and WirePlumber die at once (a crash); the applications lose their streams."""
        for service in self.services:
            service.kill()
            service.wait()
        for player in self.players:
            player.kill()
            player.wait()
        self.players = []

    def play(self, name, wav, sink="desk"):
        """An application called `name` playing `wav` into `sink`; returns its process."""
        player = self._spawn(f"play-{name}", "pw-play", "--target", sink, "-P", f"{{ application.name = \"{name}\" }}",
                             str(wav))
        self.players.append(player)
        wait_until(lambda: f'application.name = "{name}"' in self.run("pw-cli", "ls", "Node").stdout, 10,
                   what=f"{name} playing")
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
