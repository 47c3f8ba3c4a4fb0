#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The harness's own promise (helpers.bash: kill_after, at_level;
# podman.bash: in_podman_ns): a command that hangs in a child PID
# namespace fails its test after the bound, and no process of it outlives
# the namespace, also when it changed its uid there as the rootless tests
# do.  Without this a hung runtime holds `run`'s output pipe open and CI
# waits until its 90-minute limit.
#
# The bounded command runs in the background with its output in a file,
# never in a pipe of this test, and is waited for 30 s at most, so that a
# broken bound fails these tests instead of hanging them.

load helpers
load podman

setup() {
	HOST_LEVEL_BEFORE="$(host_level)"
	# In the command line of every process the hung command starts.
	MARK="harness-hang-$$-$BATS_TEST_NUMBER"
}

teardown() {
	podman_ns_stop
	pkill -KILL -f "$MARK" 2>/dev/null || true
	assert_host_level_unchanged "$HOST_LEVEL_BEFORE"
}

# gone_within PID TENTHS: 0 once PID has gone (polled every 0.1 s), 1 if
# it still runs after TENTHS tenths of a second.
gone_within() {
	local i
	for ((i = 0; i < $2; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		return 1
	fi
}

# expect_bounded STATUS CMD...: runs CMD... bash, where bash prints
# "started" and then sleeps for good as $MARK, in the background with its
# output in $OUT; fails the test unless it ended within 30 s, had started,
# and exited with STATUS.
expect_bounded() {
	local want="$1" pid rc=0
	shift
	OUT="$BATS_TEST_TMPDIR/out"
	"$@" bash -c 'echo started; exec -a "$0" sleep 1000' "$MARK" </dev/null >"$OUT" 2>&1 3>&- &
	pid=$!
	gone_within "$pid" 300 || { fail "still running after 30 s: the bound does not work"; return; }
	wait "$pid" || rc=$?
	grep -qx started "$OUT" || { fail "the command never started: $(cat "$OUT")"; return; }
	[ "$rc" -eq "$want" ] || fail "$1 exited $rc, not $want: $(cat "$OUT")"
}

# refute_mark_left: no process carrying $MARK outlived the bound.
refute_mark_left() {
	local left
	left=$(pgrep -af "$MARK") || true
	[ -z "$left" ] || fail "processes outlived the bound: $left"
}

@test "at_level --timeout: a hung command as root fails with 137 and its namespace goes" {
	requires root memfd_noexec
	expect_bounded 137 at_level --proc --timeout 2 0 || return
	refute_mark_left
}

@test "at_level --timeout: a hung command that changed its uid in the namespace goes too" {
	requires root memfd_noexec user
	expect_bounded 137 at_level --proc --timeout 2 0 \
		setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups --inh-caps=-all -- ||
		return
	refute_mark_left
}

@test "at_level --proc is bounded without --timeout (AT_LEVEL_TIMEOUT)" {
	requires root memfd_noexec
	AT_LEVEL_TIMEOUT=1 run at_level --proc 0 sleep 5
	assert_failure 137
	AT_LEVEL_TIMEOUT=5 run at_level --proc 0 sh -c 'echo "$$ $(cat /proc/sys/vm/memfd_noexec)"'
	assert_success
	# Bounded, the command is the child of the namespace's init (at_level's
	# root sh), never the init itself.
	refute_output --regexp '^1 '
	assert_output --regexp '^[0-9]+ 0$'
}

@test "in_podman_ns: a command hung in the podman holder fails with 124, and the holder goes" {
	requires root memfd_noexec
	local holder
	podman_ns_start 0
	holder="$PODMAN_NS_PID"
	PODMAN_TIMEOUT=2 expect_bounded 124 in_podman_ns || return
	grep -q "killed the holder (PID $holder)" "$OUT" || fail "no word of the kill: $(cat "$OUT")"
	# Killed, it is gone once unshare has reaped it.
	gone_within "$holder" 50 || fail "the holder (PID $holder) still runs after 5 s"
	refute_mark_left
}
