#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Stock runc against runc with memfd-toolkit's loader.  A documented
# comparison, not a test: it prints what it measures and exits 0 unless it
# cannot run at all.  Run as root.
#
#   compare.sh [table]        which runc can start a container, rootful and
#                             rootless, at vm.memfd_noexec 0, 1 and 2
#   compare.sh bench [N]      median `runc run` wall time of a busybox `true`
#                             container, rootful and rootless at level 0,
#                             N rounds (default 20), stock and patched
#                             alternating within each round
#   compare.sh all [N]        both
#
#   STOCK=/usr/sbin/runc  PATCHED=<repo>/build/runc  TEST_USER=cbtest
#
# Every run happens in a new PID namespace (with its own /proc) whose
# vm.memfd_noexec is set there; the initial namespace's value is never
# written.  The bundle lives in <repo>/build/bundle-compare.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
STOCK=${STOCK:-/usr/sbin/runc}
PATCHED=${PATCHED:-$TOP/build/runc}
TEST_USER=${TEST_USER:-cbtest}
BUNDLE=$TOP/build/bundle-compare

die() {
	echo "compare.sh: $*" >&2
	exit 1
}

need_pkg() {
	local p
	for p in "$@"; do
		dpkg -s "$p" >/dev/null 2>&1 || {
			apt-get update
			apt-get install -y "$p"
		}
	done
}

[ "$(id -u)" -eq 0 ] || die "run as root (PID namespaces, a test user)"
[ -e /proc/sys/vm/memfd_noexec ] || die "no vm.memfd_noexec here (Linux 6.3+ needed)"
[ -x "$STOCK" ] || die "no stock runc at $STOCK (apt-get install runc)"
[ -x "$PATCHED" ] || die "no patched runc at $PATCHED (run contrib/runc/build.sh)"
need_pkg jq busybox-static util-linux

id -u "$TEST_USER" >/dev/null 2>&1 ||
	useradd --system --create-home --home-dir "/var/lib/$TEST_USER" \
		--shell /bin/sh "$TEST_USER"

WORK=$(mktemp -d /tmp/runc-compare.XXXXXX)
chmod 755 "$WORK"
export WORK TEST_USER
cleanup() {
	local r id
	for r in rootful rootless; do
		for id in $(runc_as "$r" "$STOCK" list -q 2>/dev/null); do
			runc_as "$r" "$STOCK" delete -f "$id" >/dev/null 2>&1 || true
		done
	done
	rm -rf "$WORK"
}
trap cleanup EXIT

# A read-only busybox rootfs running `true`, one config per mode.
make_bundle() {
	local d
	rm -rf "$BUNDLE"
	mkdir -p "$BUNDLE/rootfs/bin" "$BUNDLE/rootfs/proc" "$BUNDLE/rootfs/dev" \
		"$BUNDLE/rootfs/sys" "$BUNDLE/rootfs/tmp"
	cp /bin/busybox "$BUNDLE/rootfs/bin/busybox"
	ln -s busybox "$BUNDLE/rootfs/bin/true"
	ln -s busybox "$BUNDLE/rootfs/bin/sh"
	(cd "$WORK" && "$STOCK" spec && mv config.json rootful.json)
	d=$WORK/spec-rootless
	mkdir "$d"
	chown "$TEST_USER:" "$d"
	(cd "$d" && setpriv --reuid="$TEST_USER" --regid="$TEST_USER" \
		--init-groups -- "$STOCK" spec --rootless)
	mv "$d/config.json" "$WORK/rootless.json"
	for m in rootful rootless; do
		mkdir -p "$BUNDLE/$m"
		jq --arg root "$BUNDLE/rootfs" '.root.path = $root |
			.root.readonly = true | .process.terminal = false |
			.process.args = ["/bin/true"]' \
			"$WORK/$m.json" >"$BUNDLE/$m/config.json"
	done
	chmod -R a+rX "$BUNDLE"
	mkdir -m 700 "$WORK/state-rootful" "$WORK/state-rootless" "$WORK/xdg"
	chown "$TEST_USER:" "$WORK/state-rootless" "$WORK/xdg"
}

# runc_as MODE RUNC ARGS...: RUNC with its state dir for MODE, as the test
# user for rootless.
runc_as() {
	local mode="$1" runc="$2"
	shift 2
	if [ "$mode" = rootless ]; then
		setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups \
			--inh-caps=-all -- env XDG_RUNTIME_DIR="$WORK/xdg" \
			"$runc" --root "$WORK/state-rootless" "$@"
	else
		"$runc" --root "$WORK/state-rootful" "$@"
	fi
}

# in_pidns CMD...: CMD in a new PID namespace, with a mount namespace and a
# /proc of its own (runc finds its children through /proc).  CMD sets the
# level there, from inside: the sysctl belongs to the writer's namespace.
in_pidns() {
	unshare --pid --fork --kill-child --mount-proc -- "$@"
}

seq_id=0
# start_once MODE RUNC LEVEL: one `runc --debug run`; prints "ok[ (method)]"
# or "FAILS: <runc init's fatal message>".
start_once() {
	local mode="$1" runc="$2" level="$3" out rc=0 method fatal
	seq_id=$((seq_id + 1))
	# shellcheck disable=SC2016 # expanded by the inner bash
	out=$(in_pidns bash -c '
		echo "$1" >/proc/sys/vm/memfd_noexec || exit 125
		shift
		'"$(declare -f runc_as)"'
		runc_as "$@"' _ "$level" "$mode" "$runc" --debug run \
		-b "$BUNDLE/$mode" "cmp$seq_id" 2>&1) || rc=$?
	method=$(sed -n 's/.*cloned_binary: using \([a-z-]*\)".*/\1/p' <<<"$out" | head -1)
	if [ "$rc" -eq 0 ]; then
		echo "ok${method:+ ($method)}"
		return
	fi
	fatal=$(sed -n 's/.*level=fatal msg="nsexec[^:]*: \(.*\)".*/\1/p' <<<"$out" | head -1)
	[ -n "$fatal" ] || fatal=$(tail -1 <<<"$out")
	echo "FAILS (exit $rc): $fatal"
}

table() {
	local mode level
	echo
	echo "Can runc start a container? (each row in a child PID namespace)"
	printf '%-9s %-6s %-76s %s\n' mode level "stock $STOCK" "patched $PATCHED"
	for mode in rootful rootless; do
		for level in 0 1 2; do
			printf '%-9s %-6s %-76s %s\n' "$mode" "$level" \
				"$(start_once "$mode" "$STOCK" "$level")" \
				"$(start_once "$mode" "$PATCHED" "$level")"
		done
	done
}

# time_once MODE RUNC: wall time of one `runc run` at level 0, in µs,
# measured inside the namespace (the unshare itself is not counted).
time_once() {
	local mode="$1" runc="$2"
	seq_id=$((seq_id + 1))
	# shellcheck disable=SC2016 # expanded by the inner bash
	in_pidns bash -c '
		echo 0 >/proc/sys/vm/memfd_noexec || exit 125
		'"$(declare -f runc_as)"'
		s=$(date +%s%N)
		runc_as "$@" >/dev/null 2>&1 || { echo "runc run failed" >&2; exit 1; }
		e=$(date +%s%N)
		echo $(((e - s) / 1000))' _ "$mode" "$runc" run \
		-b "$BUNDLE/$mode" "bench$seq_id"
}

median() {
	sort -n | awk '{ v[NR] = $1 } END {
		if (NR % 2) print v[(NR + 1) / 2]; else print int((v[NR / 2] + v[NR / 2 + 1]) / 2) }'
}

bench() {
	local rounds="$1" mode i ms mp
	echo
	echo "Median \`runc run\` wall time of a busybox true container, level 0," \
		"$rounds rounds, stock and patched alternating"
	printf '%-9s %14s %14s %8s\n' mode "stock (ms)" "patched (ms)" ratio
	for mode in rootful rootless; do
		: >"$WORK/t-stock" && : >"$WORK/t-patched"
		# One warm-up run each: page cache, cgroup setup.
		time_once "$mode" "$STOCK" >/dev/null
		time_once "$mode" "$PATCHED" >/dev/null
		for ((i = 0; i < rounds; i++)); do
			# Alternate which one goes first, so neither always
			# runs right after the other.
			if ((i % 2)); then
				time_once "$mode" "$PATCHED" >>"$WORK/t-patched"
				time_once "$mode" "$STOCK" >>"$WORK/t-stock"
			else
				time_once "$mode" "$STOCK" >>"$WORK/t-stock"
				time_once "$mode" "$PATCHED" >>"$WORK/t-patched"
			fi
		done
		ms=$(median <"$WORK/t-stock")
		mp=$(median <"$WORK/t-patched")
		awk -v m="$mode" -v s="$ms" -v p="$mp" 'BEGIN {
			printf "%-9s %14.1f %14.1f %8.2f\n", m, s / 1000, p / 1000, p / s }'
	done
	echo "(ratio = patched / stock; stock rootful clones by bind mount, stock" \
		"rootless and patched copy the binary)"
}

mode=${1:-table}
rounds=${2:-20}
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "rounds must be a positive number"
echo "stock:   $("$STOCK" --version | head -1)"
echo "patched: $("$PATCHED" --version | head -1); $("$PATCHED" --version | grep '^loader:' || echo 'no loader line')"
echo "host vm.memfd_noexec: $(cat /proc/sys/vm/memfd_noexec) (never written)"
make_bundle
case "$mode" in
table) table ;;
bench) bench "$rounds" ;;
all)
	table
	bench "$rounds"
	;;
*) die "usage: compare.sh [table|bench|all] [ROUNDS]" ;;
esac
