#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# audit-bench.sh BEFORE AFTER [N...]
#
# Times `memfd-noexec audit --pid P` of one process with N executable
# memfd mappings (tests/helpers/audit-many N: each memfd held open and
# mapped r-xs), for two memfd-noexec binaries, RUNS (default 3) runs each,
# interleaved (before, after, before, ...), N = 1000 2000 4000 by default.
# Each N runs in a child PID namespace at level 0 (never the initial one).
# Prints one line per run and a table of the medians; the verdict line of
# every run must agree between the two binaries.  Run as root, under the
# shared lock (flock /tmp/mt-bats.lock), from the source tree:
#
#   tests/helpers/audit-bench.sh /tmp/main/memfd-noexec build/memfd-noexec/memfd-noexec
set -euo pipefail

if [ $# -lt 2 ]; then
	echo "usage: $0 BEFORE AFTER [N...]" >&2
	exit 2
fi
before=$1 after=$2
shift 2
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(1000 2000 4000)
runs=${RUNS:-3}
many=${AUDIT_MANY:-${BUILD_DIR:-build}/tests/helpers/audit-many}
for f in "$before" "$after" "$many"; do
	[ -x "$f" ] || { echo "$0: not an executable: $f" >&2; exit 1; }
done

# In the child namespace: start the helper, then time each run.
# shellcheck disable=SC2016 # expanded by the inner shell
inner='
	echo 0 >/proc/sys/vm/memfd_noexec
	out=$(mktemp /tmp/audit-bench.XXXXXX)
	"$MANY" "$N" >"$out" &
	until grep -q ": ready pid=" "$out"; do sleep 0.05; done
	rm -f "$out"
	for run in $(seq "$RUNS"); do
		for arm in before after; do
			if [ $arm = before ]; then bin=$BEFORE; else bin=$AFTER; fi
			start=$(date +%s%N)
			verdict=$("$bin" audit --pid $! | sed -n "s/^  [0-9]* audit-many: //p")
			end=$(date +%s%N)
			echo "$N $arm $run $(( (end - start) / 1000000 )) $verdict"
		done
	done
	kill $!'
results=$(mktemp /tmp/audit-bench-results.XXXXXX)
trap 'rm -f "$results"' EXIT
for n in "${sizes[@]}"; do
	MANY=$many N=$n RUNS=$runs BEFORE=$before AFTER=$after \
		unshare --pid --fork --kill-child --mount-proc sh -ec "$inner" | tee -a "$results"
done

# Medians (ms), and the verdicts must agree.
echo
echo "mappings  before (ms)  after (ms)  verdict"
for n in "${sizes[@]}"; do
	med() {
		awk -v n="$n" -v arm="$1" '$1 == n && $2 == arm { print $4 }' "$results" |
			sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
	}
	verdicts=$(awk -v n="$n" '$1 == n { v = $5; for (i = 6; i <= NF; i++) v = v " " $i; print v }' "$results" | sort -u)
	if [ "$(wc -l <<<"$verdicts")" -ne 1 ]; then
		echo "$0: the verdicts differ for N=$n:" >&2
		echo "$verdicts" >&2
		exit 1
	fi
	printf '%8s  %11s  %10s  %s\n' "$n" "$(med before)" "$(med after)" "$verdicts"
done
