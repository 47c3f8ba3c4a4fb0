#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The per-container vm.memfd_noexec policy through real podman (Debian 12's
# podman 4.3.1), rootful and rootless: podman itself reads
# contrib/hooks.d/memfd-noexec.json from --hooks-dir and matches its "when"
# against the container's annotations, and Debian's stock runc runs the
# hook; the patched runc (contrib/runc/build.sh) needs no hook.
#
# Images are never pulled: setup_file imports a busybox rootfs with a
# static memfdprobe, once for root and once for $TEST_USER.  Every podman
# has this file's own roots, configs and cgroup parent (see podman.bash),
# and runs in a child PID namespace: rootful podman in a per-test holder
# at level 0, rootless podman (rpodman) in one that root set to the level
# under test.  Each test checks that nothing is left (podman ps -a, runc
# state, cgroups, mounts) and teardown that the host's value did not move.

load helpers
load podman

setup_file() {
	[ "$(id -u)" -eq 0 ] && command -v podman >/dev/null &&
		[ -x "$MEMFDPROBE_STATIC" ] && [ -e /proc/sys/vm/memfd_noexec ] ||
		return 0
	podman_stage
}

teardown_file() {
	podman_unstage
}

setup() {
	podman_requires podman || return 1
	HOST_LEVEL_BEFORE="$(host_level)"
	podman_ns_start 0
}

teardown() {
	local rc=0 # teardown runs without errexit: each check counts through rc
	stop_default_service || rc=1
	if [ -n "${PODMAN_NS_PID:-}" ]; then
		rootful_podman rm -a -f -t 0 >/dev/null 2>&1 || true
		podman_ns_stop
	fi
	if [ -n "${PODMAN_ROOTLESS_USED:-}" ]; then
		rpodman inherit rm -a -f -t 0 >/dev/null 2>&1 || true
	fi
	# The host's value must never change.
	assert_host_level_unchanged "${HOST_LEVEL_BEFORE:-}" || rc=1
	return "$rc"
}

# json_string VALUE: VALUE as a JSON string, as memfd-noexec quotes it.
json_string() {
	printf '%s' "$1" | jq -Rs .
}

# assert_joined_refusal LEVEL: an error line says that the container joins
# an existing PID namespace, and gives that namespace's LEVEL (a bare
# number: not part of a PID, a path or a container ID).
assert_joined_refusal() {
	grep -E 'join(s|ed)' <<<"$output" |
		grep -qE "(^|[^[:alnum:]./_-])$1([^[:alnum:]/]|$)" && return
	batslib_print_kv_single_or_multi 8 'level' "$1" 'output' "$output" |
		batslib_decorate "no error names the joined PID namespace and its level" |
		fail
}

# ---- rootful podman, stock runc + hooks.d -------------------------------------

@test "rootful podman, stock runc + hooks.d: annotations 2 and 1 set the container's level" {
	podman_requires hook || return 1
	rootful_run_opts stock
	run rootful_podman --hooks-dir "$PODMAN_T/hooks.d" run --rm "${RUN_OPTS[@]}" \
		--annotation "$(annotation 2)" "$PODMAN_IMAGE" sh -c "$PROBES"
	assert_success
	assert_memfd_level 2

	run rootful_podman --hooks-dir "$PODMAN_T/hooks.d" run --rm "${RUN_OPTS[@]}" \
		--annotation "$(annotation 1)" "$PODMAN_IMAGE" sh -c "$PROBES"
	assert_success
	assert_memfd_level 1

	# Control: the same request without the hooks.d file stays at the
	# inherited 0, so it was podman's hooks.d that set the levels above.
	run rootful_podman run --rm "${RUN_OPTS[@]}" \
		--annotation "$(annotation 2)" "$PODMAN_IMAGE" sh -c "$PROBES"
	assert_success
	assert_memfd_level 0
	assert_rootful_clean
}

@test "rootful podman, stock runc + hooks.d: without the annotation the hook is not run" {
	podman_requires hook || return 1
	rootful_run_opts stock
	local log="$PODMAN_T/hook-calls.log"
	: >"$log"
	run rootful_podman --hooks-dir "$PODMAN_T/hooks-logged.d" run --rm "${RUN_OPTS[@]}" \
		"$PODMAN_IMAGE" sh -c "$PROBES"
	assert_success
	assert_memfd_level 0
	# Another annotation whose key only contains memfd_noexec: the key
	# pattern is anchored.
	run rootful_podman --hooks-dir "$PODMAN_T/hooks-logged.d" run --rm "${RUN_OPTS[@]}" \
		--annotation '"x.memfd_noexec=2"' "$PODMAN_IMAGE" sh -c "$PROBES"
	assert_success
	assert_memfd_level 0
	[ ! -s "$log" ] || fail "the hook ran without the annotation: $(cat "$log")"
	# Control: the logging hook does log, and still sets the level.
	run rootful_podman --hooks-dir "$PODMAN_T/hooks-logged.d" run --rm "${RUN_OPTS[@]}" \
		--annotation "$(annotation 2)" "$PODMAN_IMAGE" sh -c "$PROBES"
	assert_success
	assert_memfd_level 2
	[ "$(cat "$log")" = "hook-logger: called with: hook" ] ||
		fail "expected one call of the hook, the log has: $(cat "$log")"
	assert_rootful_clean
}

@test "rootful podman, stock runc + hooks.d: a bad value fails podman run, nothing left" {
	podman_requires hook || return 1
	rootful_run_opts stock
	local value
	for value in 3 two ' 2' $'2\n' ''; do
		echo "value: $(json_string "$value")" >&2 # shown if this row fails
		run rootful_podman --hooks-dir "$PODMAN_T/hooks.d" run --rm "${RUN_OPTS[@]}" \
			--annotation "$(annotation "$value")" "$PODMAN_IMAGE" sh -c "$PROBES"
		# 126: the OCI runtime failed (runc create, whose hook refused).
		assert_failure 126
		assert_output --partial "memfd-noexec hook: Refusing annotations[\"memfd_noexec\"] = $(json_string "$value") in $PODMAN_T/rootful/root/"
		assert_output --partial 'allowed values are "0", "1" or "2"'
		refute_line --regexp '^memfdprobe:' # the container never ran
		assert_rootful_clean
	done
}

# ---- rootful podman, the patched runc --------------------------------------------

@test "rootful podman, patched runc without a hook: annotation 2 gives level 2" {
	podman_requires patched-runc || return 1
	rootful_run_opts patched
	run rootful_podman run --rm "${RUN_OPTS[@]}" \
		--annotation "$(annotation 2)" "$PODMAN_IMAGE" sh -c "$PROBES"
	assert_success
	assert_memfd_level 2
	# Control: no annotation, the inherited 0.
	run rootful_podman run --rm "${RUN_OPTS[@]}" "$PODMAN_IMAGE" sh -c "$PROBES"
	assert_success
	assert_memfd_level 0
	assert_rootful_clean
}

# ---- --pid=container:ID: a joined PID namespace -------------------------------
# A container that joins another's PID namespace cannot get a level of its
# own: it may only be accepted where that namespace already has the
# requested level or a stricter one, and must never change it.

@test "joining a PID namespace at 0 with annotation 2 fails, and the namespace stays at 0" {
	podman_requires hook patched-runc || return 1
	local rt c join_status join_output
	local -a hooks
	for rt in stock patched; do
		echo "runtime: $rt" >&2 # shown if this row fails
		rootful_run_opts "$rt"
		hooks=()
		[ "$rt" = patched ] || hooks=(--hooks-dir "$PODMAN_T/hooks.d")
		c=$(rootful_podman "${hooks[@]}" run -d "${RUN_OPTS[@]}" \
			"$PODMAN_IMAGE" sleep 300)
		run rootful_podman "${hooks[@]}" run --rm "${RUN_OPTS[@]}" \
			--pid "container:$c" --annotation "$(annotation 2)" \
			"$PODMAN_IMAGE" sh -c "$PROBES"
		join_status=$status join_output=$output
		# First what matters most: the namespace was not changed.
		run rootful_podman exec "$c" cat /proc/sys/vm/memfd_noexec
		assert_success
		[ "$output" = 0 ] ||
			fail "the joined container's PID namespace now reads '$output', not 0; the joining container said (exit status $join_status): $join_output"
		[ "$join_status" -ne 0 ] ||
			fail "joining a namespace at 0 with annotation 2 succeeded: $join_output"
		with_output "$join_output" refute_line --regexp '^memfdprobe:' # it never ran
		with_output "$join_output" assert_joined_refusal 0
		rootful_podman rm -f -t 0 "$c" >/dev/null
	done
	assert_rootful_clean
}

@test "joining a PID namespace at 2 with annotation 2 or 1 is accepted and reads 2" {
	podman_requires hook patched-runc || return 1
	local rt c value
	local -a hooks
	for rt in stock patched; do
		rootful_run_opts "$rt"
		hooks=()
		[ "$rt" = patched ] || hooks=(--hooks-dir "$PODMAN_T/hooks.d")
		c=$(rootful_podman "${hooks[@]}" run -d "${RUN_OPTS[@]}" \
			--annotation "$(annotation 2)" "$PODMAN_IMAGE" sleep 300)
		run rootful_podman exec "$c" cat /proc/sys/vm/memfd_noexec
		assert_success
		assert_output 2
		for value in 2 1; do
			echo "runtime: $rt, annotation: $value" >&2 # shown if this row fails
			run rootful_podman "${hooks[@]}" run --rm "${RUN_OPTS[@]}" \
				--pid "container:$c" --annotation "$(annotation "$value")" \
				"$PODMAN_IMAGE" sh -c "$PROBES"
			assert_success
			assert_memfd_level 2
			run rootful_podman exec "$c" cat /proc/sys/vm/memfd_noexec
			assert_success
			assert_output 2
		done
		rootful_podman rm -f -t 0 "$c" >/dev/null
	done
	assert_rootful_clean
}

# ---- rootless podman ------------------------------------------------------------

@test "rootless podman, stock runc: the container inherits levels 0, 1 and 2 from root's parent namespace" {
	podman_requires podman-rootless || return 1
	rootless_run_opts stock
	local level
	for level in 0 1 2; do
		echo "level: $level" >&2 # shown if this row fails
		run rpodman "$level" run --rm "${RUN_OPTS[@]}" "$PODMAN_IMAGE" \
			sh -c "cat /proc/self/uid_map; $PROBES"
		assert_success
		# Rootless: the container's root is $TEST_USER.
		assert_line --regexp "^ +0 +$(id -u "$TEST_USER") +1\$"
		assert_memfd_level "$level"
	done
	assert_rootless_clean
}

@test "rootless podman, patched runc at the packaged path: levels 0, 1 and 2, runc init runs from the overlay, no copy" {
	podman_requires podman-rootless patched-runc || return 1
	rootless_run_opts packaged
	local level log="$PODMAN_T/rootless/runc-debug.log"
	for level in 0 1 2; do
		echo "level: $level" >&2 # shown if this row fails
		: >"$log"
		chown "$TEST_USER:" "$log" # runc appends as the user
		# Our runc at /usr/sbin/runc, where its package installs it, in
		# the session's mount namespace alone.
		RPODMAN_INSTALL="$PODMAN_T/bin/runc:/usr/sbin/runc" run rpodman "$level" run --rm \
			"${RUN_OPTS[@]}" "$PODMAN_IMAGE" sh -c "$PROBES"
		assert_success
		assert_memfd_level "$level"
		# No copy at any level: the binary itself, from a detached
		# read-only overlay that runc (root of podman's user
		# namespace) makes itself and starts runc init from.  Root's
		# file shows as the overflow uid there, like any unmapped
		# user's: the packaged path is what proves it root's.
		with_output "$(cat "$log")" assert_output --partial '"msg":"cloned_binary: using overlay"'
		with_output "$(cat "$log")" \
			assert_line --regexp '"msg":"nsexec\[[0-9]+\]: cloned_binary: running from sealed clone"'
	done
	assert_rootless_clean
}

@test "rootless podman, patched runc elsewhere: its owner shows as the overflow uid, so runc init runs from a sealed copy, at levels 0, 1 and 2" {
	podman_requires podman-rootless patched-runc || return 1
	rootless_run_opts patched
	local level log="$PODMAN_T/rootless/runc-debug.log"
	for level in 0 1 2; do
		echo "level: $level" >&2 # shown if this row fails
		: >"$log"
		chown "$TEST_USER:" "$log" # runc appends as the user
		run rpodman "$level" run --rm "${RUN_OPTS[@]}" "$PODMAN_IMAGE" \
			sh -c "$PROBES"
		assert_success
		assert_memfd_level "$level"
		# Root's runc under /tmp shows as the overflow uid inside
		# podman's user namespace, as another user's would: no overlay
		# (the reason is logged), a sealed copy instead.
		with_output "$(cat "$log")" assert_output --partial 'the overflow uid'
		with_output "$(cat "$log")" refute_output --partial '"msg":"cloned_binary: using overlay"'
		with_output "$(cat "$log")" \
			assert_output --regexp '"msg":"(nsexec\[[0-9]+\]: )?cloned_binary: using (memfd-exec|tmpfile)"'
		with_output "$(cat "$log")" \
			assert_line --regexp '"msg":"nsexec\[[0-9]+\]: cloned_binary: running from sealed clone"'
	done
	assert_rootless_clean
}

@test "rootless podman, stock runc + hooks.d: annotation 2 at level 0 fails closed, nothing left" {
	podman_requires podman-rootless hook || return 1
	no_default_service || return 1
	rootless_run_opts stock
	run rpodman 0 --hooks-dir "$PODMAN_T/hooks.d" run --rm "${RUN_OPTS[@]}" \
		--annotation "$(annotation 2)" "$PODMAN_IMAGE" sh -c "$PROBES"
	assert_failure 126
	assert_output --partial 'memfd-noexec hook: Failed to set vm.memfd_noexec=2 in the PID namespace of process '
	assert_output --partial 'Only global root (euid 0 in the initial user namespace'
	assert_output --partial 'inherits the level of the PID namespace it starts in, which is 0 here'
	assert_output --partial 'The memfd-noexec service, which could raise it, is not running at /run/memfd-noexec.sock (there is no socket)'
	refute_line --regexp '^memfdprobe:' # the container never ran
	assert_rootless_clean
	# Control: where root already set 2 above podman, the hook has nothing
	# to write and the same request is met.
	run rpodman 2 --hooks-dir "$PODMAN_T/hooks.d" run --rm "${RUN_OPTS[@]}" \
		--annotation "$(annotation 2)" "$PODMAN_IMAGE" sh -c "$PROBES"
	assert_success
	assert_memfd_level 2
	assert_rootless_clean
}

# ---- rootless podman with the memfd-noexec service --------------------------------

# assert_served LEVEL: the service raised a namespace of $TEST_USER's to
# LEVEL ("ok"), the request coming from inside podman's user namespace.
assert_served() {
	local uid
	uid=$(id -u "$TEST_USER")
	with_output "$(cat "$BATS_TEST_TMPDIR/serve.log")" \
		assert_line --regexp "^memfd-noexec serve: uid $uid pid [0-9]+: raise $1 pid:\[[0-9]+\]: ok"
}

@test "rootless podman + memfd-noexec service, patched runc: annotation 2 at level 0 reads 2" {
	podman_requires podman-rootless patched-runc || return 1
	start_default_service "$BATS_TEST_TMPDIR/serve.log" || return 1
	rootless_run_opts patched
	run rpodman 0 run --rm "${RUN_OPTS[@]}" --annotation "$(annotation 2)" \
		"$PODMAN_IMAGE" sh -c "$PROBES"
	assert_success
	assert_memfd_level 2
	assert_served 2
	assert_rootless_clean
}

@test "rootless podman + memfd-noexec service, stock runc + hooks.d: annotation 2 at level 0 reads 2" {
	podman_requires podman-rootless hook || return 1
	start_default_service "$BATS_TEST_TMPDIR/serve.log" || return 1
	rootless_run_opts stock
	run rpodman 0 --hooks-dir "$PODMAN_T/hooks.d" run --rm "${RUN_OPTS[@]}" \
		--annotation "$(annotation 2)" "$PODMAN_IMAGE" sh -c "$PROBES"
	assert_success
	assert_memfd_level 2
	assert_served 2
	assert_rootless_clean
}
