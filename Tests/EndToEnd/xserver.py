"""A real X server (Xvfb) and windows on it, for the screen-capture tests."""

import os
import subprocess
import sys
from pathlib import Path

from harness import read_line, wait_until

HERE = Path(__file__).resolve().parent


class XServer:
    def __init__(self, width=1280, height=720, *options, display=None):
        """A new server on a free display number, or on `display` (to stand in for one that went away)."""
        read, write = os.pipe()
        self.process = subprocess.Popen(
            ["Xvfb", *([display] if display else []), "-displayfd", str(write), "-screen", "0",
             f"{width}x{height}x24", "-nolisten", "tcp", "-noreset", *options],
            pass_fds=[write], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(write)
        with os.fdopen(read) as pipe:
            self.display = ":" + read_line(pipe, 30, what="display number from Xvfb").strip()
        assert display is None or self.display == display, (display, self.display)
        self.windows = []

    def run(self, *command):
        return subprocess.run(command, env={**os.environ, "DISPLAY": self.display}, check=True,
                              capture_output=True, text=True)

    def window_tree(self):
        """`xwininfo -root -tree`'s listing, or "" when the walk failed: a window that goes away while
        xwininfo walks the tree (a player creating and reparenting its windows) makes it exit 1."""
        result = subprocess.run(["xwininfo", "-root", "-tree"], env={**os.environ, "DISPLAY": self.display},
                                capture_output=True, text=True)
        return result.stdout if result.returncode == 0 else ""

    def window(self, title, colour, geometry):
        window = Window(self, title, colour, geometry)
        self.windows.append(window)
        return window

    def stop(self):
        for window in self.windows:
            window.close()
        self.process.terminate()
        self.process.wait()


class Window:
    def __init__(self, server, title, colour, geometry):
        self.title = title
        # Debian's interpreter: tkinter comes from python3-tk.
        self.process = subprocess.Popen(
            ["/usr/bin/python3", str(HERE / "xwindow.py"), title, colour, geometry],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
            env={**os.environ, "DISPLAY": server.display})
        self.confirmed()
        wait_until(lambda: title in server.window_tree(), 10, what=f"window {title}")

    def confirmed(self):
        assert read_line(self.process.stdout, 30, what="window").strip() == "ok"

    def send(self, command):
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        self.confirmed()

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
