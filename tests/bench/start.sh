#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Start time: wall time of `runc run` and of `crun run` of a busybox
# /bin/true container (read-only rootfs), rootful and rootless, for the two
# families of lib.sh, one after the other, each with its own table: four
# runcs (stock Debian runc 1.1.5, ours (overlay), ours forced to a memfd
# copy, and ours without any clone, the physical limit), then three crun
# arms (stock Debian crun 1.8.1, which clones itself on every start; the
# same crun through crun-sealed (build/crun-sealed); crun rebuilt with the
# loader).  BENCH_FAMILIES=runc (or crun) runs one family only.  A
# benchmark: it prints numbers and exits 0 unless it cannot run at all.
#
#   start.sh [ROUNDS]           (default 40; contrib/runc/compare.sh bench)
#
# Each family's mode runs in one child PID namespace with its own /proc,
# at vm.memfd_noexec 0 set there (the initial namespace's value is never
# written; for crun also without the hybrid layout's cgroup2 mount, in
# that namespace only); rootless runs as $TEST_USER (cbtest) with its own
# XDG_RUNTIME_DIR and the stock runtime's `spec --rootless` config (crun's
# has a network namespace and no uid mappings, which crun fills in).
# Every round runs each arm once, in an order that rotates from round to
# round (each arm leads and trails equally often), after one warm-up round
# that is not counted.  bench_time (bench_time.c, compiled here with cc)
# times the runtime process alone (for crun-sealed: the wrapper and crun,
# which exec in turn in the one process): wall time, and CPU
# time (user + system of the process and the children it waited for),
# which other load on a shared machine disturbs less.  In rootless mode
# the whole loop already runs as the user, so no setpriv is timed.
#
# Printed per arm: wall median, p90 and mean, and CPU median (ms); then
# the ratios (runc: ours/noclone and ours/stock; crun: ours/stock,
# sealed/stock and ours/sealed) as the ratio of the medians, with a
# bootstrap 95% interval (rounds resampled, 2000 times), as the median of
# the per-round ratios (paired, which cancels slow drifts of the machine),
# and the same ratio for CPU time.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)

# ---- the timed loop, run inside the namespace ----------------------------
if [ "${1:-}" = __loop ]; then
	# __loop FAMILY MODE ROUNDS WORK OUT ARM...
	family=$2 mode=$3 rounds=$4 WORK=$5 out=$6
	shift 6
	arms=("$@")
	state=$WORK/state-$mode
	# The crun that the sealed arm's wrapper runs (as lib.sh's
	# bench_runtime sets it): an environment variable costs no time.
	if [ "$family" = crun ]; then
		export CRUN_SEALED_CRUN=$WORK/bin/crun-sealed.crun
	fi
	: >"$out"
	for ((r = -1; r < rounds; r++)); do
		for ((k = 0; k < ${#arms[@]}; k++)); do
			arm=${arms[((r + 1 + k) % ${#arms[@]})]}
			id=t$r-$arm
			# Round -1 is the warm-up.
			((r < 0)) && rec=/dev/null || rec=$out
			"$WORK/bin/bench_time" "$rec" "$arm $r" \
				"$WORK/bin/$family-$arm" --root "$state" run -b "$WORK/bundle-$mode" \
				"$id" </dev/null >/dev/null 2>"$out.err" || {
				echo "$family-$arm ($mode) failed in round $r:" >&2
				cat "$out.err" >&2
				exit 1
			}
		done
	done
	exit 0
fi

# shellcheck source=tests/bench/lib.sh
. "$HERE/lib.sh"

rounds=${1:-40}
[[ "$rounds" =~ ^[1-9][0-9]*$ ]] || bench_die "ROUNDS must be a positive number, not '$rounds'"

bench_check_host
bench_build
trap bench_cleanup EXIT
host_before=$(cat /proc/sys/vm/memfd_noexec)
start=$SECONDS

for family in "${BENCH_FAMILIES[@]}"; do
	bench_family "$family"
	bench_stage /bin/true
	install -m 0755 "$HERE/start.sh" "$WORK/bin/start.sh"
	cc -O2 -Wall -o "$WORK/bin/bench_time" "$HERE/bench_time.c" ||
		bench_die "cannot compile $HERE/bench_time.c"
	[ "$family" = "${BENCH_FAMILIES[0]}" ] || echo
	echo "== $family: $family run of a busybox /bin/true container (read-only rootfs), $rounds rounds + 1 warm-up, arms rotating"
	bench_versions
	for mode in rootful rootless; do
		declare -A method=()
		for arm in "${BENCH_ARMS[@]}"; do
			method[$arm]=$(bench_method "$mode" "$arm")
			[ "${method[$arm]}" != fails ] ||
				bench_die "$family-$arm ($mode) cannot make a container at level $(bench_level) ($(grep . "$WORK/logs/method-$mode-$arm" | tail -1)); start.sh times only arms that start (memory.sh shows which fail)"
		done
		out=$WORK/times-$mode
		: >"$out"
		: >"$out.err"
		chmod 666 "$out" "$out.err"
		if [ "$mode" = rootless ]; then
			bench_in_pidns setpriv --reuid="$TEST_USER" --regid="$TEST_USER" \
				--init-groups --inh-caps=-all -- env XDG_RUNTIME_DIR="$WORK/xdg" \
				bash "$WORK/bin/start.sh" __loop "$family" "$mode" "$rounds" "$WORK" \
				"$out" "${BENCH_ARMS[@]}"
		else
			bench_in_pidns bash "$WORK/bin/start.sh" __loop "$family" "$mode" "$rounds" \
				"$WORK" "$out" "${BENCH_ARMS[@]}"
		fi
		[ -z "$(bench_leftovers "$mode")" ] ||
			bench_die "$family containers left over in $mode mode"
		echo
		args=()
		for arm in "${BENCH_ARMS[@]}"; do
			args+=("$arm=${method[$arm]}")
		done
		python3 "$HERE/stats.py" start --family="$family" "$mode" "$out" "${args[@]}"
		unset method
	done
	case $family in
	runc) echo "goal: ours/noclone <= 1.02, ours/stock <= 1.00 (ratios of medians)" ;;
	runc13) echo "goal: ours/stock <= 1.00 rootful, < 1.00 rootless (ratios of medians)" ;;
	esac
	bench_cleanup
done
[ "$(cat /proc/sys/vm/memfd_noexec)" = "$host_before" ] ||
	bench_die "the host's vm.memfd_noexec changed (was $host_before)"
echo
echo "took $((SECONDS - start)) s (after the builds)"
