#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Forced-copy path: what making the copy costs when the overlay method is
# unavailable, per method and strategy, against sendfile into a memfd
# (clone_bench), with the binary and an O_TMPFILE directory on the same
# loop-mounted filesystem: ext4 (FICLONE answers EOPNOTSUPP), btrfs and
# xfs (a reflink, no copy).  A benchmark: it prints numbers and exits 0
# unless it cannot run at all.
#
#   copy-time.sh [ROUNDS]       (default 40; contrib/runc/compare.sh copy)
#
#   BUILD_DIR (default <repo>/build) has tests/bench/clone_bench;
#   BINARY (default <repo>/build/runc) is the file copied.
#
# Each filesystem is a sparse 512 MiB image in a temporary directory,
# mounted (-o loop, detached again on unmount) in a private mount
# namespace, so that nothing is left mounted even if the script dies.
# Needs mkfs.btrfs (btrfs-progs) and mkfs.xfs (xfsprogs); a filesystem
# whose tool or kernel support is missing is reported and skipped.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
BUILD_DIR=${BUILD_DIR:-$TOP/build}
BINARY=${BINARY:-$TOP/build/runc}
BENCH=$BUILD_DIR/tests/bench/clone_bench

die() {
	echo "copy-time.sh: $*" >&2
	exit 1
}

# ---- one filesystem, inside the private mount namespace -------------------
if [ "${1:-}" = __fs ]; then
	# __fs FS IMAGE MNT ROUNDS
	fs=$2 img=$3 mnt=$4 rounds=$5
	mount --make-rprivate /
	mount -o loop "$img" "$mnt"
	cp "$BINARY" "$mnt/runc"
	mkdir -m 0700 "$mnt/tmp"
	echo
	echo "== $fs ($(stat -f -c %T "$mnt"))"
	"$BENCH" -n "$rounds" -d "$mnt/tmp" "$mnt/runc"
	umount "$mnt"
	exit 0
fi

rounds=${1:-40}
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "ROUNDS must be a positive number, not '$rounds'"
[ "$(id -u)" -eq 0 ] || die "run as root (loop mounts)"
[ -x "$BENCH" ] || die "no $BENCH (cmake -S . -B build && cmake --build build)"
[ -f "$BINARY" ] || die "no $BINARY to copy (contrib/runc/build.sh)"

WORK=$(mktemp -d /tmp/copy-time.XXXXXX)
trap 'rm -rf -- "$WORK"' EXIT
start=$SECONDS
echo "copy time of $BINARY ($(stat -c %s "$BINARY") bytes), $rounds rounds per arm"
echo "kernel: $(uname -r), $(nproc) CPUs, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for fs in ext4 btrfs xfs; do
	if ! grep -qw "$fs" /proc/filesystems; then
		echo
		echo "== $fs: not in this kernel (/proc/filesystems), skipped"
		continue
	fi
	if ! command -v "mkfs.$fs" >/dev/null; then
		echo
		echo "== $fs: no mkfs.$fs (contrib/install-deps.sh test), skipped"
		continue
	fi
	img=$WORK/$fs.img
	truncate -s 512M "$img"
	"mkfs.$fs" -q "$img" >"$WORK/mkfs.log" 2>&1 ||
		die "mkfs.$fs failed: $(cat "$WORK/mkfs.log")"
	mkdir "$WORK/mnt-$fs"
	unshare --mount -- bash "$HERE/copy-time.sh" __fs "$fs" "$img" "$WORK/mnt-$fs" "$rounds" ||
		die "the $fs run failed"
	rm -f "$img"
done
echo
echo "took $((SECONDS - start)) s"
