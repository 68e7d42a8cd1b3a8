#!/usr/bin/env bash
# Installs onair as a user would, where no Swift toolchain has ever been, on Debian 12 and 13:
#  1. builds both packages and a signed apt repository of them (scripts/package.sh --repository,
#     signed with a key made for the test), and serves it over HTTP;
#  2. makes a clean minbase root of each release with debootstrap, installs a stand-in previous
#     version there (the same files, a lower version: no earlier package is published), writes
#     /etc/onair/serve.env, then runs the README's install lines, which upgrade it;
#  3. checks in each root: no Swift inside, serve.env kept, no maintainer script (nothing is
#     restarted by surprise), the man page, completions and examples, `onair --version`, and a
#     10 s broadcast of the test source whose playlists and segment are read and probed from
#     outside (H.264 + AAC);
#  4. runs `onair serve` in each root, pushed to by the other release's `onair publish`.
# About 44 minutes the first time on 2 cores (two roots to build in, a release build from scratch
# in each, two clean roots to install into, all kept in /var/cache/onair), 4 once those are there
# and only the commit is new, 8 after a change every module rebuilds on. The last stage of
# scripts/test.sh.
#
#   scripts/test-package.sh [--release bookworm|trixie] [MIRROR]
#       --release: the full checks in that release's root only; the other release's root is
#       still made, to push from. MIRROR: default http://deb.debian.org/debian.
set -euo pipefail
cd "$(dirname "$0")/.."
caller=test-package
source scripts/debian-root.sh
step() { echo "test-package: $*"; }
fail() { echo "test-package: FAILED: $*" >&2; exit 1; }
# Every failing step says which it was (a bare `curl -sf` under `set -e` once ended the test in silence).
trap 'echo "test-package: FAILED at line $LINENO: $BASH_COMMAND" >&2' ERR
fetch() {  # url: its body, or the test fails naming it
    curl -sf "$1" || fail "GET $1 failed"
}

releases=(bookworm trixie)
mirror=http://deb.debian.org/debian
while (($#)); do
    case "$1" in
        --release) [ $# -ge 2 ] || { echo "test-package: --release needs bookworm or trixie" >&2; exit 2; }
            check_release "$2"; releases=("$2"); shift 2 ;;
        -h | --help) sed -n '2,20s/^# \{0,1\}//p' "$0"; exit 0 ;;
        -*) echo "test-package: unknown option '$1'" >&2; exit 2 ;;
        *) mirror=$1; shift ;;
    esac
done

work=$(mktemp -d /tmp/onair-package-test.XXXXXX)
chmod 0755 "$work"
roots=()
processes=()
cleanup() {
    local process root
    for process in "${processes[@]}"; do kill "$process" 2>/dev/null || true; done
    for root in "${roots[@]}"; do unmount_root "$root"; done
    $as_root rm -rf "$work"
}
trap cleanup EXIT

step "making a signing key for the test's repository"
export GNUPGHOME=$work/gnupg
install -d -m 0700 "$GNUPGHOME"
gpg --batch --quiet --passphrase '' --quick-generate-key "onair test archive <test@localhost>" ed25519 sign never
key=$(gpg --batch --list-secret-keys --with-colons 2>/dev/null | awk -F: '$1 == "fpr" { print $10; exit }')

# The clean roots to install into are made (or found kept) while the packages build.
clean_packages=curl,ca-certificates
(for release in bookworm trixie; do keep_clean_root "$release" "$mirror" "$clean_packages"; done) &
clean_roots_made=$!
processes+=("$clean_roots_made")

# Both packages and their repository, signed with the test's key, for the address it is served at.
repository=$work/repository
repository_port=$(/usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
repo_url=http://127.0.0.1:$repository_port
scripts/package.sh --repository "$repository" --url "$repo_url" --signing-key "$key"
version=$(sed -n 's/^ *static let version = "\(.*\)"$/\1/p' Sources/onair/Onair.swift)
[ -n "$version" ] || fail "no version in Sources/onair/Onair.swift"
architecture=$(dpkg --print-architecture)
pool=$repository/pool/main/o/onair

# The stand-in previous version of each package: its files under a lower version, installed from
# its file before the README's lines, so apt upgrades from it as from an earlier release.
for release in bookworm trixie; do
    tag=$(release_tag "$release")
    unpacked=$work/previous-$tag
    dpkg-deb --raw-extract "$pool/onair_${version}~${tag}_${architecture}.deb" "$unpacked"
    sed -i "s/^Version: .*/Version: ${version}~~previous~${tag}/" "$unpacked/DEBIAN/control"
    dpkg-deb --build --root-owner-group -Zgzip -z1 "$unpacked" "$work/onair_${version}~~previous~${tag}_${architecture}.deb" >/dev/null
    rm -rf "$unpacked"
done

step "serving the repository over HTTP"
/usr/bin/python3 -m http.server --bind 127.0.0.1 --directory "$repository" "$repository_port" >"$work/repository.log" 2>&1 &
processes+=("$!")
for _ in $(seq 1 100); do
    curl -sf -o /dev/null "$repo_url/bookworm.sources" && break
    sleep 0.1 # polling the server, not waiting for time to pass
done

# The README's install lines, as a user types them, with the repository's address put in.
readme_lines=$(sed -n "/^<!-- install-from-repository -->$/,/^<!-- end -->$/p" README.md | sed -n "s/^    //p")
[ -n "$readme_lines" ] || fail "README.md has no install lines between <!-- install-from-repository --> and <!-- end -->"
echo "$readme_lines" | grep -q "apt install onair" || fail "README.md's install lines do not install onair"

root_of() { echo "$work/root-$1"; }

# A clean root of the release, with the previous version installed and serve.env written, then
# the README's lines run in it: the upgrade.
install_in_root() {  # release
    local release=$1 root tag
    root=$(root_of "$release")
    tag=$(release_tag "$release")
    step "making a clean Debian $release root"
    clean_root "$root" "$release" "$mirror" "$clean_packages"
    roots+=("$root")
    mount_root "$root"
    in_root "$root" sh -c 'command -v swift swiftc' && fail "a Swift toolchain is inside the $release root"
    # The test answers apt's questions and, to stay small, leaves out what onair only recommends.
    printf 'APT::Get::Assume-Yes "true";\nAPT::Install-Recommends "false";\n' |
        $as_root tee "$root/etc/apt/apt.conf.d/90onair-test" >/dev/null
    in_root "$root" apt-get update -qq

    step "installing the previous version in the $release root, and an /etc/onair/serve.env"
    $as_root cp "$work/onair_${version}~~previous~${tag}_${architecture}.deb" "$root/tmp/previous.deb"
    in_root "$root" apt-get install -qq /tmp/previous.deb >/dev/null
    $as_root install -d -m 0750 "$root/etc/onair"
    echo "ONAIR_INGEST_TOKEN=test-package-token-0123456789" | $as_root tee "$root/etc/onair/serve.env" >/dev/null
    $as_root chmod 0640 "$root/etc/onair/serve.env"
    local before
    before=$(sha256sum <"$root/etc/onair/serve.env")

    step "running the README's install lines in the $release root"
    echo "$readme_lines" | sed "s|https://onair.example/apt|$repo_url|g; s/sudo //g" >"$work/install-$release.sh"
    $as_root cp "$work/install-$release.sh" "$root/tmp/install.sh"
    in_root "$root" sh -e /tmp/install.sh >"$work/install-$release.log" 2>&1 ||
        { tail -20 "$work/install-$release.log"; fail "the README's install lines in the $release root"; }
    local installed
    installed=$(in_root "$root" dpkg-query -W -f='${Version}' onair)
    [ "$installed" = "${version}~${tag}" ] || fail "the $release root has onair $installed, not ${version}~${tag}"
    in_root "$root" dpkg -s onair | grep -E "^(Version|Depends):"
    [ "$(sha256sum <"$root/etc/onair/serve.env")" = "$before" ] || fail "the upgrade changed /etc/onair/serve.env"
    local script
    for script in preinst postinst prerm postrm; do
        [ ! -e "$root/var/lib/dpkg/info/onair.$script" ] || fail "the package has a $script script"
    done
    in_root "$root" sh -c 'ls /usr/share/man/man1/onair*.1.gz /usr/share/bash-completion/completions/onair /usr/share/zsh/vendor-completions/_onair /usr/share/fish/vendor_completions.d/onair.fish /usr/share/doc/onair/examples/onair-serve.service' >/dev/null ||
        fail "the man page, completions or examples are missing in the $release root"
    in_root "$root" onair --version
    # The package carries the release's own libav: libavcodec59 on Debian 12, 61 on Debian 13.
    local codec_library
    codec_library=$(in_root "$root" sh -c 'ldd /usr/bin/onair' | awk '/libavcodec/ { print $1 }')
    step "$release: upgraded to $installed, serve.env kept, no maintainer scripts, links $codec_library"
}

free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

wait_for_playlist() {  # url log pid: until the playlist lists a segment
    local _
    for _ in $(seq 1 300); do
        curl -sf "$1" 2>/dev/null | grep -q "^seg" && return 0
        kill -0 "$3" 2>/dev/null || { tail -20 "$2"; fail "onair stopped before its first segment ($1)"; }
        sleep 0.1 # polling the playlist, not waiting for time to pass
    done
    tail -20 "$2"
    fail "no segment at $1 after 30 s"
}

probe_channel() {  # base expected-size: the newest segment decodes as H.264 of that size + AAC
    local playlist segment init probe streams
    fetch "$1/index.m3u8" | grep -q "EXT-X-STREAM-INF" || fail "no multivariant playlist at $1"
    playlist=$(fetch "$1/media.m3u8")
    segment=$(echo "$playlist" | grep "^seg" | tail -1) || fail "the playlist at $1 lists no segment"
    # The init segment as the playlist names it (init<N>.mp4 when the numbering starts on the epoch).
    init=$(echo "$playlist" | sed -n 's/^#EXT-X-MAP:URI="\([^"]*\)".*/\1/p' | head -1)
    [ -n "$init" ] || fail "the playlist at $1 names no init segment (EXT-X-MAP)"
    probe=$(mktemp)
    fetch "$1/$init" >"$probe"
    fetch "$1/$segment" >>"$probe"
    streams=$(ffprobe -v error -show_entries stream=codec_name,width,height -of csv=p=0 "$probe")
    rm -f "$probe"
    echo "$streams" | grep -q "^h264,$2" || fail "$1/$segment is not $2 H.264: $streams"
    echo "$streams" | grep -q "^aac" || fail "$1/$segment has no AAC: $streams"
    echo "  $1/$segment: $(echo "$streams" | paste -sd' ')"
}

# A broadcast's playlist gets a segment, which decodes as H.264 1280x720 + AAC, and it stops
# with status 0 at the end of its duration.
check_broadcast() {  # pid log base what
    local status=0
    wait_for_playlist "$3/media.m3u8" "$2" "$1"
    probe_channel "$3" 1280,720
    wait "$1" || status=$?
    [ "$status" -eq 0 ] || { tail -20 "$2"; fail "$4 exited with status $status"; }
}

publish_in_root() {  # release: a 10 s broadcast of the test source, probed from outside
    local release=$1 port log
    port=$(free_port)
    log=$work/publish-$release.log
    step "publishing the test source for 10 s in the $release root"
    in_root_background "$(root_of "$release")" onair publish --source test --duration 10s --host 127.0.0.1 \
        --port "$port" >"$log" 2>&1 &
    processes+=("$!")
    check_broadcast "$!" "$log" "http://127.0.0.1:$port/live/demo" "onair publish in $release"
    tail -1 "$log"
}

push_between() {  # serving-release pushing-release: onair serve in one root, a push from the other
    local serving=$1 pushing=$2 port origin log
    port=$(free_port)
    log=$work/push-$pushing.log
    step "onair serve in the $serving root, pushed to by onair publish in the $pushing root"
    in_root_background "$(root_of "$serving")" sh -c ". /etc/onair/serve.env && export ONAIR_INGEST_TOKEN && \
        exec onair serve --host 127.0.0.1 --port $port" >"$work/serve-$serving.log" 2>&1 &
    origin=$!
    processes+=("$origin")
    in_root_background "$(root_of "$pushing")" env ONAIR_PUSH_HEADER="Authorization: Bearer test-package-token-0123456789" \
        onair publish --channel "from-$pushing" --source test --duration 12s --no-serve \
        --push "http://127.0.0.1:$port/ingest/from-$pushing/" >"$log" 2>&1 &
    processes+=("$!")
    check_broadcast "$!" "$log" "http://127.0.0.1:$port/live/from-$pushing" "the push from $pushing"
    if grep -q "push_failed" "$log"; then
        grep "push_failed" "$log" | head -3
        fail "a push from $pushing failed"
    fi
    kill "$origin" 2>/dev/null || true
    wait "$origin" 2>/dev/null || true
}

wait "$clean_roots_made" || fail "the clean roots to install into could not be made"
for release in bookworm trixie; do install_in_root "$release"; done
for release in "${releases[@]}"; do publish_in_root "$release"; done
for release in "${releases[@]}"; do push_between "$release" "$(other_release "$release")"; done
step "passed: ${releases[*]}: installed from the repository without Swift, upgraded, published, served a push from the other release"
