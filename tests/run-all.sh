#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Builds everything and runs every suite: the format check, the C unit
# tests (gcc, clang, gcc with ASan+UBSan, and a gcc Debug build), the policy fuzzer (every
# committed input, then FUZZ_SECONDS, default 60, of fuzzing), the bats
# suites, the patched runc suite and the qemu kernel matrix.  Run as root
# on Debian 12; installs what it needs.  Ends with one line "N passed, N
# failed"; exits non-zero on any failure.  With CI=true a missing
# requirement fails instead of skipping.
set -uo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
cd "$REPO" || exit 1
LOGDIR="$REPO/build/test-logs"
passed=0 failed=0 skipped=0

if [ "$(id -u)" -ne 0 ]; then
	echo "run-all: run as root (namespaces, a test user, qemu)" >&2
	exit 1
fi
contrib/install-deps.sh test || { echo "run-all: Failed to install dependencies" >&2; exit 1; }
mkdir -p "$LOGDIR"

# note TITLE: a stage's heading, with the run's time so far (CI's log
# then shows what each stage costs).
note() { printf '\n=== %s === (at %dm%02ds)\n' "$*" $((SECONDS / 60)) $((SECONDS % 60)); }

# count_tap FILE: add a TAP log's results to the totals.
count_tap() {
	local p f s
	p=$(grep -cE '^ok [0-9]+' "$1" || true)
	s=$(grep -cE '^ok [0-9]+ .*# skip' "$1" || true)
	f=$(grep -cE '^not ok [0-9]+' "$1" || true)
	passed=$((passed + p - s)) failed=$((failed + f)) skipped=$((skipped + s))
}

# one_check NAME CMD...: a stage that is a single pass/fail check.
one_check() {
	local name="$1"
	shift
	if "$@" >"$LOGDIR/$name.log" 2>&1; then
		echo "ok - $name"
		passed=$((passed + 1))
	else
		echo "not ok - $name (log: $LOGDIR/$name.log)"
		tail -20 "$LOGDIR/$name.log"
		failed=$((failed + 1))
	fi
}

# run_ctest BUILD_DIR NAME
run_ctest() {
	local log="$LOGDIR/ctest-$2.log" line total nfail
	(cd "$1" && ctest --output-on-failure -j2) >"$log" 2>&1
	line=$(grep -E 'tests passed, [0-9]+ tests failed out of' "$log" | tail -1)
	grep -E '^ *[0-9]+/[0-9]+ Test' "$log" | sed 's/^ */  /'
	if [ -z "$line" ]; then
		echo "not ok - ctest $2 did not run (log: $log)"
		tail -20 "$log"
		failed=$((failed + 1))
		return
	fi
	echo "$line"
	total=${line##* out of }
	nfail=$(sed -E 's/.*tests passed, ([0-9]+) tests failed.*/\1/' <<<"$line")
	# "Not Run" tests are already among the failed ones.
	s=$(grep -c 'Test +#[0-9]+: .*\*\*\*Skipped' -E "$log" || true)
	passed=$((passed + total - nfail - s)) failed=$((failed + nfail)) skipped=$((skipped + s))
	[ "$nfail" -eq 0 ] || grep -A30 'The following tests FAILED' "$log"
}

# The suite roots (mmdebstrap: mostly downloads and unpacking, cached in
# build/roots/) are made in the background while the builds and the unit
# tests below use the CPU, in a mount namespace of their own (so that
# mmdebstrap's mounts never show in a test's mountinfo).  The root stages
# wait for them, and their one_check makes a root that is still missing
# (and says why).
unshare --mount --propagation private -- bash -c \
	'PROG=run-all; . contrib/lib.sh; for s in trixie sid; do suite_tar "$s" >/dev/null; done' \
	>"$LOGDIR/roots-background.log" 2>&1 &
roots_pid=$!

note "lint (tools/lint.sh: style, strings, README counts, gofmt, shellcheck)"
# One check a line, as a contributor runs it alone: tools/lint.sh CHECK.
for check in $(tools/lint.sh --list); do
	one_check "$check" tools/lint.sh "$check"
done

note "build"
one_check build sh -c "cmake -S . -B build -DENABLE_WERROR=ON >/dev/null && cmake --build build -j2"
one_check build-asan sh -c "cmake -S . -B build-asan -DENABLE_WERROR=ON -DENABLE_ASAN=ON -DENABLE_UBSAN=ON >/dev/null && cmake --build build-asan -j2"
one_check build-static sh -c "cmake -S . -B build-static -DENABLE_WERROR=ON -DBUILD_STATIC=ON >/dev/null && cmake --build build-static -j2"
one_check build-clang sh -c "CC=clang cmake -S . -B build-clang -DENABLE_WERROR=ON >/dev/null && cmake --build build-clang -j2"
# -O0 with assertions: GCC's -Wformat-truncation and friends judge other paths there.
one_check build-debug sh -c "cmake -S . -B build-debug -DENABLE_WERROR=ON -DCMAKE_BUILD_TYPE=Debug >/dev/null && cmake --build build-debug -j2"

note "unit tests (CTest)"
run_ctest build plain
note "unit tests under ASan+UBSan (CTest)"
ASAN_OPTIONS=detect_leaks=1 run_ctest build-asan asan
note "unit tests, clang build (CTest)"
run_ctest build-clang clang
note "unit tests, Debug build (CTest)"
run_ctest build-debug debug

# The policy parsers under libFuzzer (ASan+UBSan): every committed input
# once, then a fixed budget of fuzzing from a copy of the seed corpus in
# build-fuzz/fuzz-run/.  A crash names its input in the log's last lines.
note "policy fuzzer (libFuzzer, clang)"
one_check build-fuzz sh -c "cmake -S . -B build-fuzz -DENABLE_WERROR=ON -DENABLE_FUZZ=ON -DCMAKE_C_COMPILER=clang >/dev/null && cmake --build build-fuzz -j2 --target fuzz_policy"
one_check fuzz-regress tests/fuzz/run.sh build-fuzz regress
one_check fuzz tests/fuzz/run.sh build-fuzz fuzz "${FUZZ_SECONDS:-60}"

if [ -x contrib/runc/build.sh ]; then
	note "patched runc build"
	one_check runc-build contrib/runc/build.sh
fi

if [ -x contrib/crun/build.sh ]; then
	note "patched crun build"
	one_check crun-build contrib/crun/build.sh
	# crun 1.21 (Debian 13) rebuilt too: crun-patched.bats runs against both.
	one_check crun-1.21-build contrib/crun/build.sh 1.21
fi

# Debian 13's runc (trixie), rebuilt with our series in a root of its suite
# and tested there, against its own glibc: the root's tar (mmdebstrap,
# cached in build/roots/), the package (contrib/runc/build-deb.sh), then
# the suites inside the root (tests/roots/run.sh, TAP counted as above).
# run_root SUITE NAME BATS-ARGS...: one bats run in SUITE's root.
run_root() {
	local suite="$1" name="$2" log
	shift 2
	log="$LOGDIR/root-$suite-$name.log"
	# A test still running after 300 s fails (the longest in a root took
	# 39 s on a loaded machine), rather than holding the run.
	BATS_TEST_TIMEOUT="${ROOT_TEST_TIMEOUT:-300}" tests/roots/run.sh "$suite" "$@" >"$log" 2>&1
	local rc=$?
	sed 's/^/  /' "$log"
	count_tap "$log"
	if ! grep -qE '^1\.\.[0-9]+' "$log"; then
		echo "not ok - $suite root: $name did not run"
		failed=$((failed + 1))
	elif [ "$rc" -ne 0 ] && ! grep -qE '^not ok' "$log"; then
		echo "not ok - $suite root: $name exited $rc"
		failed=$((failed + 1))
	fi
}
note "trixie root: runc 1.1.15 with the 1.1 series; Debian 13's stock crun 1.21"
wait "$roots_pid"
one_check root-trixie bash -c 'PROG=run-all; . contrib/lib.sh; suite_tar trixie >/dev/null'
one_check runc-deb-trixie contrib/runc/build-deb.sh --suite trixie
# runc-memfd-noexec.bats whole, then runc init from the overlay, no copy,
# rootful and rootless, at 0 and 2 (runc.bats), in one root; then
# trixie's own crun 1.21 (in the root's packages, contrib/lib.sh): stock,
# run by a user, fails at 1 and 2 (its memfd without MFD_EXEC, whose exec
# gives EACCES), and starts behind crun-sealed (crun.bats).
run_root trixie runc tests/bats/runc-memfd-noexec.bats \
	--and --filter 'runc --version|create/start/delete (rootful|rootless) at vm\.memfd_noexec=[02]( on the overlay)? leaves nothing$' tests/bats/runc.bats \
	--and --filter '^stock crun|^crun-sealed, root(less|ful): starts' tests/bats/crun.bats

# sid's runc 1.3.6 with the 1.3 series, the same way: runc13.bats (where
# runc init runs from, stock 1.3.6 copying as the sanity case), then
# runc-memfd-noexec.bats against 1.3.6.
note "sid root: runc 1.3.6 with the 1.3 series"
one_check root-sid bash -c 'PROG=run-all; . contrib/lib.sh; suite_tar sid >/dev/null'
# Debian's runc rebuilt unchanged first: sid's archive binary was built
# against libseccomp 2.5, and today's root gives any rebuild 2.6's symbols.
one_check runc-deb-sid-stock contrib/runc/build-deb.sh --suite sid --stock
one_check runc-deb-sid contrib/runc/build-deb.sh --suite sid
run_root sid runc tests/bats/runc13.bats --and tests/bats/runc-memfd-noexec.bats

note "bats suites"
# crun-patched.bats runs once more, against crun 1.21 rebuilt.
suites=(tests/bats/*.bats)
[ ! -e tests/bats/crun-patched.bats ] || suites+=(CRUN_REBUILD=1.21:tests/bats/crun-patched.bats)
for suite in "${suites[@]}"; do
	vars=()
	case $suite in *:*) IFS=, read -ra vars <<<"${suite%%:*}" && suite=${suite#*:} ;; esac
	name=$(basename "$suite" .bats)
	# runc 1.3 runs only in the sid root (above).
	[ "$name" != runc13 ] || continue
	[ ${#vars[@]} -eq 0 ] || name="$name-${vars[*]##*=}"
	# A test still running after BATS_TEST_TIMEOUT seconds fails instead of
	# holding CI to its 90-minute limit.  The longest test here (a bench.bats
	# build and run) takes about 100 s.  This ends only a test whose
	# processes die with it: a namespace must be bounded where it is made
	# (kill_after in helpers.bash), since bats signals only the test's own
	# children.
	t0=$SECONDS
	env "${vars[@]}" BATS_TEST_TIMEOUT="${BATS_TEST_TIMEOUT:-900}" BUILD_DIR="$REPO/build" \
		bats --tap "$suite" >"$LOGDIR/bats-$name.log" 2>&1
	sed 's/^/  /' "$LOGDIR/bats-$name.log"
	echo "  # $name: $((SECONDS - t0)) s"
	count_tap "$LOGDIR/bats-$name.log"
	grep -qE '^1\.\.[0-9]+' "$LOGDIR/bats-$name.log" ||
		{ echo "not ok - bats $name did not run"; failed=$((failed + 1)); }
done

if [ -x tests/kernels/run.sh ]; then
	note "real kernels under qemu"
	tests/kernels/run.sh "$REPO/build-static" >"$LOGDIR/kernels.log" 2>&1
	rc=$?
	sed 's/^/  /' "$LOGDIR/kernels.log"
	count_tap "$LOGDIR/kernels.log"
	if [ $rc -ne 0 ] && ! grep -qE '^not ok' "$LOGDIR/kernels.log"; then
		echo "not ok - kernel matrix exited $rc"
		failed=$((failed + 1))
	fi
fi

echo
echo "run-all: $((SECONDS / 60))m$((SECONDS % 60))s"
[ "$skipped" -eq 0 ] || echo "($skipped skipped)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
