"""Real push destinations for the tests, started and stopped by them: nginx as a WebDAV ingest and
as an RTMP ingest (libnginx-mod-rtmp), SeaweedFS as S3-compatible storage, and a TCP proxy that
throttles what passes through it."""

import json
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path

from harness import fetch, free_port, wait_until

WEED = Path(__file__).resolve().parents[2] / ".tools/venv/bin/weed"


def stop_group(process, timeout=15):
    """SIGTERM to a process started in a session of its own and its children; SIGKILL after `timeout`."""
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def port_open(port, host="127.0.0.1"):
    with socket.socket() as sock:
        sock.settimeout(0.2)
        return sock.connect_ex((host, port)) == 0


class Nginx:
    """nginx on a loopback port. `webdav`: a WebDAV ingest over `root` (PUT/DELETE, CORS for
    players), which fails every request with 500 while the file `fail` exists in its folder.
    `rtmp`: an RTMP ingest that records each publication under `recordings`."""

    def __init__(self, folder, webdav=True, rtmp=False, port=None, rtmps=None):
        """`rtmps`: (certificate, key) for an RTMPS ingest on `tls_port` (TLS ended by nginx's
        stream module in front of the RTMP one)."""
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.root = self.folder / "root"
        self.recordings = self.folder / "recordings"
        self.root.mkdir(exist_ok=True)
        self.recordings.mkdir(exist_ok=True)
        self.fail_switch = self.folder / "fail"
        self.port = port or free_port()
        self.process = None
        modules = "load_module /usr/lib/nginx/modules/ngx_rtmp_module.so;" if rtmp else ""
        self.tls_port = free_port() if rtmps else None
        stream_block = ""
        if rtmps:
            modules += "\nload_module /usr/lib/nginx/modules/ngx_stream_module.so;"
            stream_block = f"""
stream {{
    server {{
        listen 127.0.0.1:{self.tls_port} ssl;
        ssl_certificate {rtmps[0]};
        ssl_certificate_key {rtmps[1]};
        proxy_pass 127.0.0.1:{self.port};
    }}
}}"""
        rtmp_block = f"""
rtmp {{
    server {{
        listen 127.0.0.1:{self.port};
        application live {{
            live on;
            record all;
            record_path {self.recordings};
            record_unique on;
        }}
    }}
}}""" if rtmp else ""
        http_block = f"""
http {{
    access_log {self.folder}/access.log;
    client_body_temp_path {self.folder}/body;
    proxy_temp_path {self.folder}/proxy;
    fastcgi_temp_path {self.folder}/fastcgi;
    uwsgi_temp_path {self.folder}/uwsgi;
    scgi_temp_path {self.folder}/scgi;
    types {{ application/vnd.apple.mpegurl m3u8; video/mp4 mp4 m4s; video/mp2t ts; }}
    server {{
        listen 127.0.0.1:{self.port};
        root {self.root};
        location / {{
            if (-f {self.fail_switch}) {{ return 500; }}
            dav_methods PUT DELETE;
            create_full_put_path on;
            client_max_body_size 64m;
            add_header Access-Control-Allow-Origin * always;
        }}
    }}
}}""" if webdav else ""
        # Test folders are 0700: the workers run as the test's user.
        user = "user root;" if os.getuid() == 0 else ""
        (self.folder / "nginx.conf").write_text(f"""{modules}
daemon off;
{user}
worker_processes 1;
pid {self.folder}/nginx.pid;
error_log {self.folder}/error.log warn;
events {{ worker_connections 512; }}
{http_block}
{rtmp_block}
{stream_block}
""")
        self.start()

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        self.process = subprocess.Popen(["nginx", "-c", str(self.folder / "nginx.conf"), "-p", str(self.folder)],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                                        start_new_session=True)
        wait_until(lambda: port_open(self.port), 10, what="nginx to listen")

    def kill(self):
        """SIGKILL to master and worker: the ingest dies mid-request."""
        if self.process and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()
        wait_until(lambda: not port_open(self.port), 10, what="nginx to be gone")

    def stop(self):
        if self.process:
            stop_group(self.process, timeout=10)

    def failing(self, on):
        if on:
            self.fail_switch.touch()
        elif self.fail_switch.exists():
            self.fail_switch.unlink()


class SeaweedFS:
    """`weed mini` on free loopback ports, with a bucket `live`, onair's credentials, and anonymous
    reads (so players fetch the stream from its S3 port)."""

    ACCESS_KEY = "onair-test-key"
    SECRET_KEY = "onair-test-secret"

    def __init__(self, folder):
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        config = self.folder / "s3.json"
        config.write_text(json.dumps({"identities": [
            {"name": "onair", "credentials": [{"accessKey": self.ACCESS_KEY, "secretKey": self.SECRET_KEY}],
             "actions": ["Admin", "Read", "Write", "List"]},
            {"name": "anonymous", "actions": ["Read:live"]},
        ]}))
        ports = {name: free_port() for name in ("master", "volume", "filer", "s3", "admin", "iceberg", "lance")}
        grpc = {name: free_port() for name in ("master", "volume", "filer", "s3", "admin")}
        self.port = ports["s3"]
        self.log = open(self.folder / "weed.log", "w")
        self.process = subprocess.Popen(
            [str(WEED), "mini", f"-dir={self.folder / 'data'}", "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
             "-master.telemetry=false", "-admin.ui=false", "-webdav=false", "-bucket=live",
             f"-s3.config={config}", f"-s3.port.iceberg={ports['iceberg']}", f"-s3.port.lance={ports['lance']}",
             *[f"-{name}.port={ports[name]}" for name in ("master", "volume", "filer", "s3", "admin")],
             *[f"-{name}.port.grpc={grpc[name]}" for name in grpc]],
            stdout=self.log, stderr=subprocess.STDOUT, start_new_session=True)
        # Ready once the bucket answers (403 to an anonymous listing: it exists, and auth is on).
        wait_until(lambda: (response := fetch(f"{self.base}/live/")) is not None and response.status in (200, 403),
                   90, interval=0.2, what="SeaweedFS's S3 gateway")

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def environment(self):
        return {"AWS_ENDPOINT_URL": self.base, "AWS_REGION": "us-east-1",
                "AWS_ACCESS_KEY_ID": self.ACCESS_KEY, "AWS_SECRET_ACCESS_KEY": self.SECRET_KEY}

    def stop(self):
        stop_group(self.process)
        self.log.close()


def hang_up(*sockets):
    """Closes both ends of a proxied connection, whatever state they are in."""
    for sock in sockets:
        try:
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        sock.close()


class ThrottlingProxy:
    """A TCP proxy to `upstream` that passes at most `rate` bytes a second from client to server
    while throttled (`rate` None: full speed). Connections it holds are kept alive as they come."""

    def __init__(self, upstream, rate=None):
        self.upstream = upstream
        self.rate = rate
        self.server = socket.socket()
        self.server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.server.bind(("127.0.0.1", 0))
        self.server.listen(64)
        self.port = self.server.getsockname()[1]
        self.closed = False
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while not self.closed:
            try:
                client, _ = self.server.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.upstream))
            except OSError:
                client.close()
                continue
            self.connected(client, upstream)

    def connected(self, client, upstream):
        threading.Thread(target=self.pipe, args=(client, upstream, True), daemon=True).start()
        threading.Thread(target=self.pipe, args=(upstream, client, False), daemon=True).start()

    def pipe(self, source, target, throttled):
        try:
            while True:
                rate = self.rate if throttled else None
                data = source.recv(1024 if rate else 65536)
                if not data:
                    break
                target.sendall(data)
                if rate:
                    time.sleep(len(data) / rate)
        except OSError:
            pass
        finally:
            hang_up(source, target)

    def close(self):
        self.closed = True
        self.server.close()


class ClosingProxy(ThrottlingProxy):
    """A TCP proxy to `upstream` that closes its first connection, unanswered, as the client's
    second request on it arrives: what a client sees when a server ends a kept-alive connection
    (its keep-alive timeout) at the moment the client sends on it. `cut` is set once it has."""

    def __init__(self, upstream):
        self.cut = threading.Event()
        self.first = None
        self.answered = False
        super().__init__(upstream)

    def connected(self, client, upstream):
        if self.first is not None:
            return super().connected(client, upstream)
        self.first = client
        threading.Thread(target=self.pipe_first, args=(client, upstream, True), daemon=True).start()
        threading.Thread(target=self.pipe_first, args=(upstream, client, False), daemon=True).start()

    def pipe_first(self, source, target, towards_server):
        try:
            while True:
                data = source.recv(65536)
                if not data:
                    break
                if towards_server and self.answered:
                    break  # a second request: closed without an answer
                target.sendall(data)
                if not towards_server:
                    self.answered = True
        except OSError:
            pass
        finally:
            hang_up(source, target)
            if towards_server and self.answered:
                self.cut.set()
