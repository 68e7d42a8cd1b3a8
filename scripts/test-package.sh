#!/usr/bin/env bash
# Installs onair as a user would, where no Swift toolchain has ever been: builds the package
# (scripts/package.sh), makes a clean Debian 12 root with debootstrap from Debian's archive,
# installs the package there with apt-get, and runs a 10 s broadcast of the test source in it,
# reading its playlists and a segment from outside. About 20 minutes; not part of scripts/test.sh.
#   scripts/test-package.sh [MIRROR]         (default http://deb.debian.org/debian)
set -euo pipefail
cd "$(dirname "$0")/.."
mirror=${1:-http://deb.debian.org/debian}
step() { echo "test-package: $*"; }
fail() { echo "test-package: FAILED: $*" >&2; exit 1; }
# Every failing step says which it was (a bare `curl -sf` under `set -e` once ended the test in silence).
trap 'echo "test-package: FAILED at line $LINENO: $BASH_COMMAND" >&2' ERR
fetch() {  # url: its body, or the test fails naming it
    curl -sf "$1" || fail "GET $1 failed"
}

scripts/package.sh
deb=$(ls -t dist/onair_*.deb | head -1)
sudo=""
[ "$(id -u)" -eq 0 ] || sudo=sudo
if ! command -v debootstrap >/dev/null; then
    step "installing debootstrap"
    $sudo apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends debootstrap >/dev/null
fi

root=$(mktemp -d /tmp/onair-debian12.XXXXXX)
chmod 0755 "$root"   # apt downloads as _apt, who must reach the root
cleanup() {
    $sudo umount "$root/dev/pts" "$root/proc" 2>/dev/null || true
    [ -n "${publisher:-}" ] && kill "$publisher" 2>/dev/null || true
    $sudo rm -rf "$root"
}
trap cleanup EXIT

step "making a clean Debian 12 root in $root"
$sudo debootstrap --variant=minbase bookworm "$root" "$mirror" >"$root.log" 2>&1 || { tail -20 "$root.log"; fail "debootstrap"; }
rm -f "$root.log"
$sudo mount -t proc proc "$root/proc"
$sudo mount -t devpts devpts "$root/dev/pts"   # apt-get's terminal log
inside() { $sudo chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
inside sh -c 'command -v swift swiftc' && fail "a Swift toolchain is inside the root"

step "installing $(basename "$deb") with apt-get"
$sudo cp "$deb" "$root/tmp/"
inside apt-get update -qq
inside env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "/tmp/$(basename "$deb")" >/dev/null
inside dpkg -s onair | grep -E "^(Version|Depends):"
inside sh -c 'ls /usr/share/man/man1/onair*.1.gz /usr/share/bash-completion/completions/onair /usr/share/zsh/vendor-completions/_onair /usr/share/fish/vendor_completions.d/onair.fish /usr/share/doc/onair/examples/onair-serve.service' >/dev/null
inside onair --version

port=18080
step "publishing the test source for 10 s inside the root"
inside onair publish --source test --duration 10s --host 127.0.0.1 --port $port >"$root.publish.log" 2>&1 &
publisher=$!
base="http://127.0.0.1:$port/live/demo"
for _ in $(seq 1 300); do
    curl -sf "$base/media.m3u8" 2>/dev/null | grep -q "^seg" && break
    kill -0 "$publisher" 2>/dev/null || { cat "$root.publish.log"; fail "onair stopped before its first segment"; }
    sleep 0.1
done
fetch "$base/index.m3u8" | grep -q "EXT-X-STREAM-INF" || fail "no multivariant playlist"
playlist=$(fetch "$base/media.m3u8")
echo "$playlist" | head -12
segment=$(echo "$playlist" | grep -m1 "^seg") || fail "the playlist lists no segment"
# The init segment as the playlist names it (init<N>.mp4 when the numbering starts on the epoch).
init=$(echo "$playlist" | sed -n 's/^#EXT-X-MAP:URI="\([^"]*\)".*/\1/p' | head -1)
[ -n "$init" ] || fail "the playlist names no init segment (EXT-X-MAP)"
probe=$(mktemp)
fetch "$base/$init" >"$probe"
fetch "$base/$segment" >>"$probe"
streams=$(ffprobe -v error -show_entries stream=codec_name,width,height -of csv=p=0 "$probe")
rm -f "$probe"
echo "$streams"
echo "$streams" | grep -q "^h264,1280,720" || fail "the segment is not 1280x720 H.264"
echo "$streams" | grep -q "^aac" || fail "the segment has no AAC"
status=0
wait "$publisher" || status=$?
[ "$status" -eq 0 ] || { cat "$root.publish.log"; fail "onair publish exited with status $status"; }
publisher=""
tail -2 "$root.publish.log"
rm -f "$root.publish.log"
step "passed: installed without Swift, published, played"
