"""A headless Wayland desktop with a working ScreenCast portal, for the Wayland capture tests.

sway (wlroots' headless backend, drawing with pixman), PipeWire and WirePlumber on the session's
own D-Bus, and xdg-desktop-portal with its wlroots backend, whose output chooser is a script the
test answers. sway refuses to run as root, so the whole session runs as an unprivileged user with
its own XDG_RUNTIME_DIR, and so does the onair that captures it (the portal serves the bus it is on).
The wlroots portal 0.7 needs `native/screencopy-shm.c` to share a screen drawn without a GPU.
"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from harness import BINARY, Publisher, wait_until

HERE = Path(__file__).resolve().parent
# An unprivileged user to run the session as: nobody.
USER = 65534
OUTPUT = "HEADLESS-1"


class WaylandDesktop:
    def __init__(self, width=640, height=480):
        self.width, self.height = width, height
        self.root = Path(tempfile.mkdtemp(prefix="onair-wayland-"))
        self.root.chmod(0o755)
        self.runtime = self.root / "run"
        self.home = self.root / "home"
        config = self.root / "config"
        for folder in (self.runtime, self.home, config / "sway", config / "xdg-desktop-portal-wlr", self.root / "logs"):
            folder.mkdir(parents=True, exist_ok=True)
        self.runtime.chmod(0o700)
        (config / "sway/config").write_text(
            f"output {OUTPUT} resolution {width}x{height} position 0,0 bg #000000 solid_color\n"
            "default_border none\nfocus_follows_mouse no\n")
        # The chooser the portal runs when no remembered choice applies: it notes each run, and
        # answers with the output unless the test told it to refuse, or to hold (a dialog left
        # open) until told otherwise.
        self.chooser_log = self.root / "chooser.log"
        self.chooser_answer = self.root / "chooser.answer"
        chooser = self.root / "chooser"
        chooser.write_text(f"#!/bin/sh\necho run >> {self.chooser_log}\n"
                           f"while [ \"$(cat {self.chooser_answer} 2>/dev/null)\" = hold ]; do sleep 0.1; done\n"
                           f"echo answered >> {self.chooser_log}\n"
                           f"[ \"$(cat {self.chooser_answer} 2>/dev/null)\" = refuse ] || echo {OUTPUT}\n")
        chooser.chmod(0o755)
        (config / "xdg-desktop-portal-wlr/config").write_text(
            f"[screencast]\nchooser_type=simple\nchooser_cmd={chooser}\nmax_fps=30\n")
        shim = self.root / "screencopy-shm.so"
        subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(shim), str(HERE / "native/screencopy-shm.c"), "-ldl"],
                       check=True)
        # The session user must be able to run the binary wherever the checkout is.
        self.binary = self.root / "onair"
        shutil.copy(BINARY, self.binary)
        self.binary.chmod(0o755)
        for path in [self.root, *self.root.rglob("*")]:
            os.chown(path, USER, USER, follow_symlinks=False)
        self.env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home),
            "XDG_RUNTIME_DIR": str(self.runtime), "XDG_CONFIG_HOME": str(config),
            "XDG_STATE_HOME": str(self.home / "state"), "XDG_CACHE_HOME": str(self.home / "cache"),
            "XDG_CURRENT_DESKTOP": "sway", "XDG_SESSION_TYPE": "wayland",
            "DBUS_SESSION_BUS_ADDRESS": f"unix:path={self.runtime}/bus",
            "WLR_BACKENDS": "headless", "WLR_LIBINPUT_NO_DEVICES": "1", "WLR_RENDERER": "pixman",
            "WLR_HEADLESS_OUTPUTS": "1", "LANG": "C.UTF-8",
        }
        self.processes = []
        try:
            self._start(shim)
        except BaseException:
            self.stop()
            raise

    def _spawn(self, name, *command, env=None):
        log = open(self.root / "logs" / f"{name}.log", "w")
        process = subprocess.Popen(self.as_user(*command), env={**self.env, **(env or {})}, stdout=log,
                                   stderr=subprocess.STDOUT, cwd=self.home)
        self.processes.append((name, process))
        return process

    def as_user(self, *command):
        return ["setpriv", f"--reuid={USER}", f"--regid={USER}", "--clear-groups", *command]

    def _start(self, shim):
        self._spawn("dbus", "dbus-daemon", "--session", f"--address={self.env['DBUS_SESSION_BUS_ADDRESS']}",
                    "--nofork", "--nopidfile")
        wait_until(lambda: (self.runtime / "bus").exists(), 10, what="the session bus")
        self._spawn("pipewire", "pipewire")
        wait_until(lambda: (self.runtime / "pipewire-0").exists(), 10, what="PipeWire")
        self._spawn("wireplumber", "wireplumber")
        self._spawn("sway", "sway", "-c", str(self.root / "config/sway/config"))

        def sway_sockets():
            names = [p.name for p in self.runtime.iterdir()]
            display = [n for n in names if n.startswith("wayland-") and not n.endswith(".lock")]
            ipc = [n for n in names if n.startswith("sway-ipc.")]
            return (display[0], ipc[0]) if display and ipc else None
        display, ipc = wait_until(sway_sockets, 15, what="sway's sockets")
        self.env["WAYLAND_DISPLAY"] = display
        self.env["SWAYSOCK"] = str(self.runtime / ipc)
        # Services the bus starts on demand (the permission store) get the session's variables.
        self.run("dbus-update-activation-environment", "HOME", "XDG_RUNTIME_DIR", "XDG_CONFIG_HOME",
                 "XDG_CURRENT_DESKTOP", "XDG_SESSION_TYPE", "WAYLAND_DISPLAY")
        self._spawn("portal-wlr", "/usr/libexec/xdg-desktop-portal-wlr", "-l", "DEBUG", env={"LD_PRELOAD": str(shim)})
        wait_until(lambda: self.has_bus_name("org.freedesktop.impl.portal.desktop.wlr"), 15, what="the wlr portal")
        self._spawn("portal", "/usr/libexec/xdg-desktop-portal")
        wait_until(lambda: self.has_bus_name("org.freedesktop.portal.Desktop"), 15, what="the portal")
        wait_until(lambda: self.run("swaymsg", "-t", "get_outputs", check=False).returncode == 0, 10,
                   what="sway answering")

    def run(self, *command, check=True):
        """A command in the session, as its user."""
        return subprocess.run(self.as_user(*command), env=self.env, capture_output=True, text=True, check=check,
                              cwd=self.home, timeout=30)

    def has_bus_name(self, name):
        result = self.run("dbus-send", "--session", "--print-reply", "--dest=org.freedesktop.DBus", "/",
                          "org.freedesktop.DBus.NameHasOwner", f"string:{name}", check=False)
        return result.returncode == 0 and "true" in result.stdout

    def paint(self, colour):
        """The output's background in one colour (`#rrggbb`)."""
        self.run("swaymsg", "output", OUTPUT, "bg", colour, "solid_color")

    def window(self, colour, x, y, width, height, app_id="onair-test"):
        """A Wayland window (foot, a terminal) filled with `colour` (`rrggbb`), floating at x, y."""
        self._spawn(app_id, "foot", "--app-id", app_id, "-o", f"colors.background={colour}",
                    "-o", f"colors.foreground={colour}", "-o", f"colors.cursor={colour} {colour}", "sleep", "600")
        wait_until(lambda: self.rect(app_id), 15, what=f"window {app_id}")
        self.place(app_id, x, y, width, height)

    def place(self, app_id, x, y, width, height):
        """Floats the window at x, y at that size, and waits until sway has it there: a command
        that comes while the client is still answering its first configure may not hold."""
        def placed():
            if self.rect(app_id) == (x, y, width, height):
                return True
            self.run("swaymsg", f'[app_id="{app_id}"] floating enable, resize set {width} {height}, '
                     f"move position {x} {y}")
            return False
        wait_until(placed, 15, interval=0.5, what=f"window {app_id} at {width}x{height}+{x}+{y}")

    def rect(self, app_id):
        """Where sway has the window: (x, y, width, height), or None while it has none."""
        def find(node):
            if node.get("app_id") == app_id:
                return node
            for child in node.get("nodes", []) + node.get("floating_nodes", []):
                if found := find(child):
                    return found
            return None
        node = find(json.loads(self.run("swaymsg", "-t", "get_tree").stdout))
        if node is None:
            return None
        rect = node["rect"]
        return rect["x"], rect["y"], rect["width"], rect["height"]

    def stop_sharing(self):
        """What the desktop does when the user stops sharing: the portal's stream goes away."""
        for name, process in self.processes:
            if name == "portal-wlr" and process.poll() is None:
                process.terminate()
                process.wait(timeout=10)

    def publisher(self, *arguments, channel="wayland", env=None):
        """`onair publish` in the session, as its user."""
        return Publisher(*arguments, channel=channel, env={**self.env, **(env or {})}, prefix=self.as_user(),
                         binary=str(self.binary), cwd=str(self.home))

    def onair(self, *arguments, env=None, timeout=60):
        return subprocess.run(self.as_user(str(self.binary), *arguments), env={**self.env, **(env or {})},
                              capture_output=True, text=True, timeout=timeout, cwd=self.home)

    def stop(self):
        for _, process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
        for _, process in reversed(self.processes):
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        # What the bus and sway started themselves (the permission store, swaybg): found by the
        # session's runtime folder in their environment.
        marker = f"XDG_RUNTIME_DIR={self.runtime}".encode()
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                if marker in (entry / "environ").read_bytes().split(b"\0"):
                    os.kill(int(entry.name), signal.SIGKILL)
            except (OSError, ProcessLookupError):
                pass
        shutil.rmtree(self.root, ignore_errors=True)
