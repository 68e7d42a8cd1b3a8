"""Runs the real onair binary and fetches what a viewer would, for the end-to-end tests."""

import gzip
import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

BINARY = os.environ.get("ONAIR_BINARY") or str(Path(__file__).resolve().parents[2] / ".build/debug/onair")
# Control tokens are written here rather than into the home folder.
STATE_HOME = tempfile.mkdtemp(prefix="onair-state-")


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def frame_counts(output):
    """A publisher's stop line's frame counts: captured, repeated, dropped, encoded."""
    found = re.search(r"(\d+) frames captured, (\d+) repeated, (\d+) dropped, (\d+) encoded", output)
    assert found, "the stop line's frame counts"
    return tuple(map(int, found.groups()))


def wait_until(condition, timeout, interval=0.05, what="condition"):
    """Polls `condition` until it returns a truthy value; fails after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(interval)


class Response:
    def __init__(self, status, headers, body):
        self.status = status
        self.headers = {k.lower(): v for k, v in headers.items()}
        self.body = body

    @property
    def text(self):
        return self.body.decode()

    def json(self):
        return json.loads(self.body)


def read_line(stream, timeout, what="a line"):
    """The next line of a child's pipe, waited for at most `timeout` seconds: a child that hangs
    fails the test that waits on it instead of holding the run."""
    import select
    ready, _, _ = select.select([stream], [], [], timeout)
    assert ready, f"no {what} within {timeout} s"
    return stream.readline()


def fetch(url, headers=None, method="GET", body=None):
    request = urllib.request.Request(url, headers=headers or {}, method=method, data=body)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return Response(response.status, dict(response.headers), response.read())
    except urllib.error.HTTPError as error:
        return Response(error.code, dict(error.headers), error.read())
    except (urllib.error.URLError, ConnectionError):
        return None


class Publisher:
    """One `onair publish` process on a free port."""

    def __init__(self, *arguments, channel="demo", display=None, env=None, cwd=None, prefix=(), binary=BINARY):
        """`prefix`: a command to run it under (`taskset`, `nice`, another user)."""
        self.channel = channel
        self.port = free_port()
        self.log = tempfile.NamedTemporaryFile(prefix="onair-", suffix=".log", delete=False)
        self.process = subprocess.Popen(
            [*prefix, binary, "publish", "--channel", channel, "--port", str(self.port), "--host", "127.0.0.1", *arguments],
            stdout=self.log, stderr=subprocess.STDOUT, env={**environment(display), **(env or {})}, cwd=cwd)

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def url(self, name):
        return f"{self.base}/live/{self.channel}/{name}"

    def get(self, name, **kwargs):
        return fetch(self.url(name), **kwargs)

    def wait_for_segments(self, count, timeout=30):
        def listed():
            response = self.get("media.m3u8")
            return response and response.status == 200 and response.text.count("#EXTINF") >= count
        wait_until(listed, timeout, what=f"{count} segments listed")

    def first_sequence(self, timeout=30):
        """The number of the broadcast's first segment, as its start says: numbered on the epoch, or
        going on from an earlier run in its folder."""
        pattern = re.compile(r"numbering segments from (\d+)|continuing channel \S+ after an earlier run: its next segment is (\d+)")
        found = wait_until(lambda: pattern.search(self.output()), timeout, what="the first segment's number")
        return int(found.group(1) or found.group(2))

    def stop(self, sig=signal.SIGINT, timeout=20):
        if self.process.poll() is None:
            self.process.send_signal(sig)
        return self.process.wait(timeout=timeout)

    def output(self):
        return Path(self.log.name).read_text()

    def token(self):
        """The control token the publisher wrote for its channel."""
        return Path(STATE_HOME, "onair", f"{self.channel}.token").read_text().strip()

    def control(self, action="", token=None, method="POST"):
        """A control API request: `control("pause")`, or `control(method="GET")` for the state."""
        path = f"{self.base}/api/channels/{self.channel}" + (f"/{action}" if action else "")
        return fetch(path, headers={"Authorization": f"Bearer {token or self.token()}"}, method=method)

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def environment(display=None):
    """The tests' environment: no display unless a test starts one (the test pattern is the default then)."""
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    env["XDG_STATE_HOME"] = STATE_HOME
    # A crash's backtrace unwinds through C libraries without frame pointers too (libc, Xlib).
    env.setdefault("SWIFT_BACKTRACE", "unwind=precise")
    if display:
        env["DISPLAY"] = display
    return env


def run_onair(*arguments, timeout=60, display=None, env=None):
    return subprocess.run([BINARY, *arguments], capture_output=True, text=True, timeout=timeout,
                          env={**environment(display), **(env or {})})


def assert_refused(result, message):
    """Bad input: exit status 2 and one line, `onair: …` with `message` in it."""
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("onair: ") and message in lines[0], result.stderr


def ffprobe(path, *entries):
    """ffprobe's JSON for a file: streams, and packets when asked."""
    command = ["ffprobe", "-v", "error", "-of", "json", "-show_streams", *entries, str(path)]
    return json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)


def gunzip(body):
    return gzip.decompress(body)


def make_certificate(folder):
    """A self-signed certificate for localhost and 127.0.0.1: (cert.pem, key.pem) in `folder`."""
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=localhost",
                    "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
                    "-keyout", str(folder / "key.pem"), "-out", str(folder / "cert.pem")],
                   check=True, capture_output=True)
    return folder / "cert.pem", folder / "key.pem"


def segment_files(media, extension="m4s"):
    """The segment files in a channel's folder, in their order. Their numbers follow the broadcast's
    start on the epoch (one past its slot of a segment's length since 1970), not 0."""
    def number(path):
        return int(path.name[3:].split(".")[0])
    return sorted(media.glob(f"seg*.{extension}"), key=number)


def first_segment(media, extension="m4s"):
    """The first segment written in a channel's folder, or None before it."""
    files = segment_files(media, extension)
    return files[0] if files else None


def init_segment(media):
    """The bytes of a channel folder's init segment: `init<N>.mp4` after the run's first segment N
    (`init.mp4` only for a stream numbered from 0)."""
    files = sorted(media.glob("init*.mp4"))
    assert len(files) == 1, f"one init segment in {media}: {[f.name for f in files]}"
    return files[0].read_bytes()


def init_name(playlist_text):
    """The init segment a media playlist's newest EXT-X-MAP names."""
    return re.findall(r'#EXT-X-MAP:URI="([^"]+)"', playlist_text)[-1]


def first_number(media, extension="m4s"):
    """The number of the first segment written in a channel's folder."""
    return int(first_segment(media, extension).name[3:].split(".")[0])


def segment_picture(media, sequence, width, height, frame=15):
    """A picture of segment number `sequence` in a channel's folder: the one shown at its 16th frame
    slot (30 fps) by default. A screen's frames follow what changes on it, so the picture shown at a
    slot is the newest one at or before it. As a function from (x, y) to (r, g, b)."""
    data = init_segment(media) + (media / f"seg{sequence}.m4s").read_bytes()
    times = [float(line.split(",")[0]) for line in subprocess.run(
        ["ffprobe", "-v", "error", "-select_streams", "v", "-show_entries", "frame=pts_time", "-of", "csv=p=0", "-"],
        input=data, capture_output=True, check=True).stdout.decode().split()]
    shown = max(index for index, time in enumerate(times) if time <= times[0] + frame / 30 + 0.001)
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", "-", "-vf", f"select=eq(n\\,{shown})", "-frames:v", "1",
                          "-f", "rawvideo", "-pix_fmt", "rgb24", "-"], input=data, capture_output=True,
                         check=True).stdout
    assert len(raw) == width * height * 3, f"seg{sequence}: {len(raw)} bytes"
    return lambda x, y: tuple(raw[(y * width + x) * 3:(y * width + x) * 3 + 3])
