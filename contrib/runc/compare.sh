#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Stock runc against runc with memfd-toolkit's loader (and, in the start
# time and memory benchmarks, stock crun against crun-sealed and the
# rebuilt crun).  A documented comparison, not a test: it prints what it
# measures and exits 0 unless it cannot run at all.  Run as root.
#
#   compare.sh [table]        which runc can start a container, rootful and
#                             rootless, at vm.memfd_noexec 0, 1 and 2, and
#                             whether that is what we expect (stock fails
#                             rootless at 1 and 2, patched always starts)
#   compare.sh bench [N]      start time: tests/bench/start.sh N, runc
#                             (stock, ours, ours forced to memfd, ours
#                             without a clone), then crun (stock,
#                             crun-sealed, ours rebuilt), each with its own
#                             table; N rotating rounds, default 40
#   compare.sh memory [N]     memory: tests/bench/memory.sh N (N created
#                             containers per runc and crun arm, default 100)
#   compare.sh copy [N]       copy time when overlay is unavailable:
#                             tests/bench/copy-time.sh N (ext4, btrfs, xfs)
#   compare.sh all [N]        table, then the three benchmarks with their
#                             own defaults (N, if given, for each)
#
#   STOCK=/usr/sbin/runc  PATCHED=<repo>/build/runc  TEST_USER=cbtest
#   MEMFD_NOEXEC=<repo>/build/memfd-noexec/memfd-noexec
#   STOCK_CRUN=/usr/bin/crun  BENCH_FAMILIES="runc crun"  (benchmarks)
#
# Every run happens in a new PID namespace (with its own /proc) whose
# vm.memfd_noexec is set there; the initial namespace's value is never
# written.  The table's bundle lives in <repo>/build/bundle-compare; the
# benchmarks build their own runc variants (contrib/runc/build.sh
# LOADER_REQUEST=...) and crun (contrib/crun/build.sh) into build/bench/
# (BENCH_NO_BUILD=1 reuses them) and stage everything in /tmp.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
STOCK=${STOCK:-/usr/sbin/runc}
PATCHED=${PATCHED:-$TOP/build/runc}
TEST_USER=${TEST_USER:-cbtest}
BUNDLE=$TOP/build/bundle-compare
MEMFD_NOEXEC=${MEMFD_NOEXEC:-$TOP/build/memfd-noexec/memfd-noexec}

die() {
	echo "compare.sh: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "run as root (PID namespaces, a test user)"
[ -e /proc/sys/vm/memfd_noexec ] || die "no vm.memfd_noexec here (Linux 6.3+ needed)"
[ -x "$STOCK" ] || die "no stock runc at $STOCK (apt-get install runc)"
[ -x "$PATCHED" ] || die "no patched runc at $PATCHED (run contrib/runc/build.sh)"
"$TOP/contrib/install-deps.sh" demo || die "cannot install what it needs"
[ -x "$MEMFD_NOEXEC" ] || die "no memfd-noexec at $MEMFD_NOEXEC (build the toolkit: cmake -S . -B build && cmake --build build)"

mode=${1:-table}
rounds=${2:-}
[ -z "$rounds" ] || [[ "$rounds" =~ ^[1-9][0-9]*$ ]] || die "N must be a positive number"
case "$mode" in
table | all) ;;
bench)
	exec env STOCK="$STOCK" TEST_USER="$TEST_USER" \
		"$TOP/tests/bench/start.sh" ${rounds:+"$rounds"}
	;;
memory)
	exec env STOCK="$STOCK" TEST_USER="$TEST_USER" \
		"$TOP/tests/bench/memory.sh" ${rounds:+"$rounds"}
	;;
copy)
	exec env BINARY="$PATCHED" "$TOP/tests/bench/copy-time.sh" ${rounds:+"$rounds"}
	;;
*) die "usage: compare.sh [table|bench|memory|copy|all] [N]" ;;
esac

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

# in_pidns LEVEL CMD...: CMD in a new PID namespace at LEVEL, with a mount
# namespace and a /proc of its own (runc finds its children through
# /proc): memfd-noexec run, which never touches the initial namespace.
in_pidns() {
	local level="$1"
	shift
	"$MEMFD_NOEXEC" run --level "$level" --proc -- "$@"
}

seq_id=0
# start_once MODE RUNC LEVEL: one `runc --debug run`; prints "ok[ (method)]"
# or "FAILS: <runc init's fatal message>".
start_once() {
	local mode="$1" runc="$2" level="$3" out rc=0 method fatal
	seq_id=$((seq_id + 1))
	# shellcheck disable=SC2016 # expanded by the inner bash
	out=$(in_pidns "$level" bash -c '
		'"$(declare -f runc_as)"'
		runc_as "$@"' _ "$mode" "$runc" --debug run \
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

# expected MODE LEVEL: what stock and patched should do there.  Stock
# runc 1.1.5 clones by bind mount rootful (any level) and by a flagless
# memfd rootless, which levels 1 and 2 make non-executable; ours starts
# everywhere.
expected() {
	if [ "$1" = rootless ] && [ "$2" != 0 ]; then
		echo "FAILS ok"
	else
		echo "ok ok"
	fi
}

table() {
	local mode level s p want_s want_p verdict unexpected=0
	echo
	echo "Can runc start a container? (each row in a child PID namespace)"
	printf '%-9s %-6s %-76s %-22s %s\n' mode level "stock $STOCK" "patched" expected
	for mode in rootful rootless; do
		for level in 0 1 2; do
			s=$(start_once "$mode" "$STOCK" "$level")
			p=$(start_once "$mode" "$PATCHED" "$level")
			read -r want_s want_p < <(expected "$mode" "$level")
			verdict=yes
			if [ "${s%% *}" != "$want_s" ] || [ "${p%% *}" != "$want_p" ]; then
				verdict="NO (stock $want_s, patched $want_p expected)"
				unexpected=$((unexpected + 1))
			fi
			printf '%-9s %-6s %-76s %-22s %s\n' "$mode" "$level" "$s" "$p" "$verdict"
		done
	done
	echo "(patched: $PATCHED; $unexpected row(s) not as expected)"
}

echo "stock:   $("$STOCK" --version | head -1)"
echo "patched: $("$PATCHED" --version | head -1); $("$PATCHED" --version | sed -n 's/^commit: //p')"
echo "host vm.memfd_noexec: $(cat /proc/sys/vm/memfd_noexec) (never written)"
make_bundle
table
if [ "$mode" = all ]; then
	trap - EXIT
	cleanup
	for b in start memory; do
		env STOCK="$STOCK" TEST_USER="$TEST_USER" \
			"$TOP/tests/bench/$b.sh" ${rounds:+"$rounds"}
	done
	env BINARY="$PATCHED" "$TOP/tests/bench/copy-time.sh" ${rounds:+"$rounds"}
fi
