#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# Smoke test of the benchmarks in tests/bench/: each runs with a tiny N
# and prints its tables (start.sh and memory.sh: the runc family, then the
# crun family).  Never asserts on a time or a size: benchmarks are
# benchmark output, not tests.  What is asserted is that they ran what
# they claim to run (each runc and crun arm's loader marker, what each
# container's init runs from and how many copies of the binary it made,
# with the crun family also at level 2, the reflink where the filesystem
# has one) and left nothing behind.

load helpers

setup() {
	HOST_LEVEL_BEFORE="$(host_level)"
	# What the benchmarks could leave, already there (another run's, or
	# another user's of the machine): only what is new counts.
	bench_leftovers >"$BATS_TEST_TMPDIR/leftovers.before"
}

# bench_leftovers: the benchmarks' staging directories, their mounts and
# the cgroups named after their containers (t<round>-<arm>, m-<arm>-<i>,
# method-<arm>).
bench_leftovers() {
	{
		ls -d /tmp/runc-bench.* /tmp/crun-bench.* /tmp/copy-time.* 2>/dev/null
		grep -F '/tmp/copy-time.' /proc/self/mountinfo | cut -d' ' -f5-
		find /sys/fs/cgroup -mindepth 2 -maxdepth 4 -type d \( -name 't[0-9]*-*' \
			-o -name 't-1-*' -o -name 'm-*-[0-9]*' -o -name 'method-*' \) 2>/dev/null
	} | LC_ALL=C sort
}

# family NAME: the lines of $output from the benchmark's "== NAME:" header
# to the next family's.
family() {
	awk -v h="== $1:" '/^== [a-z]+:/ { on = index($0, h) == 1 } on' <<<"$output"
}

# between FROM TO TEXT: the lines of TEXT from the one matching FROM up to
# the one matching TO (or the end).
between() {
	sed -n "/$1/,/$2/p" <<<"$3"
}

# row LABEL TEXT: the numbers of the memory table's row for LABEL (a
# fixed string, the whole label) in TEXT, after the label: method, N,
# Shmem, Slab and Cached per container, Pss median and mean, Rss median,
# copies, binary, Shmem left.  One line per row found.
row() {
	awk -v l="  $1 " 'index($0, l) == 1 { r = substr($0, length(l) + 1); sub(/^ +/, "", r); print r }' <<<"$2"
}

# assert_no_copy LABEL TEXT N: LABEL's row in TEXT has N containers, each
# init on the binary itself (no copy), and a Pss that a crun process can
# have (above 0.1 and under 50 MB: a broken parse or an empty smaps gives
# 0, a runaway copy far more).
assert_no_copy() {
	local r
	r=$(row "$1" "$2")
	[ "$(wc -l <<<"$r")" -eq 1 ] || fail "$1: not one row: '$r'"
	read -r method n _ _ _ pss _ _ copies binary _ <<<"$r"
	[ "$method" = overlay ] || fail "$1: method '$method', not overlay"
	[ "$n" -eq "$3" ] || fail "$1: $n containers, not $3"
	[ "$copies" -eq 0 ] || fail "$1: $copies copies of crun, not 0"
	[ "$binary" -eq "$3" ] || fail "$1: $binary inits on crun's own inode, not $3"
	awk -v p="$pss" 'BEGIN { exit !(p > 0.1 && p < 50) }' ||
		fail "$1: Pss median $pss MB, not a crun process's"
}

teardown() {
	# Nothing staged, mounted or running may outlive a benchmark.  (Teardown
	# runs without errexit: each check counts through rc.)
	local left rc=0
	if [ -e "$BATS_TEST_TMPDIR/leftovers.before" ]; then
		left=$(bench_leftovers | comm -13 "$BATS_TEST_TMPDIR/leftovers.before" -)
		[ -z "$left" ] || { fail "left behind (directories, mounts): $left"; rc=1; }
	fi
	assert_host_level_unchanged "${HOST_LEVEL_BEFORE:-}" || rc=1
	return "$rc"
}

@test "start.sh: every arm runs, rootful and rootless, and the table is printed" {
	requires root user memfd_noexec cmd:runc cmd:crun cmd:go cmd:jq cmd:python3 \
		cmd:busybox cmd:cc cmd:mountpoint || return 1
	[ -x "$BUILD_DIR/crun-sealed/crun-sealed" ] ||
		missing "crun-sealed at $BUILD_DIR/crun-sealed/crun-sealed (cmake --build)" || return 1
	run "$REPO_ROOT/tests/bench/start.sh" 1
	echo "$output"
	assert_success
	local runc crun
	runc=$(family runc)
	crun=$(family crun)
	for mode in rootful rootless; do
		grep -qF "$mode: 1 rounds, ms per \`runc run\`" <<<"$runc" || fail "no $mode runc table"
		grep -qF "$mode: 1 rounds, ms per \`crun run\`" <<<"$crun" || fail "no $mode crun table"
	done
	# Each variant is what its name says, in both modes.
	[ "$(grep -cE '^  ours \(default build\) +overlay ' <<<"$runc")" -eq 2 ]
	[ "$(grep -cE '^  ours, forced memfd +memfd-exec ' <<<"$runc")" -eq 2 ]
	[ "$(grep -cE '^  ours, no clone \(limit\) +none ' <<<"$runc")" -eq 2 ]
	[ "$(grep -cE '^  stock Debian runc 1.1.5 +- ' <<<"$runc")" -eq 2 ]
	[ "$(grep -cE '^  ours/noclone +[0-9.]+ ' <<<"$runc")" -eq 2 ]
	[ "$(grep -cE '^  ours/stock +[0-9.]+ ' <<<"$runc")" -eq 2 ]
	grep -qF "NONE, no clone: benchmark build, unprotected, never install" <<<"$runc" ||
		fail "the noclone runc does not say what it is"
	# Stock crun prints no marker; the wrapper and our crun
	# print "using overlay".
	[ "$(grep -cE '^  stock Debian crun 1\.8\.1 +- ' <<<"$crun")" -eq 2 ]
	[ "$(grep -cE '^  crun-sealed \(stock crun on the overlay\) +overlay ' <<<"$crun")" -eq 2 ]
	[ "$(grep -cE '^  ours \(rebuilt crun\) +overlay ' <<<"$crun")" -eq 2 ]
	[ "$(grep -cE '^  ours \(rebuilt crun 1\.21\) +overlay ' <<<"$crun")" -eq 2 ]
	for r in ours/stock sealed/stock ours/sealed ours121/stock; do
		[ "$(grep -cE "^  $r +[0-9.]+ " <<<"$crun")" -eq 2 ] || fail "no $r ratio in both modes"
	done
	grep -qE '^  ours +crun 1\.8\.1 .* loader: sealed W\^X ' <<<"$crun" ||
		fail "the crun of the ours arm is not the rebuilt one"
	grep -qE '^  ours121 +crun 1\.21 .* loader: sealed W\^X ' <<<"$crun" ||
		fail "the crun of the ours121 arm is not the rebuilt 1.21"
}

@test "memory.sh: created containers are counted, then all deleted" {
	requires root user memfd_noexec cmd:runc cmd:crun cmd:go cmd:jq cmd:python3 \
		cmd:busybox cmd:mountpoint || return 1
	[ -x "$BUILD_DIR/crun-sealed/crun-sealed" ] ||
		missing "crun-sealed at $BUILD_DIR/crun-sealed/crun-sealed (cmake --build)" || return 1
	BENCH_NO_BUILD=1 run "$REPO_ROOT/tests/bench/memory.sh" 2
	echo "$output"
	assert_success
	local runc crun rootful rootless
	runc=$(family runc)
	crun=$(family crun)
	for mode in rootful rootless; do
		grep -qF "$mode: created containers" <<<"$runc" || fail "no $mode runc table"
		grep -qF "$mode: created containers" <<<"$crun" || fail "no $mode crun table"
	done
	[ "$(grep -cE '^  ours \(default build\) +overlay +2 ' <<<"$runc")" -eq 2 ]
	[ "$(grep -cE '^  ours, forced memfd +memfd-exec +2 ' <<<"$runc")" -eq 2 ]
	# The exe classification sees what each method makes.
	grep -qF "    ours     binary-via-overlay" <<<"$runc" || fail "runc ours: not via the overlay"
	grep -qF "    memfd    memfd /memfd:" <<<"$runc" || fail "runc memfd: no memfd"
	grep -qF "goal: ours 0 copies" <<<"$runc" || fail "no runc goal line"
	# crun: every arm, both modes, two containers each.
	[ "$(grep -cE '^  stock Debian crun 1\.8\.1 +- +2 ' <<<"$crun")" -eq 2 ]
	[ "$(grep -cE '^  crun-sealed \(stock crun on the overlay\) +overlay +2 ' <<<"$crun")" -eq 2 ]
	[ "$(grep -cE '^  ours \(rebuilt crun\) +overlay +2 ' <<<"$crun")" -eq 2 ]
	[ "$(grep -cE '^  ours \(rebuilt crun 1\.21\) +overlay +2 ' <<<"$crun")" -eq 2 ]
	# Sealed and ours run the binary itself through the overlay in both
	# modes; stock crun copies itself into a memfd rootless, and rootful
	# runs its own inode through a read-only bind mount.
	[ "$(grep -cE '^    sealed   binary-via-overlay [^;]* x2$' <<<"$crun")" -eq 2 ]
	[ "$(grep -cE '^    ours     binary-via-overlay [^;]* x2$' <<<"$crun")" -eq 2 ]
	rootful=$(between '^rootful: created' '^rootless: created' "$crun")
	rootless=$(between '^rootless: created' '^goal' "$crun")
	grep -qE '^    stock    binary [^;]* x2$' <<<"$rootful" ||
		fail "stock crun rootful: not its own binary (bind mount)"
	grep -qE '^    stock    memfd /memfd:crun_cloned:[^;]* x2$' <<<"$rootless" ||
		fail "stock crun rootless: not a memfd copy"
	# The numbers: one memfd copy per container for stock crun rootless,
	# none for the others.
	read -r _ _ _ _ _ _ _ _ copies _ _ <<<"$(row "stock Debian crun 1.8.1" "$rootless")"
	[ "$copies" -eq 2 ] || fail "stock crun rootless: $copies copies, not one per container"
	for t in "$rootful" "$rootless"; do
		assert_no_copy "crun-sealed (stock crun on the overlay)" "$t" 2
		assert_no_copy "ours (rebuilt crun)" "$t" 2
		assert_no_copy "ours (rebuilt crun 1.21)" "$t" 2
	done
	grep -qF "goal: ours and sealed 0 copies" <<<"$crun" || fail "no crun goal line"
}

@test "memory.sh: the crun family at level 2: stock crun fails run by a user, and no arm copies crun" {
	requires root user memfd_noexec cmd:crun cmd:jq cmd:python3 cmd:busybox \
		cmd:mountpoint || return 1
	[ -x "$BUILD_DIR/crun-sealed/crun-sealed" ] ||
		missing "crun-sealed at $BUILD_DIR/crun-sealed/crun-sealed (cmake --build)" || return 1
	BENCH_FAMILIES=crun BENCH_LEVEL=2 BENCH_NO_BUILD=1 run "$REPO_ROOT/tests/bench/memory.sh" 2
	echo "$output"
	assert_success
	local rootful rootless r
	assert_output --partial "each mode runs in a child PID namespace at 2)"
	refute_output --partial "== runc:"
	rootful=$(between '^rootful: created' '^rootless: created' "$output")
	rootless=$(between '^rootless: created' '^goal' "$output")
	[ -n "$rootful" ] && [ -n "$rootless" ] || fail "no rootful or rootless table"
	# Stock crun run by a user cannot execute its memfd copy at 2: its
	# row is its error.  Rootful it binds itself, and makes no copy.
	r=$(row "stock Debian crun 1.8.1" "$rootless")
	[[ "$r" == "fails "*"Failed to re-execute libcrun via memory file descriptor"* ]] ||
		fail "stock crun rootless at 2: '$r', not its re-exec error"
	grep -qE '^    stock    fails$' <<<"$rootless" || fail "stock crun rootless: inits listed"
	r=$(row "stock Debian crun 1.8.1" "$rootful")
	read -r method n _ _ _ _ _ _ copies binary _ <<<"$r"
	[ "$method" = - ] && [ "$n" -eq 2 ] && [ "$copies" -eq 0 ] && [ "$binary" -eq 2 ] ||
		fail "stock crun rootful at 2: '$r', not 2 inits on its own binary"
	grep -qE '^    stock    binary [^;]* x2$' <<<"$rootful" ||
		fail "stock crun rootful: not its own binary (bind mount)"
	# The wrapper and both rebuilds start at 2 in both modes, from the
	# overlay: crun's own inode, no copy.
	for t in "$rootful" "$rootless"; do
		assert_no_copy "crun-sealed (stock crun on the overlay)" "$t" 2
		assert_no_copy "ours (rebuilt crun)" "$t" 2
		assert_no_copy "ours (rebuilt crun 1.21)" "$t" 2
		for arm in sealed ours ours121; do
			grep -qE "^    $(printf '%-8s' "$arm") binary-via-overlay [^;]* x2$" <<<"$t" ||
				fail "$arm: its inits are not crun's own binary through the overlay"
		done
	done
}

@test "copy-time.sh: ext4, btrfs and xfs, with a reflink where there is one" {
	requires root cmd:mkfs.btrfs cmd:mkfs.xfs || return 1
	[ -x "$BUILD_DIR/tests/bench/clone_bench" ] ||
		missing "clone_bench in $BUILD_DIR (cmake --build)" || return 1
	[ -f "$BUILD_DIR/runc" ] || missing "runc at $BUILD_DIR/runc (contrib/runc/build.sh)" || return 1
	local binary="$BUILD_DIR/runc"
	BUILD_DIR="$BUILD_DIR" BINARY="$binary" run "$REPO_ROOT/tests/bench/copy-time.sh" 2
	echo "$output"
	assert_success
	assert_output --partial "== ext4"
	assert_output --partial "== btrfs (btrfs)"
	assert_output --partial "== xfs (xfs)"
	# ext4 has no reflink; btrfs and xfs do, and AUTO uses it.
	[ "$(grep -c 'copied (no shared extents)' <<<"$output")" -eq 1 ]
	[ "$(grep -c 'reflinked (shares FILE' <<<"$output")" -eq 2 ]
	assert_output --partial "copy: sendfile into memfd (runc 1.1.5)"
}
