#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Runs the policy fuzzer (tests/fuzz/fuzz_policy.c) built in BUILD_DIR by
#   cmake -S . -B build-fuzz -DENABLE_FUZZ=ON -DCMAKE_C_COMPILER=clang
#   cmake --build build-fuzz --target fuzz_policy
#
#   tests/fuzz/run.sh BUILD_DIR regress
#       every committed input (tests/fuzz/corpus/, tests/fuzz/regressions/)
#       once, no fuzzing;
#   tests/fuzz/run.sh BUILD_DIR fuzz SECONDS
#       fuzzes for SECONDS, starting from a copy of those inputs in
#       BUILD_DIR/fuzz-run/ (the tree is never written).
#
# Exits non-zero on a crash, a leak, a timeout or a broken contract (the
# target aborts), and then names the input that did it on its last line.
set -uo pipefail

HERE="$(cd "$(dirname "$0")" && pwd)"
usage() {
	echo "usage: $0 BUILD_DIR regress | $0 BUILD_DIR fuzz SECONDS" >&2
	exit 2
}
[ $# -ge 2 ] || usage
BUILD_DIR="$(cd "$1" 2>/dev/null && pwd)" ||
	{ echo "fuzz: no build directory $1; build it first (see $0)" >&2; exit 2; }
FUZZER="$BUILD_DIR/tests/fuzz/fuzz_policy"
[ -x "$FUZZER" ] || {
	echo "fuzz: $FUZZER is missing; configure with -DENABLE_FUZZ=ON -DCMAKE_C_COMPILER=clang and build the fuzz_policy target" >&2
	exit 2
}

# The committed inputs: every file of corpus/ and regressions/ but notes.
mapfile -t inputs < <(find "$HERE/corpus" "$HERE/regressions" -type f \
	! -name '*.md' ! -name '*.txt' | LC_ALL=C sort)
[ ${#inputs[@]} -gt 0 ] || { echo "fuzz: no inputs in $HERE/corpus" >&2; exit 1; }

regress() {
	local log="$BUILD_DIR/fuzz-regress.log" ran rc
	"$FUZZER" "${inputs[@]}" >"$log" 2>&1
	rc=$?
	ran=$(grep -c '^Executed ' "$log" || true)
	if [ $rc -ne 0 ]; then
		sed -n '/^==[0-9]*==ERROR\|^==[0-9]*== ERROR\|runtime error\|deadly signal/,$p' "$log" | head -60
		echo "fuzz: fuzz_policy exited $rc on input: $(grep '^Running: ' "$log" | tail -1 | cut -d' ' -f2-)"
		return 1
	fi
	if [ "$ran" -ne ${#inputs[@]} ]; then
		echo "fuzz: ran $ran of ${#inputs[@]} inputs (log: $log)"
		return 1
	fi
	echo "fuzz: $ran committed inputs ran clean"
}

fuzz() {
	local secs="$1" work="$BUILD_DIR/fuzz-run" rc crash
	rm -rf "$work"
	mkdir -p "$work/corpus" "$work/artifacts"
	cp "${inputs[@]}" "$work/corpus/"
	"$FUZZER" -max_total_time="$secs" -max_len=65536 -timeout=10 \
		-dict="$HERE/policy.dict" -print_final_stats=1 \
		-artifact_prefix="$work/artifacts/" "$work/corpus" \
		>"$work/fuzz.log" 2>&1
	rc=$?
	grep -E '^#[0-9]+.*(INITED|DONE)|^stat::number_of_executed_units|^Done ' "$work/fuzz.log"
	crash=$(find "$work/artifacts" -type f | head -1)
	if [ $rc -ne 0 ] || [ -n "$crash" ]; then
		sed -n '/^==[0-9]*==ERROR\|^==[0-9]*== ERROR\|runtime error\|deadly signal/,$p' "$work/fuzz.log" | head -60
		echo "fuzz: fuzz_policy exited $rc; reproduce with $FUZZER ${crash:-(no artifact: see $work/fuzz.log)}"
		echo "fuzz: crash input: ${crash:-none written}"
		return 1
	fi
	grep -q '^Done [0-9]* runs' "$work/fuzz.log" ||
		{ echo "fuzz: the fuzzer did not run (log: $work/fuzz.log)"; return 1; }
	echo "fuzz: no crash in $secs s; corpus grew to $(find "$work/corpus" -type f | wc -l) inputs"
}

case "$2" in
regress) regress ;;
fuzz)
	[[ "${3:-}" =~ ^[1-9][0-9]*$ ]] || usage
	fuzz "$3"
	;;
*) usage ;;
esac
