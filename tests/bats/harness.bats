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

# wait_bounded PID: waits 30 s at most for the background job PID; fails
# the test if it still runs, else sets RC to its status.
wait_bounded() {
	local i
	RC=0
	for ((i = 0; i < 300; i++)); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$1" 2>/dev/null; then
		fail "still running after 30 s: the bound does not work"
		return
	fi
	wait "$1" || RC=$?
}

# hang_bounded CMD...: at_level --proc --timeout 2 0 CMD... bash, where
# bash prints "started" and then sleeps for good, as $MARK; checks that
# at_level returned 137 within 30 s and that nothing carrying $MARK is
# left.
hang_bounded() {
	local out="$BATS_TEST_TMPDIR/out" rc left
	at_level --proc --timeout 2 0 "$@" bash -c 'echo started; exec -a "$0" sleep 1000' "$MARK" \
		</dev/null >"$out" 2>&1 3>&- &
	wait_bounded "$!" || return
	rc=$RC
	grep -qx started "$out" || { fail "the command never started: $(cat "$out")"; return; }
	[ "$rc" -eq 137 ] || { fail "at_level exited $rc, not 137 (killed): $(cat "$out")"; return; }
	left=$(pgrep -af "$MARK") || true
	[ -z "$left" ] || fail "processes outlived the bound: $left"
}

@test "at_level --timeout: a hung command as root fails with 137 and its namespace goes" {
	requires root memfd_noexec
	hang_bounded
}

@test "at_level --timeout: a hung command that changed its uid in the namespace goes too" {
	requires root memfd_noexec user
	hang_bounded setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups \
		--inh-caps=-all --
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
	local out="$BATS_TEST_TMPDIR/out" holder left i
	podman_ns_start 0
	holder="$PODMAN_NS_PID"
	PODMAN_TIMEOUT=2 in_podman_ns bash -c 'echo started; exec -a "$0" sleep 1000' "$MARK" \
		</dev/null >"$out" 2>&1 3>&- &
	wait_bounded "$!" || return
	grep -qx started "$out" || { fail "the command never started: $(cat "$out")"; return; }
	[ "$RC" -eq 124 ] || { fail "in_podman_ns exited $RC, not 124: $(cat "$out")"; return; }
	grep -q "killed the holder (PID $holder)" "$out" || fail "no word of the kill: $(cat "$out")"
	# Killed, it is gone once unshare has reaped it.
	for ((i = 0; i < 50; i++)); do
		kill -0 "$holder" 2>/dev/null || break
		sleep 0.1
	done
	! kill -0 "$holder" 2>/dev/null || fail "the holder (PID $holder) still runs after 5 s"
	left=$(pgrep -af "$MARK") || true
	[ -z "$left" ] || fail "processes outlived the bound: $left"
}
