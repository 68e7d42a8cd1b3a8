#!/usr/bin/env bash
# Serving under load, side by side: wrk on loopback against a live channel's playlist and one of
# its segments served by onair, then against nginx serving the same files from onair's
# --hls-dir. Prints requests per second and p99 latency of each, with the ratios.
#
#   scripts/load.sh [seconds per run] [connections]      (default 10 s, 64 connections)
#
# Both servers run on this machine with wrk, each with as many workers as cores; no gzip on
# either side (wrk does not ask for it), HTTP/1.1 keep-alive.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
connections=${2:-64}
ONAIR_BUILD=release scripts/setup.sh >/dev/null
work=$(mktemp -d)
chmod 755 "$work"  # nginx's workers run as another user
cleanup() {
    [ -n "${onair_pid:-}" ] && kill "$onair_pid" 2>/dev/null && wait "$onair_pid" 2>/dev/null
    [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

onair_port=$(free_port)
nginx_port=$(free_port)
# A long playlist: the segment under load stays listed, and on disk, for the whole run.
"${ONAIR_BINARY:-.build/release/onair}" publish --channel load --host 127.0.0.1 --port "$onair_port" --playlist-size 60 \
    --hls-dir "$work/hls" --log-level warning >"$work/onair.log" 2>&1 &
onair_pid=$!
for _ in $(seq 100); do
    grep -q "seg1.m4s" "$work/hls/live/load/media.m3u8" 2>/dev/null && break
    sleep 0.2
done
grep -q "seg1.m4s" "$work/hls/live/load/media.m3u8" || { echo "load: onair did not publish" >&2; exit 1; }
segment=seg1.m4s

cat >"$work/nginx.conf" <<CONF
worker_processes $(nproc);
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 4096; }
http {
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    types { application/vnd.apple.mpegurl m3u8; video/mp4 m4s mp4; }
    server {
        listen 127.0.0.1:$nginx_port;
        root $work/hls;
        location ~ \.m3u8\$ { add_header Cache-Control no-cache; add_header Access-Control-Allow-Origin *; }
        location ~ \.m4s\$ { add_header Cache-Control "public, max-age=31536000, immutable"; add_header Access-Control-Allow-Origin *; }
    }
}
CONF
nginx -c "$work/nginx.conf" -g "daemon on;"

run() {  # label, url: prints "requests_per_second p99_ms"
    local output
    output=$(wrk -t2 -c"$connections" -d"${seconds}s" --latency "$2")
    local rps p99 errors
    rps=$(awk '/^Requests\/sec:/ {print $2}' <<<"$output")
    p99=$(awk '$1 == "99%" {print $2}' <<<"$output")
    errors=$(grep -E "Non-2xx|Socket errors" <<<"$output" || true)
    [ -n "$errors" ] && echo "load: $1: $errors" >&2
    # wrk prints latency in us, ms or s.
    p99=$(python3 -c "v='$p99'; print(round(float(v[:-2]) / 1000, 3) if v.endswith('us') else float(v[:-2]) if v.endswith('ms') else float(v[:-1]) * 1000)")
    echo "$rps $p99"
}

size=$(stat -c %s "$work/hls/live/load/$segment")
echo "wrk -t2 -c$connections -d${seconds}s on loopback, $(nproc) cores; segment $segment of $size bytes"
printf "%-10s %-8s %14s %10s\n" file server "requests/s" "p99 ms"
for file in media.m3u8 "$segment"; do
    read -r onair_rps onair_p99 < <(run "onair $file" "http://127.0.0.1:$onair_port/live/load/$file")
    read -r nginx_rps nginx_p99 < <(run "nginx $file" "http://127.0.0.1:$nginx_port/live/load/$file")
    printf "%-10s %-8s %14s %10s\n" "$file" onair "$onair_rps" "$onair_p99"
    printf "%-10s %-8s %14s %10s\n" "$file" nginx "$nginx_rps" "$nginx_p99"
    printf "%-10s %-8s %14s %10s\n" "$file" ratio \
        "$(echo "scale=2; $onair_rps / $nginx_rps" | bc)x" "$(echo "scale=2; $onair_p99 / $nginx_p99" | bc)x"
done
