"""Sharing a Wayland desktop through the ScreenCast portal: a real headless sway, PipeWire, and
xdg-desktop-portal with its wlroots backend (wayland.py). What a viewer decodes shows the screen."""

import os
import shutil
import signal
import stat
import subprocess
import tempfile
from pathlib import Path

import pytest

from harness import Publisher, init_name, run_onair, wait_until
from hls_rules import MediaPlaylist, check_media_playlist
from wayland import WaylandDesktop

RED, GREEN, BLUE = (255, 0, 0), (0, 255, 0), (0x12, 0x34, 0x56)
BLACK = (0, 0, 0)


@pytest.fixture(scope="module")
def desktop():
    session = WaylandDesktop(640, 480)
    yield session
    session.stop()


@pytest.fixture
def state(desktop):
    """A fresh place for the portal's restore tokens: each test starts with no remembered choice."""
    folder = Path(tempfile.mkdtemp(prefix="state-", dir=desktop.home))
    os.chown(folder, 65534, 65534)
    return {"XDG_STATE_HOME": str(folder)}


def near(colour, expected, tolerance=14):
    return all(abs(a - b) <= tolerance for a, b in zip(colour, expected))


class Picture:
    """The last frame of the newest segment a publisher lists, decoded."""

    def __init__(self, publisher):
        text = publisher.get("media.m3u8").text
        playlist = MediaPlaylist(text)
        data = publisher.get(init_name(text)).body + publisher.get(playlist.segments[-1]["uri"]).body
        probe = subprocess.run(["ffprobe", "-v", "error", "-count_packets", "-select_streams", "v",
                                "-show_entries", "stream=width,height,nb_read_packets", "-of", "csv=p=0", "-"],
                               input=data, capture_output=True, check=True).stdout.decode().strip()
        self.width, self.height, self.frames = map(int, probe.split(","))
        self.rgb = subprocess.run(["ffmpeg", "-v", "error", "-i", "-", "-vf", f"select=eq(n\\,{self.frames - 1})",
                                   "-frames:v", "1", "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], input=data,
                                  capture_output=True, check=True).stdout
        self.sequence = playlist.sequence + len(playlist.segments) - 1

    def __call__(self, x, y):
        offset = (y * self.width + x) * 3
        return tuple(self.rgb[offset:offset + 3])


def shows(publisher, check, what, timeout=20):
    """Waits for a newly published segment whose last picture passes `check`; returns that picture."""
    def newest():
        picture = Picture(publisher)
        return picture if check(picture) else None
    return wait_until(newest, timeout, interval=0.5, what=what)


def test_colours_painted_on_the_screen_reach_the_stream(desktop, state):
    desktop.paint("#000000")
    publisher = desktop.publisher("--source", "portal", "--audio", "test", "--frame-rate", "constant", env=state)
    try:
        # A still screen sends no picture at all: the broadcast starts anyway, and keeps its rate
        # (the constant one asked for here; test_cadence has the screen-following one).
        publisher.wait_for_segments(2)
        for colour, rgb in [("#ff0000", RED), ("#123456", BLUE), ("#00ff00", GREEN)]:
            desktop.paint(colour)
            picture = shows(publisher, lambda p: near(p(320, 240), rgb) and near(p(5, 5), rgb)
                            and near(p(634, 474), rgb), f"{colour} in the stream")
            assert (picture.width, picture.height) == (640, 480)
            assert picture.frames == 60, "a constant 30 fps, repeats filling the still moments"
        check_media_playlist(MediaPlaylist(publisher.get("media.m3u8").text), "fmp4", 6)
    finally:
        assert publisher.stop() == 0, publisher.output()
    output = publisher.output()
    assert "sharing a 640x480 screen through the desktop's portal" in output
    assert "[capture_interrupted]" not in output


def test_a_window_appears_where_it_is_and_moves_without_leaving_a_trace(desktop, state):
    desktop.paint("#ff0000")
    publisher = desktop.publisher("--source", "portal", "--audio", "none", env=state)
    try:
        publisher.wait_for_segments(1)
        desktop.window("00ff00", 100, 80, 200, 120, app_id="onair-green")
        # The compositor may show a new window at another size for a moment before the one asked
        # for: the stream must come to show it in its place, corners in and the screen around it.
        shows(publisher, lambda p: near(p(200, 140), GREEN) and near(p(104, 84), GREEN)
              and near(p(295, 195), GREEN) and near(p(95, 140), RED) and near(p(305, 140), RED)
              and near(p(200, 75), RED), "the window in its place in the stream")
        desktop.place("onair-green", 400, 300, 200, 120)
        picture = shows(publisher, lambda p: near(p(500, 360), GREEN), "the window at its new place")
        assert near(picture(200, 140), RED), "nothing stale where the window was"
    finally:
        desktop.run("swaymsg", '[app_id="onair-green"] kill', check=False)
        assert publisher.stop() == 0, publisher.output()


def test_a_region_of_the_screen_is_published_alone(desktop, state):
    desktop.paint("#ff0000")
    desktop.window("00ff00", 100, 80, 200, 120, app_id="onair-region")
    publisher = desktop.publisher("--source", "portal:region:200x120+100+80", "--audio", "none", env=state)
    try:
        publisher.wait_for_segments(1)
        desktop.paint("#ff0000")  # a change, so the compositor sends a picture
        picture = shows(publisher, lambda p: near(p(100, 60), GREEN), "the region in the stream")
        assert (picture.width, picture.height) == (200, 120)
        for point in [(2, 2), (197, 2), (2, 117), (197, 117)]:
            assert near(picture(*point), GREEN), f"{point}: {picture(*point)}"
    finally:
        desktop.run("swaymsg", '[app_id="onair-region"] kill', check=False)
        assert publisher.stop() == 0, publisher.output()
    assert "sharing the 200x120+100+80 region of a 640x480 screen through the desktop's portal" in publisher.output()
    outside = desktop.onair("publish", "--source", "portal:region:800x600+0+0", "--audio", "none", env=state)
    assert outside.returncode == 2
    assert outside.stderr.strip().splitlines()[-1] == "onair: region 800x600+0+0 is not inside the 640x480 screen"


def test_a_new_screen_size_is_fitted_into_the_same_output(desktop, state):
    desktop.paint("#00ff00")
    publisher = desktop.publisher("--source", "portal", "--audio", "none", env=state)
    try:
        publisher.wait_for_segments(1)
        desktop.run("swaymsg", "output", "HEADLESS-1", "resolution", "1280x480")
        desktop.paint("#00ff00")
        # 1280x480 in 640x480: the picture 640x240, bars of 120 rows above and below.
        picture = shows(publisher, lambda p: near(p(320, 20), BLACK) and near(p(320, 240), GREEN),
                        "the wider screen letterboxed")
        assert (picture.width, picture.height) == (640, 480)
        assert near(picture(320, 460), BLACK) and near(picture(5, 240), GREEN) and near(picture(634, 240), GREEN)
    finally:
        desktop.run("swaymsg", "output", "HEADLESS-1", "resolution", "640x480")
        assert publisher.stop() == 0, publisher.output()


def test_the_choice_is_remembered_so_a_restart_does_not_ask_again(desktop, state):
    runs = lambda: desktop.chooser_log.read_text().count("run") if desktop.chooser_log.exists() else 0
    before = runs()
    first = desktop.publisher("--source", "portal", "--audio", "none", "--duration", "2s", env=state)
    assert first.process.wait(timeout=60) == 0, first.output()
    assert runs() == before + 1, "the first start asks"
    token = Path(state["XDG_STATE_HOME"], "onair/wayland.portal-screen.token")
    assert token.read_text().strip() and stat.S_IMODE(token.stat().st_mode) == 0o600
    desktop.paint("#123456")
    second = desktop.publisher("--source", "portal", "--audio", "none", env=state)
    try:
        second.wait_for_segments(1)
        desktop.paint("#ff0000")
        shows(second, lambda p: near(p(320, 240), RED), "the restarted broadcast's picture")
    finally:
        assert second.stop() == 0, second.output()
    assert runs() == before + 1, "the restart did not ask"
    assert "the screen chosen last time" in second.output()
    assert token.read_text().strip(), "the token the portal gave back is kept"
    # Another channel does not take this one's choice: it asks, and keeps its own.
    other = desktop.publisher("--source", "portal", "--audio", "none", "--duration", "2s", channel="second", env=state)
    assert other.process.wait(timeout=60) == 0, other.output()
    assert runs() == before + 2, "another channel asks"
    assert "answer its dialog" in other.output()
    assert Path(state["XDG_STATE_HOME"], "onair/second.portal-screen.token").read_text().strip()


def test_on_a_wayland_session_the_screen_is_shared_through_the_portal_by_default(desktop, state):
    publisher = desktop.publisher("--audio", "none", "--duration", "2s", env=state)
    assert publisher.process.wait(timeout=60) == 0, publisher.output()
    assert "through the desktop's portal" in publisher.output()


@pytest.mark.parametrize("cursor", [True, False], ids=["cursor", "no-cursor"])
def test_the_pointer_is_asked_drawn_in_unless_asked_not_to(desktop, state, cursor):
    """A headless sway has no pointer to draw: what onair asked the portal for is read from its log."""
    log = desktop.root / "logs/portal-wlr.log"
    before = log.read_text().count("dbus: option cursor_mode:")
    publisher = desktop.publisher("--source", "portal", "--audio", "none", "--duration", "1s",
                                  *([] if cursor else ["--no-cursor"]), env=state)
    assert publisher.process.wait(timeout=60) == 0, publisher.output()
    asked = [line.split("cursor_mode:")[1].strip() for line in log.read_text().splitlines()
             if "dbus: option cursor_mode:" in line][before:]
    assert asked == (["2"] if cursor else ["1"]), "embedded (2), or hidden (1)"


def test_devices_says_what_the_portal_offers(desktop):
    result = desktop.onair("devices")
    assert result.returncode == 0, result.stderr
    assert ("screen-sharing portal (--source portal): screens, the pointer drawn in, "
            "remembers the choice for unattended restarts (ScreenCast version 4)") in result.stdout


def test_a_refusal_and_what_the_portal_does_not_offer_are_one_line_and_status_2(desktop, state):
    desktop.chooser_answer.write_text("refuse")
    try:
        refused = desktop.onair("publish", "--source", "portal", "--audio", "none", env=state)
    finally:
        desktop.chooser_answer.unlink()
    assert refused.returncode == 2
    assert refused.stderr.strip().splitlines()[-1] == (
        "onair: screen sharing was refused in the desktop's dialog: run again and choose what to share")
    window = desktop.onair("publish", "--source", "portal:window", "--audio", "none", env=state)
    assert window.returncode == 2 and len(window.stderr.strip().splitlines()) == 1
    assert "does not share windows" in window.stderr


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_while_the_dialog_is_open_says_nothing_was_shared(desktop, state, sig):
    runs = desktop.chooser_log.read_text().count("run") if desktop.chooser_log.exists() else 0
    desktop.chooser_answer.write_text("hold")
    try:
        publisher = desktop.publisher("--source", "portal", "--audio", "none", env=state)
        # The wlroots portal opens its dialog (runs its chooser) on SelectSources: the notice says
        # so while it is open, not once it is answered.
        wait_until(lambda: desktop.chooser_log.exists() and desktop.chooser_log.read_text().count("run") > runs, 30,
                   what="the dialog open")
        wait_until(lambda: "answer its dialog" in publisher.output(), 10, what="the notice while the dialog is open")
        assert publisher.stop(sig) == 128 + sig, publisher.output()
    finally:
        desktop.chooser_answer.unlink()
        # The dialog closes before the next test opens one (it would hold that one too).
        wait_until(lambda: desktop.chooser_log.read_text().count("answered") == desktop.chooser_log.read_text().count("run"),
                   10, what="the dialog closed")
    lines = publisher.output().strip().splitlines()
    assert lines[-1] == "onair: stopped while the desktop's dialog was open: nothing was shared", lines


def test_stopping_the_share_from_the_desktop_ends_the_broadcast_cleanly():
    desktop = WaylandDesktop(640, 480)
    try:
        hls = desktop.home / "hls"
        publisher = desktop.publisher("--source", "portal", "--audio", "test", "--hls-dir", str(hls))
        publisher.wait_for_segments(2)
        desktop.stop_sharing()
        assert publisher.process.wait(timeout=30) == 0, publisher.output()
        output = publisher.output()
        assert "[capture_interrupted] screen sharing ended (the desktop stopped the stream)" in output
        assert "[stopped]" in output
        media = hls / "live/wayland"
        playlist = MediaPlaylist((media / "media.m3u8").read_text())
        assert playlist.ended, "the playlist is closed"
        for segment in playlist.segments:
            assert (media / segment["uri"]).stat().st_size > 0
        assert not [p.name for p in media.iterdir() if p.name.endswith(".tmp")], "nothing half-written"
    finally:
        desktop.stop()


@pytest.fixture
def bare_bus(tmp_path):
    """A session bus with no portal on it."""
    address = f"unix:path={tmp_path}/bus"
    process = subprocess.Popen(["dbus-daemon", "--session", f"--address={address}", "--nofork", "--nopidfile"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: (tmp_path / "bus").exists(), 10, what="the bus")
    yield address
    process.terminate()
    process.wait()


@pytest.mark.parametrize("arguments", [["--source", "portal"], ["--source", "screen"]], ids=["portal", "screen"])
def test_without_a_portal_the_error_says_what_to_install(bare_bus, arguments):
    result = run_onair("publish", *arguments, "--audio", "none",
                       env={"DBUS_SESSION_BUS_ADDRESS": bare_bus, "WAYLAND_DISPLAY": "wayland-9"})
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "no ScreenCast portal on the session bus: install xdg-desktop-portal" in result.stderr


def test_without_a_session_bus_the_error_says_where_to_run(tmp_path):
    result = run_onair("publish", "--source", "portal", "--audio", "none",
                       env={"DBUS_SESSION_BUS_ADDRESS": f"unix:path={tmp_path}/none", "XDG_RUNTIME_DIR": str(tmp_path)})
    assert result.returncode == 2 and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "no D-Bus session bus" in result.stderr


def test_a_wayland_session_without_a_portal_falls_back_with_a_notice(bare_bus):
    publisher = Publisher("--audio", "none", "--duration", "1s",
                          env={"DBUS_SESSION_BUS_ADDRESS": bare_bus, "WAYLAND_DISPLAY": "wayland-9"})
    assert publisher.process.wait(timeout=60) == 0, publisher.output()
    assert "a Wayland session, but no ScreenCast portal on the session bus" in publisher.output()
