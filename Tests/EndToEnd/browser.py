"""A real browser for the page tests: Debian's headless Chromium, driven by Selenium."""

import http.server
import threading
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

from harness import wait_until

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"


def start_chromium(width=1280, height=900):
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                     "--autoplay-policy=no-user-gesture-required", f"--window-size={width},{height}",
                     # The HTTPS tests use a certificate made on the spot.
                     "--ignore-certificate-errors"):
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


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
