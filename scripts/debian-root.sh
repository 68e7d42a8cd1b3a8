# Clean Debian roots, made with debootstrap from Debian's archive: one per release to build its
# package in, one per release to install a package into as a user would. Both are kept in
# $ONAIR_ROOTS (default /var/cache/onair, as pbuilder keeps its roots in /var/cache/pbuilder: they
# belong to root, whoever builds): a build root with its build folder, so the next build of
# the same sources does only what changed; a clean root as debootstrap left it, never entered,
# copied for each test. Sourced by scripts/package.sh and scripts/test-package.sh; each names
# itself in $caller.

# The releases onair is packaged for, and the tag each package's version carries.
release_tag() {  # release: deb12 or deb13, or nothing (status 1) for a release not packaged
    case "$1" in
        bookworm) echo deb12 ;;
        trixie) echo deb13 ;;
        *) return 1 ;;
    esac
}

own_release() {  # this machine's release, as /etc/os-release names it
    (. /etc/os-release && echo "${VERSION_CODENAME:-unknown}")
}

other_release() {  # release: the other packaged release
    [ "$1" = bookworm ] && echo trixie || echo bookworm
}

# Bad input: one line, status 2, before anything starts.
check_release() {  # release
    release_tag "$1" >/dev/null && return 0
    echo "$caller: unknown release '$1': bookworm (Debian 12) or trixie (Debian 13)" >&2
    exit 2
}

as_root=""
[ "$(id -u)" -eq 0 ] || as_root=sudo

# debootstrap is a Debian package of its own; a Swift toolchain's machine may lack it.
need_debootstrap() {
    command -v debootstrap >/dev/null && return 0
    echo "$caller: installing debootstrap"
    $as_root apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends debootstrap >/dev/null ||
        { echo "$caller: FAILED: debootstrap cannot be installed (apt-get install debootstrap)" >&2; exit 1; }
}

# A minbase root of a release in DIR, with the packages named (comma-separated). Its log is kept,
# and its last lines shown, when it fails: no network, or an archive that is not there.
make_root() {  # dir release mirror [packages]
    local dir=$1 release=$2 mirror=$3 include=${4:-} log
    need_debootstrap
    $as_root mkdir -p "$dir"
    $as_root chmod 0755 "$dir"   # apt downloads as _apt, who must reach the root
    log=$(mktemp "${TMPDIR:-/tmp}/onair-debootstrap-$release.XXXXXX")
    if ! $as_root debootstrap --variant=minbase ${include:+--include="$include"} "$release" "$dir" "$mirror" \
        >"$log" 2>&1; then
        tail -5 "$log" >&2
        echo "$caller: FAILED: no Debian $release root could be made in $dir from $mirror (log: $log)" >&2
        exit 1
    fi
    rm -f "$log"
}

roots_home=${ONAIR_ROOTS:-/var/cache/onair}

# A clean minbase root of the release with the packages named, as debootstrap left it and never
# entered: made when there is none with those packages or it is a week old (so a test installs
# next to what the archive has now), and kept for the next test.
keep_clean_root() {  # release mirror packages
    local release=$1 mirror=$2 include=$3
    local kept=$roots_home/clean-roots/$release
    [ "$(cat "$kept.packages" 2>/dev/null)" = "$include" ] && [ -z "$(find "$kept.packages" -mtime +7)" ] && return 0
    $as_root rm -rf "$kept" "$kept.packages"
    $as_root mkdir -p "$(dirname "$kept")"
    echo "$caller: making a clean Debian $release root (kept in $kept)"
    make_root "$kept" "$release" "$mirror" "$include"
    echo "$include" | $as_root tee "$kept.packages" >/dev/null
}

clean_root() {  # dir release mirror packages: a copy of the kept clean root in DIR
    keep_clean_root "$2" "$3" "$4"
    $as_root cp -a "$roots_home/clean-roots/$2" "$1"
}

mount_root() {  # dir: /proc, and /dev with its terminals, as apt-get and a build need them
    $as_root mount -t proc proc "$1/proc"
    $as_root mount --rbind /dev "$1/dev"
    $as_root mount --make-rslave "$1/dev"   # unmounting it later leaves the machine's /dev alone
}

unmount_root() {  # dir: everything mounted under it, deepest first
    local point
    case "$1" in "" | /) return 0 ;; esac
    for point in $(awk -v root="$1/" 'index($2, root) == 1 {print $2}' /proc/mounts | sort -r); do
        $as_root umount -l "$point" 2>/dev/null || true
    done
}

in_root() {  # dir command...: runs it in the root with a clean environment
    local dir=$1
    shift
    $as_root chroot "$dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
        DEBIAN_FRONTEND=noninteractive "$@"
}

in_root_background() {  # dir command...: as in_root, started with & so that $! is the command's
    local dir=$1
    shift
    exec $as_root chroot "$dir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"
}
