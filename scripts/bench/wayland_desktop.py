"""Starts the tests' headless Wayland desktop (Tests/EndToEnd/wayland.py) for a benchmark, with
ffplay showing testsrc2 over the whole output, and keeps it until stdin closes.

    wayland_desktop.py WIDTH HEIGHT FOLDER

Writes FOLDER/env (the session's variables, for `env`), FOLDER/user (the setpriv prefix),
FOLDER/binary (onair as the session user can run it) and FOLDER/pids (the desktop's processes:
sway, the portals, PipeWire), then prints "ok".
"""

import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "Tests/EndToEnd"))
from harness import wait_until  # noqa: E402
from wayland import WaylandDesktop  # noqa: E402

width, height, folder = int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])
desktop = WaylandDesktop(width, height)
try:
    player = subprocess.Popen(desktop.as_user("ffplay", "-v", "error", "-an", "-noborder", "-f", "lavfi",
                                              f"testsrc2=size={width}x{height}:rate=30"),
                              env={**desktop.env, "SDL_VIDEODRIVER": "wayland"}, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    wait_until(lambda: "testsrc2" in desktop.run("swaymsg", "-t", "get_tree").stdout, 20, what="ffplay's window")
    (folder / "env").write_text("".join(f"{key}={value}\n" for key, value in desktop.env.items()))
    (folder / "user").write_text(" ".join(desktop.as_user()) + "\n")
    (folder / "binary").write_text(f"{desktop.binary}\n")
    (folder / "pids").write_text("".join(f"{name} {process.pid}\n" for name, process in desktop.processes
                                         if name in ("sway", "portal-wlr", "pipewire", "wireplumber")))
    print("ok", flush=True)
    sys.stdin.read()
    player.terminate()
    player.wait()
finally:
    desktop.stop()
