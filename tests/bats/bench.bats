#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# Smoke test of the benchmarks in tests/bench/: each runs with a tiny N
# and prints its table.  Never asserts on a time or a size: benchmarks are
# benchmark output, not tests.  What is asserted is that they ran what
# they claim to run (each runc variant's loader marker, the reflink where
# the filesystem has one) and left nothing behind.

load helpers

setup() {
	HOST_LEVEL_BEFORE="$(host_level)"
	# What the benchmarks could leave, already there (another run's, or
	# another user's of the machine): only what is new counts.
	bench_leftovers >"$BATS_TEST_TMPDIR/leftovers.before"
}

# bench_leftovers: the benchmarks' staging directories and their mounts.
bench_leftovers() {
	{
		ls -d /tmp/runc-bench.* /tmp/copy-time.* 2>/dev/null
		grep -F '/tmp/copy-time.' /proc/self/mountinfo | cut -d' ' -f5-
	} | LC_ALL=C sort
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
	requires root user memfd_noexec cmd:runc cmd:go cmd:jq cmd:python3 \
		cmd:busybox cmd:cc || return 1
	run "$REPO_ROOT/tests/bench/start.sh" 1
	echo "$output"
	assert_success
	for mode in rootful rootless; do
		assert_output --partial "$mode: 1 rounds, ms per \`runc run\`"
	done
	# Each variant is what its name says, in both modes.
	[ "$(grep -cE '^  ours \(default build\) +overlay ' <<<"$output")" -eq 2 ]
	[ "$(grep -cE '^  ours, forced memfd +memfd-exec ' <<<"$output")" -eq 2 ]
	[ "$(grep -cE '^  ours, no clone \(limit\) +none ' <<<"$output")" -eq 2 ]
	[ "$(grep -cE '^  stock Debian runc 1.1.5 +- ' <<<"$output")" -eq 2 ]
	[ "$(grep -cE '^  ours/noclone +[0-9.]+ ' <<<"$output")" -eq 2 ]
	[ "$(grep -cE '^  ours/stock +[0-9.]+ ' <<<"$output")" -eq 2 ]
	assert_output --partial "NONE, no clone: benchmark build, unprotected, never install"
}

@test "memory.sh: created containers are counted, then all deleted" {
	requires root user memfd_noexec cmd:runc cmd:go cmd:jq cmd:python3 \
		cmd:busybox || return 1
	BENCH_NO_BUILD=1 run "$REPO_ROOT/tests/bench/memory.sh" 2
	echo "$output"
	assert_success
	for mode in rootful rootless; do
		assert_output --partial "$mode: created containers"
	done
	[ "$(grep -cE '^  ours \(default build\) +overlay +2 ' <<<"$output")" -eq 2 ]
	[ "$(grep -cE '^  ours, forced memfd +memfd-exec +2 ' <<<"$output")" -eq 2 ]
	# The exe classification sees what each method makes.
	assert_output --partial "ours     binary-via-overlay"
	assert_output --partial "memfd    memfd /memfd:"
	assert_output --partial "goal: ours 0 copies"
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
