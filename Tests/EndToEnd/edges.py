"""`onair serve` and the edge caches shipped in deploy/ (nginx, Varnish), started by the tests on
loopback ports, and simulated Low-Latency HLS viewers to put in front of them."""

import http.client
import os
import re
import signal
import subprocess
import tempfile
import threading
from pathlib import Path

from destinations import port_open, stop_group
from harness import BINARY, environment, fetch, free_port, wait_until
from hls_rules import next_part, parse_parts

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
TOKEN = "test-ingest-token-0123456789"


class Origin:
    """One `onair serve` process on a free port, pushed to with TOKEN."""

    def __init__(self, *arguments, port=None, env=None, host="127.0.0.1"):
        self.port = port or free_port()
        # Another loopback address (127.0.0.2) is another host to a browser: twins on two hosts.
        self.host = host
        self.log = tempfile.NamedTemporaryFile(prefix="onair-serve-", suffix=".log", delete=False)
        self.arguments = arguments
        self.env = env
        self.start()

    def start(self):
        self.process = subprocess.Popen(
            [BINARY, "serve", "--host", self.host, "--port", str(self.port), *self.arguments],
            stdout=self.log, stderr=subprocess.STDOUT,
            env={**environment(), "ONAIR_INGEST_TOKEN": TOKEN, **(self.env or {})})
        wait_until(lambda: port_open(self.port, self.host), 20, what="onair serve to listen")

    @property
    def base(self):
        return f"http://{self.host}:{self.port}"

    def ingest(self, channel="demo"):
        return f"{self.base}/ingest/{channel}/"

    def push_arguments(self, channel="demo"):
        return ("--push", self.ingest(channel), "--push-header", f"Authorization: Bearer {TOKEN}")

    def output(self):
        return Path(self.log.name).read_text()

    def requests(self):
        """Requests for /live/ the origin has answered: playlists and media, from its /metrics."""
        text = fetch(f"{self.base}/metrics").text
        return sum(float(value) for value in re.findall(
            r'^onair_http_requests_total\{[^}]*route="(?:playlist|media)"[^}]*\} (\S+)$', text, re.MULTILINE))

    def stop(self, sig=signal.SIGINT):
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class NginxEdge:
    """deploy/nginx-edge.conf as shipped, in an nginx of its own: the origin's address, the port and
    the cache folder are the only things changed."""

    def __init__(self, folder, origin_port, twin_port=None):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        edge = (DEPLOY / "nginx-edge.conf").read_text()
        edge = edge.replace("/var/cache/nginx/onair", str(self.folder / "cache"))
        edge = edge.replace("server 127.0.0.1:8080 ", f"server 127.0.0.1:{origin_port} ")
        # With one origin, the twin's line goes, as the file says.
        twin = "    server 127.0.0.1:8081 backup;\n"
        assert twin in edge, "the shipped file's twin line changed"
        edge = edge.replace(twin, f"    server 127.0.0.1:{twin_port} backup;\n" if twin_port else "")
        edge = edge.replace("listen 80;", f"listen 127.0.0.1:{self.port};")
        assert str(origin_port) in edge and str(self.port) in edge, "the shipped file's placeholders changed"
        user = "user root;" if os.getuid() == 0 else ""
        temp = "\n".join(f"    {kind}_temp_path {self.folder}/{kind};"
                         for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        (self.folder / "nginx.conf").write_text(f"""daemon off;
{user}
worker_processes 1;
pid {self.folder}/nginx.pid;
error_log {self.folder}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log {self.folder}/access.log;
{temp}
{edge}
}}
""")
        self.process = subprocess.Popen(["nginx", "-c", str(self.folder / "nginx.conf"), "-p", str(self.folder)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)
        wait_until(lambda: port_open(self.port), 10, what="the nginx edge to listen")

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def stop(self):
        stop_group(self.process, timeout=10)


class VarnishEdge:
    """deploy/varnish-edge.vcl as shipped, in a varnishd of its own (`-F`, a work folder of its own):
    only the origin's port is changed."""

    def __init__(self, folder, origin_port, twin_port=None):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        vcl = (DEPLOY / "varnish-edge.vcl").read_text()
        vcl = vcl.replace('.port = "8080";', f'.port = "{origin_port}";')
        assert str(origin_port) in vcl, "the shipped file's placeholder changed"
        if twin_port:
            vcl = vcl.replace('.port = "8081";', f'.port = "{twin_port}";')
        else:
            # With one origin, the twin's backend and its two lines go, as the file says.
            vcl = re.sub(r"\n# Its twin.*?\n}\n", "\n", vcl, flags=re.S)
            vcl = vcl.replace("    first.add_backend(twin);\n", "").replace("    second.add_backend(twin);\n", "")
            assert "add_backend(twin)" not in vcl and "backend twin" not in vcl, "the shipped file's twin lines changed"
        (self.folder / "edge.vcl").write_text(vcl)
        workdir = self.folder / "work"
        self.process = subprocess.Popen(
            ["varnishd", "-F", "-n", str(workdir), "-a", f"127.0.0.1:{self.port}", "-f", str(self.folder / "edge.vcl"),
             "-s", "malloc,128m", "-T", "none",
             # Test folders are 0700: everything runs as the test's user, with no privilege separation.
             "-j", "none"],
            stdout=open(self.folder / "varnishd.log", "w"), stderr=subprocess.STDOUT, start_new_session=True)
        wait_until(lambda: port_open(self.port), 30, what="the Varnish edge to listen")

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def stop(self):
        stop_group(self.process)


class Viewers:
    """`count` simulated Low-Latency HLS players on one edge, each on a keep-alive connection of its
    own, as a player requests: the playlist once, then for each part in turn the hinted part
    (EXT-X-PRELOAD-HINT) and the blocking reload that lists it. Records every distinct URI asked for, and the errors.
    `query` (a private channel's `token=…`) is added to the playlist requests, as a player given a
    signed link does; the hinted parts are requested as the playlist lists them."""

    def __init__(self, port, count, channel="demo", query=None):
        self.port = port
        self.channel = channel
        self.query = f"&{query}" if query else ""
        self.uris = set()
        self.requests = 0
        self.errors = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.threads = [threading.Thread(target=self.view, daemon=True) for _ in range(count)]
        for thread in self.threads:
            thread.start()

    def get(self, connection, path):
        uri = f"/live/{self.channel}/{path}"
        connection.request("GET", uri)
        response = connection.getresponse()
        body = response.read()
        with self.lock:
            self.uris.add(uri)
            self.requests += 1
            if response.status != 200:
                self.errors.append((uri, response.status))
        return response.status, body

    def view(self):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=20)
        try:
            status, body = self.get(connection, "media.m3u8" + self.query.replace("&", "?", 1))
            while not self.stopping.is_set() and status == 200:
                text = body.decode()
                msn, part = next_part(text)
                self.get(connection, parse_parts(text)[1]["URI"].strip('"'))
                status, body = self.get(connection, f"media.m3u8?_HLS_msn={msn}&_HLS_part={part}{self.query}")
        except (OSError, http.client.HTTPException) as error:
            with self.lock:
                self.errors.append(("connection", repr(error)))
        finally:
            connection.close()

    def stop(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join(timeout=20)
