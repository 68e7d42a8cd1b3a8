"""Real browsers for the page tests: Debian's headless Chromium, driven by Selenium, and Debian's
Firefox ESR, driven over Marionette, Firefox's own remote protocol (Debian has no geckodriver for
WebDriver; PyPI's marionette-driver, Mozilla's client, is installed by scripts/setup.sh)."""

import base64
import http.server
import sys
import tempfile
import threading
import warnings
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from harness import free_port, wait_until

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "artifacts"


def start_chromium(width=1280, height=900):
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--autoplay-policy=no-user-gesture-required", f"--window-size={width},{height}",
                     # The HTTPS tests use a certificate made on the spot.
                     "--ignore-certificate-errors"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


class Firefox:
    """Headless Firefox ESR with a fresh profile. `get`, `execute_script` (run in the page, as a
    WebDriver's scripts are), `save_screenshot` and `quit`, as Selenium's Chromium driver has them."""

    def __init__(self, width, height):
        # marionette-driver lives in the tools' venv (scripts/setup.sh), made from this interpreter.
        for site in sorted((ROOT / ".tools/venv/lib").glob("python3*/site-packages")):
            if str(site) not in sys.path:
                sys.path.append(str(site))
        with warnings.catch_warnings():
            # mozrunner imports telnetlib (for Android emulators), which Python 3.11 deprecates.
            warnings.simplefilter("ignore", DeprecationWarning)
            from marionette_driver.marionette import Marionette
        self.log = Path(tempfile.mkstemp(prefix="onair-gecko-", suffix=".log")[1])
        self.client = Marionette(bin="/usr/bin/firefox-esr", headless=True, port=free_port(),
                                 gecko_log=str(self.log))
        self.client.start_session()
        self.client.set_window_rect(width=width, height=height)

    def get(self, url):
        self.client.navigate(url)

    def execute_script(self, script, *arguments):
        return self.client.execute_script(script, script_args=list(arguments), sandbox=None)

    def save_screenshot(self, path):
        Path(path).write_bytes(base64.b64decode(self.client.screenshot()))

    def quit(self):
        profile = self.client.instance.profile if self.client.instance else None
        try:
            self.client.delete_session()
        finally:
            self.client.cleanup()
            if profile is not None:
                # Removed with Firefox; not again when Python exits.
                profile.restore = False
            self.log.unlink(missing_ok=True)


def start_firefox(width=1280, height=900):
    return Firefox(width, height)


def assert_snippet_plays_on_another_site(driver, snippet, width, engine, within=7, screenshot=None):
    """A blog on another site holding `snippet`: its video plays 3 s within `within` s, `width`
    wide, with the player's `engine`; `screenshot` names the picture saved meanwhile."""
    site = OtherOrigin(f"""<!doctype html><html><head><link rel="icon" href="data:,"><title>a blog</title></head>
        <body><h1>My blog</h1>{snippet}</body></html>""")
    try:
        driver.get(site.url)
        video = "document.querySelector('video')"
        wait_until(lambda: driver.execute_script(f"return {video}.currentTime") > 0.1, 30, interval=0.1,
                   what="the video to play")
        start = driver.execute_script(f"return {video}.currentTime")
        wait_until(lambda: driver.execute_script(f"return {video}.currentTime") - start >= 3, within, interval=0.1,
                   what="3 s of playback")
        assert driver.execute_script(f"return {video}.videoWidth") == width
        assert driver.execute_script(f"return {video}.onairPlayer.engine") == engine
        if screenshot:
            save_screenshot(driver, screenshot)
    finally:
        site.close()


def console_errors(driver):
    """The page's console errors (and failed loads) since the last call."""
    return [entry["message"] for entry in driver.get_log("browser") if entry["level"] == "SEVERE"]


def player_status(driver):
    """What the page's player shows now."""
    return driver.execute_script("""
        const p = window.onair, v = p.video;
        return {engine: p.engine, state: p.state, time: v.currentTime, width: v.videoWidth,
                height: v.videoHeight, paused: v.paused, ended: v.ended, latency: p.latency(),
                problem: p.problem};""")


def time_code_reader(driver):
    """Loads the time code reader (/web/timecode.js) into the page; returns a function giving the
    wall time drawn into the picture on screen, in seconds (None while none can be read)."""
    driver.execute_script(
        "const s = document.createElement('script'); s.src = '/web/timecode.js'; document.head.append(s)")
    wait_until(lambda: driver.execute_script("return typeof OnairTimeCode !== 'undefined'"), 5, what="timecode.js")

    def shown():
        wall = driver.execute_script("return OnairTimeCode.read(window.onair.video)")
        return wall / 1000 if wall is not None else None
    return shown


def assert_played_through(driver, generation):
    """The player plays, with no problem shown, and never started over (its generation is the same)."""
    status = player_status(driver)
    assert status["problem"] is None and not status["paused"], status
    assert driver.execute_script("return window.onair.generation") == generation, "played through, not restarted"


def save_screenshot(driver, name):
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    driver.save_screenshot(str(path))
    return path


class OtherOrigin:
    """A web server on its own port serving one page: another site embedding the player."""

    def __init__(self, html):
        body = html.encode()

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):
                self.send_response(200 if self.path == "/" else 404)
                self.send_header("Content-Type", "text/html; charset=utf-8")
                self.send_header("Content-Length", str(len(body) if self.path == "/" else 0))
                self.end_headers()
                if self.path == "/":
                    self.wfile.write(body)

            def log_message(self, *arguments):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self):
        # "localhost" where the player is served from 127.0.0.1: another host and port, so another origin.
        return f"http://localhost:{self.server.server_address[1]}/"

    def close(self):
        self.server.shutdown()
        self.server.server_close()
