#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Real-older-kernel test matrix: boots Debian's 6.1 and 6.12 cloud kernels
# under qemu (TCG) with a busybox initramfs holding the static test binaries,
# runs tests/kernels/guest.sh in each and turns its results into TAP.
#
#   tests/kernels/run.sh [--readme] [BUILD_DIR]
#
# BUILD_DIR (default: build-static at the repo root) holds the statically
# linked sealexec, selfcheck, fakekernel, cbtest-attack and memfd-noexec
# (searched up to three directories deep).  A missing binary makes the
# checks that need it fail; it never skips them.
#
# Everything lands in build/kernels/: the kernel cache (cache/), the
# initramfs (one per kernel, with its overlay.ko), the serial logs
# (<kernel>.log) and matrix.md, a markdown table of which check passed on
# which kernel.  --readme prints that table on stdout and sends the TAP
# stream to stderr.
#
# Environment:
#   KTEST_KERNELS       kernels to boot, default "6.1 6.12"
#   KTEST_TIMEOUT       overall limit in seconds, default 600
#   KTEST_BOOT_TIMEOUT  per-boot limit in seconds, default 120
#   KTEST_QEMU_CPU      qemu -cpu model, default qemu's own (6.12 boots with it)
#   KTEST_OFFLINE=1     never call apt; use the cached kernels
#
# Exit status: 0 only if every expected check of every kernel passed.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
OUT=$ROOT/build/kernels
CACHE=$OUT/cache

OVERALL_TIMEOUT=${KTEST_TIMEOUT:-600}
BOOT_TIMEOUT=${KTEST_BOOT_TIMEOUT:-120}
KERNELS=${KTEST_KERNELS:-6.1 6.12}

usage() {
	sed -n '4,${/^#/!q;p}' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

# A hard stop a little after the soft deadline, in case something hangs
# outside the per-boot timeouts (apt, gcc).  The soft deadline below still
# lets the summary be printed.
if [ -z "${_KTEST_INNER:-}" ]; then
	export _KTEST_INNER=1
	exec timeout -k 10 $((OVERALL_TIMEOUT + 60)) "$BASH" "$0" "$@"
fi

# Debian packages, the kernel cache and the kernel's config check:
# shellcheck source-path=SCRIPTDIR source=lib/kernels.sh
. "$SCRIPT_DIR/lib/kernels.sh"
# the busybox initramfs with the test binaries:
# shellcheck source-path=SCRIPTDIR source=lib/initramfs.sh
. "$SCRIPT_DIR/lib/initramfs.sh"
# qemu, the timeouts, the serial log's markers:
# shellcheck source-path=SCRIPTDIR source=lib/boot.sh
. "$SCRIPT_DIR/lib/boot.sh"
# the expected checks, the TAP stream and matrix.md:
# shellcheck source-path=SCRIPTDIR source=lib/tap.sh
. "$SCRIPT_DIR/lib/tap.sh"

README=0
BUILD_DIR=
while [ $# -gt 0 ]; do
	case $1 in
	--readme) README=1 ;;
	-h | --help) usage 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; usage 2 >&2 ;;
	*)
		[ -n "$BUILD_DIR" ] && { echo "run.sh: one BUILD_DIR only" >&2; exit 2; }
		BUILD_DIR=$1
		;;
	esac
	shift
done
BUILD_DIR=${BUILD_DIR:-$ROOT/build-static}
if [ -d "$BUILD_DIR" ]; then
	BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
else
	case $BUILD_DIR in /*) ;; *) BUILD_DIR=$PWD/$BUILD_DIR ;; esac
fi

START=$(date +%s)
DEADLINE=$((START + OVERALL_TIMEOUT))

# TAP goes to stdout, or to stderr in --readme mode.
if [ "$README" = 1 ]; then exec 3>&2; else exec 3>&1; fi
log() { echo "# $*" >&3; }
die() { echo "run.sh: $*" >&2; exit 1; }

mkdir -p "$OUT" "$CACHE"
# One run at a time: they share the initramfs, the logs and the cache.
exec 9>"$OUT/.lock"
flock -w 300 9 || die "another run.sh holds $OUT/.lock"

install_host_packages

# run_kernel FLAVOR: fetches and checks the kernel, boots it and records
# every check, host and guest.
run_kernel() {
	local flavor=$1 label=$1 logf=$OUT/$1.log problems body
	: >"$logf"
	LABEL[$flavor]=$flavor

	if ! fetch_kernel "$flavor"; then
		record_no_kernel "$flavor" "$label"
		return
	fi
	label=$KREL
	LABEL[$flavor]="$KREL ($PKG_VERSION)"

	problems=$(check_config "$KDIR/config")
	if [ -z "$problems" ]; then
		record ok "$flavor" "$label" host-config
	else
		record fail "$flavor" "$label" host-config "$problems"
	fi

	kernel_initramfs "$flavor"
	boot_kernel "$flavor"
	# The serial log has CRLF line ends.
	body=$(tr -d '\r' <"$logf")
	guest_times "$flavor" "$body"
	log "$flavor: qemu exited $BOOT_RC after ${BOOT_TIME[$flavor]}s wall (limit ${BOOT_LIMIT}s; guest: ${GUEST_TIME[$flavor]}), log $logf"
	record_boot "$flavor" "$label" "$BOOT_RC" "$body"
	record_results "$flavor" "$label" "$body"
}

# --- main --------------------------------------------------------------------
for flavor in $KERNELS; do
	[ -n "${META[$flavor]:-}" ] || die "unknown kernel '$flavor' in KTEST_KERNELS (know: ${!META[*]})"
done
echo "TAP version 13" >&3
log "build dir: $BUILD_DIR$([ -d "$BUILD_DIR" ] || echo ' (does not exist)')"
build_initramfs
for flavor in $KERNELS; do
	run_kernel "$flavor"
done
write_matrix
log "serial logs: $OUT/*.log, table: $OUT/matrix.md, total $(($(date +%s) - START))s"
echo "1..$N" >&3
[ "$README" = 1 ] && cat "$OUT/matrix.md"
echo "$PASSED passed, $FAILED failed" >&3
[ "$FAILED" = 0 ]
