#!/usr/bin/env bash
# Pushing to an HTTP ingest, measured side by side in one run: onair publishing without pushing,
# pushing to one nginx WebDAV ingest, pushing to two at once, and the ffmpeg CLI pushing the same
# stream to the same nginx (`-f hls -method PUT -http_persistent 1`), one after the other.
#
#   scripts/bench-push.sh [seconds]      (default 30)
#
# Prints CPU seconds (user + system) and peak RSS of each, their ratios, what pushing costs
# onair (the difference of two whole runs, and the CPU of the threads that push, counted by
# scripts/bench/threads.py while each run goes), and the upload latency of onair's segments: from the moment a segment is cut (its
# PROGRAM-DATE-TIME plus its duration) to the moment nginx logged the PUT complete ($msec).
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}
ONAIR_BUILD=release scripts/setup.sh >/dev/null
work=$(mktemp -d)
chmod 755 "$work"
trap 'kill $(cat "$work/nginx.pid" 2>/dev/null) 2>/dev/null; rm -rf "$work"' EXIT
source scripts/bench/common.sh

nginx_port=$(free_port)
mkdir -p "$work/root"
user=""
[ "$(id -u)" -eq 0 ] && user="user root;"
cat >"$work/nginx.conf" <<EOF
daemon on;
$user
worker_processes 1;
pid $work/nginx.pid;
error_log $work/error.log warn;
events { worker_connections 512; }
http {
    log_format timed '\$msec \$request_method \$uri \$status \$request_time';
    access_log $work/access.log timed;
    client_body_temp_path $work/body;
    proxy_temp_path $work/proxy; fastcgi_temp_path $work/fastcgi; uwsgi_temp_path $work/uwsgi; scgi_temp_path $work/scgi;
    server {
        listen 127.0.0.1:$nginx_port;
        root $work/root;
        location / { dav_methods PUT DELETE; create_full_put_path on; client_max_body_size 64m; }
    }
}
EOF
nginx -c "$work/nginx.conf" -p "$work"
ingest="http://127.0.0.1:$nginx_port"

onair_publish() {  # name, extra arguments...: measured whole, and its threads' CPU by name
    local name=$1
    shift
    scripts/bench/threads.py "--channel $name " "$work/$name.threads" &
    local follower=$!
    measure "$name" .build/release/onair publish --channel "$name" --duration "${seconds}s" \
        --host 127.0.0.1 --port "$(free_port)" "$@"
    wait "$follower"
}

push_threads() {  # name: CPU seconds of the threads that push (the sinks' and the HTTP client's event loops)
    awk '$1 == "PushSink" || $1 ~ /^NIO-SGLTN/ { sum += $2 } END { printf "%.2f", sum }' "$work/$1.threads"
}

alone=$(onair_publish alone)
one=$(onair_publish one --push "$ingest/live/one/")
two=$(onair_publish two --push "$ingest/live/two-a/" --push "$ingest/live/two-b/")
# The same encoder settings as onair's (scripts/bench.sh), on a picture built like onair's.
mkdir -p "$work/root/live/ffmpeg"
ffmpeg=$(measure ffmpeg ffmpeg -hide_banner -nostdin -re -f lavfi -i "sine=frequency=440:sample_rate=48000" \
    -filter_complex_script scripts/bench/pattern.lavfi -map "[v]" -map 0:a -t "$seconds" \
    -c:v libx264 -preset veryfast -tune zerolatency -x264-params "$x264_params" -pix_fmt yuv420p -g 60 -keyint_min 60 -sc_threshold 0 \
    -b:v 2500k -maxrate 2500k -bufsize 2500k -c:a aac -b:a 128k -ar 48000 -ac 2 \
    -f hls -hls_time 2 -hls_list_size 6 -hls_segment_type fmp4 -hls_flags delete_segments \
    -method PUT -http_persistent 1 "$ingest/live/ffmpeg/index.m3u8")

row() {  # label, measurement, reference measurement
    local _ cpu rss ref_cpu ref_rss
    read -r _ cpu rss <<<"$2"
    read -r _ ref_cpu ref_rss <<<"$3"
    printf "%-32s %12.2f %14.1f %10.2fx %8.2fx\n" "$1" "$cpu" "$(echo "$rss / 1024" | bc -l)" \
        "$(echo "$cpu / $ref_cpu" | bc -l)" "$(echo "$rss / $ref_rss" | bc -l)"
}

printf "%s s of 1280x720@30, H.264 veryfast/zerolatency 2500k cap + AAC 128k, fMP4 HLS 2 s segments, nginx WebDAV on loopback\n" "$seconds"
printf "%-32s %12s %14s %11s %9s\n" "" "CPU seconds" "peak RSS MiB" "CPU ratio" "RSS ratio"
row "onair, no push" "$alone" "$alone"
row "onair, push to 1 ingest" "$one" "$alone"
row "onair, push to 2 ingests" "$two" "$alone"
row "ffmpeg -method PUT (peer)" "$ffmpeg" "$ffmpeg"
row "onair push to 1 / ffmpeg" "$one" "$ffmpeg"
read -r _ alone_cpu _ <<<"$alone"
read -r _ two_cpu _ <<<"$two"
printf "pushing to 2 ingests costs %.2f s of %.2f s CPU = %.1f%% of the pipeline (whole-process difference)\n" \
    "$(echo "$two_cpu - $alone_cpu" | bc -l)" "$alone_cpu" "$(echo "($two_cpu - $alone_cpu) * 100 / $alone_cpu" | bc -l)"
# The same, counted on the threads that push: the two sinks' threads and the HTTP client's event
# loops (shared with the built-in server, which no viewer asks anything here). A difference of two
# whole runs carries their noise (up to 0.2 s here); this does not.
for name in one two; do
    pushed=$(push_threads "$name")
    read -r _ total _ <<<"${!name}"
    printf "push threads of '%s': %.2f s of %.2f s CPU = %.1f%% of the pipeline (%s)\n" "$name" "$pushed" "$total" \
        "$(echo "$pushed * 100 / ($total - $pushed)" | bc -l)" \
        "$(awk '$1 == "PushSink" || $1 ~ /^NIO-SGLTN/ { printf "%s%s %s s", sep, $1, $2; sep = ", " }' "$work/$name.threads")"
done

# Upload latency: a segment is cut at its PROGRAM-DATE-TIME plus its duration (every segment of the
# test pattern lasts exactly 2 s, checked below); nginx logs when its PUT completed.
python3 - "$work" <<'PY'
import re, sys, pathlib, datetime, statistics
work = pathlib.Path(sys.argv[1])
for channel in ("one", "two-a", "two-b"):
    text = (work / "root/live" / channel / "media.m3u8").read_text()
    pdts = re.findall(r"#EXT-X-PROGRAM-DATE-TIME:(\S+)", text)
    durations = [float(d) for d in re.findall(r"#EXTINF:([\d.]+)", text)]
    names = re.findall(r"^seg(\d+)\.m4s$", text, re.M)
    assert all(abs(d - 2.0) < 1e-6 for d in durations[:-1]), durations
    first = int(names[0])
    start = datetime.datetime.strptime(pdts[0], "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=datetime.timezone.utc).timestamp()
    latencies = []
    for line in (work / "access.log").read_text().splitlines():
        done, method, uri, status, _ = line.split()
        match = re.fullmatch(rf"/live/{channel}/seg(\d+)\.m4s", uri)
        if method != "PUT" or not match or not status.startswith("2"):
            continue
        number = int(match.group(1))
        if number == int(names[-1]):
            continue  # the last segment is shorter: its length is not 2 s
        cut = start + (number - first + 1) * 2.0
        latencies.append((float(done) - cut) * 1000)
    latencies.sort()
    p50 = statistics.median(latencies)
    p95 = latencies[min(len(latencies) - 1, int(round(0.95 * (len(latencies) - 1))))]
    print(f"upload latency to {channel}: {len(latencies)} segments, p50 {p50:.1f} ms, p95 {p95:.1f} ms "
          f"({p95 / 20:.2f}% of the 2 s segment duration; goal <= 10%)")
PY
