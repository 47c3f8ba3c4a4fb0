#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# contrib/crun/crun-sealed: Debian's stock crun 1.8.1 (/usr/bin/crun), run
# from its own binary on sealexec's detached read-only overlay, so that it
# skips the memfd copy that cannot execute at vm.memfd_noexec 1 and 2.
#
# Every crun runs inside `crun_ns N` (at_level --proc: a child PID namespace
# that root set to N, with its own mount namespace and /proc), never in the
# initial namespace; crun refuses this machine's hybrid cgroup layout
# ("cgroups in hybrid mode not supported"), so crun_ns also unmounts the
# cgroup2 hierarchy at /sys/fs/cgroup/unified there, and crun uses cgroup v1.
# The containers run a static memfdprobe in a busybox rootfs.  Each test
# checks that nothing is left (state, cgroups) and teardown that the host's
# value did not move.  The last test drives the wrapper through rootless
# podman 4.3.1 (podman.bash) with the hook and the memfd-noexec service.

bats_require_minimum_version 1.5.0

load helpers
load podman

STOCK_CRUN=/usr/bin/crun
WRAPPER_SRC="$REPO_ROOT/contrib/crun/crun-sealed"
# setup_file stages everything in a world-readable directory (the rootless
# user runs from it); bats re-reads this file for every test, so the
# staged paths come back through the STAGED_* variables it exports.
USER_BIN="${STAGED_USER_BIN:-}"
U_WRAPPER="${STAGED_USER_BIN:+$STAGED_USER_BIN/crun-sealed}"
BUNDLE_DIR="${STAGED_USER_BIN:+$STAGED_USER_BIN/bundle}"
ROOTFS="$BUNDLE_DIR/rootfs"
MEMFD_NOEXEC="$BUILD_DIR/memfd-noexec/memfd-noexec"

# What the containers run: the user namespace mapping, then the probes.
PROBE='cat /proc/self/uid_map; for m in level none exec exec-run; do memfdprobe $m; done'

# crun needs cgroup v1 alone here: rpodman (podman.bash) then unmounts the
# cgroup2 hierarchy of a hybrid layout in its mount namespace.
export RPODMAN_CGROUP_V1=1

# The one-line hint of the wrapper when it cannot run crun sealed.
HINT='crun-sealed: crun cannot run from a copy: it would copy itself into a memfd again, which cannot execute at vm.memfd_noexec 1 or 2. What works instead:'

setup_file() {
	[ "$(id -u)" -eq 0 ] && [ -x "$STOCK_CRUN" ] && [ -x "$MEMFDPROBE_STATIC" ] &&
		ensure_test_user || return 0
	stage_user_binaries
	STAGED_USER_BIN="$USER_BIN"
	export STAGED_USER_BIN
	install -m 0755 "$WRAPPER_SRC" "$USER_BIN/crun-sealed"
	local rootfs="$USER_BIN/bundle/rootfs" a d
	mkdir -p "$rootfs/bin" "$rootfs/proc" "$rootfs/dev" "$rootfs/sys" \
		"$rootfs/tmp" "$rootfs/etc"
	install -m 0755 /bin/busybox "$rootfs/bin/busybox"
	for a in sh true sleep cat; do
		ln -s busybox "$rootfs/bin/$a"
	done
	install -m 0755 "$MEMFDPROBE_STATIC" "$rootfs/bin/memfdprobe"
	(cd "$USER_BIN/bundle" && "$STOCK_CRUN" spec && mv config.json rootful.json)
	d=$(mktemp -d /tmp/crun-bats-spec.XXXXXX)
	chown "$TEST_USER:" "$d"
	(cd "$d" && as_user "$STOCK_CRUN" spec --rootless)
	mv "$d/config.json" "$USER_BIN/bundle/rootless.json"
	rm -rf "$d"
	chmod -R a+rX "$USER_BIN"
	# Rootless podman for the last test (podman.bash; as podman.bats does).
	if command -v podman >/dev/null && [ -e /proc/sys/vm/memfd_noexec ]; then
		podman_stage
		# The wrapper as podman's runtime, its marker and every line
		# it and crun write to stderr appended to a log.
		local log="$PODMAN_T/rootless/crun-sealed.log"
		{
			echo '#!/bin/sh'
			printf 'exec 2>>%q\n' "$log"
			echo 'export CRUN_SEALED_DEBUG=1'
			printf 'exec %q "$@"\n' "$USER_BIN/crun-sealed"
		} >"$USER_BIN/crun-sealed-logged"
		chmod 0755 "$USER_BIN/crun-sealed-logged"
		write_crun_containers_conf "$PODMAN_T/rootless/containers.conf" \
			"$USER_BIN/crun-sealed-logged"
		: >"$log"
		chown "$TEST_USER:" "$PODMAN_T/rootless/containers.conf" "$log"
	fi
}

teardown_file() {
	podman_unstage
	unstage_user_binaries
}

setup() {
	requires root user userns memfd_noexec cmd:jq cmd:crun || return 1
	[ -n "$STAGED_USER_BIN" ] && [ -x "$U_WRAPPER" ] || {
		echo "setup_file did not stage the wrapper (memfdprobe-static at $MEMFDPROBE_STATIC?)" >&2
		return 1
	}
	HOST_LEVEL_BEFORE="$(host_level)"
	T=$(mktemp -d /tmp/crun-bats.XXXXXX)
	chmod 755 "$T"
	STATE="$T/state"
	mkdir -m 700 "$STATE" "$T/xdg"
	# Unique, so that a leftover cgroup is this test's.
	ID="crun-$BATS_TEST_NUMBER-$$"
	MODE=rootful
	export T STATE ID
}

teardown() {
	local rc=0 # teardown runs without errexit: each check counts through rc
	stop_default_service || rc=1
	if [ -n "${PODMAN_ROOTLESS_USED:-}" ]; then
		rpodman inherit rm -a -f -t 0 >/dev/null 2>&1 || true
	fi
	if [ -n "${T:-}" ] && [ -d "$T" ]; then
		crun_ns 0 sh -c 'for id in $("$@" list -q); do "$@" delete -f "$id"; done' \
			sh "${PLAIN_CRUN[@]}" >/dev/null 2>&1 || true
		rm -rf "$T"
	fi
	assert_host_level_unchanged "${HOST_LEVEL_BEFORE:-}" || rc=1
	return "$rc"
}

# crun_ns LEVEL CMD...: CMD as root in a child PID namespace at LEVEL with
# its own mount namespace and /proc, where a hybrid layout's cgroup2 mount
# is gone (crun supports cgroup v1 or v2, not both).
crun_ns() {
	local level="$1"
	shift
	at_level --proc "$level" sh -c '
		if mountpoint -q /sys/fs/cgroup/unified; then
			umount /sys/fs/cgroup/unified || exit 125
		fi
		exec "$@"' sh "$@"
}

# as MODE BINARY [PREFIX...]: $T/runc, this test's crun command (PREFIX,
# [setpriv to $TEST_USER,] BINARY --root $STATE) for MODE rootful or
# rootless, with the wrapper's sealexec and its debug marker; and
# PLAIN_CRUN, stock crun on the same state, for the checks and teardown.
as() {
	MODE="$1"
	local bin="$2"
	shift 2
	write_runc "$bin" "$@" env "CRUN_SEALED_SEALEXEC=$U_SEALEXEC" CRUN_SEALED_DEBUG=1
	PLAIN_CRUN=("$STOCK_CRUN" --root "$STATE")
	[ "$MODE" = rootful ] ||
		PLAIN_CRUN=(setpriv "--reuid=$TEST_USER" "--regid=$TEST_USER" --init-groups
			--inh-caps=-all -- env "XDG_RUNTIME_DIR=$T/xdg" "${PLAIN_CRUN[@]}")
}

# bundle NAME FILTER [ARGS...]: $T/NAME/config.json for MODE, running ARGS
# (default: the probes) on the read-only rootfs, the jq FILTER applied last.
bundle() {
	local name="$1" filter="$2" args='[]' a
	shift 2
	[ $# -gt 0 ] || set -- /bin/sh -c "$PROBE"
	for a in "$@"; do
		args=$(jq -c --arg a "$a" '. + [$a]' <<<"$args")
	done
	mkdir -p "$T/$name"
	jq --arg root "$ROOTFS" --argjson args "$args" "
		.root.path = \$root | .root.readonly = true |
		.process.terminal = false | .process.args = \$args |
		$filter" "$BUNDLE_DIR/$MODE.json" >"$T/$name/config.json"
	chmod -R a+rX "$T/$name"
}

# assert_nothing_left: no container in this test's crun state, no state
# directory and no cgroup named $ID (a name that only this test uses).
assert_nothing_left() {
	local left
	left=$(crun_ns 0 "${PLAIN_CRUN[@]}" list -q 2>&1) || { fail "crun list failed: $left"; return; }
	[ -z "$left" ] || { fail "crun list still shows: $left"; return; }
	[ ! -e "$STATE/$ID" ] || { fail "state left in $STATE/$ID: $(ls -A "$STATE/$ID")"; return; }
	left=$(cgroups_named "$ID")
	[ -z "$left" ] || fail "cgroups of container $ID left: $left"
}

# assert_rootless_map: the probe's uid_map line shows the container's root
# as $TEST_USER (one id): it really ran rootless.
assert_rootless_map() {
	assert_line --regexp "^ +0 +$(id -u "$TEST_USER") +1\$"
}

# ---- stock crun: the failure the wrapper exists for ------------------------------

@test "stock crun, rootless: its memfd copy cannot execute at levels 1 and 2; level 0 starts" {
	as rootless "$STOCK_CRUN"
	bundle b .
	local level
	for level in 1 2; do
		echo "level: $level" >&2 # shown if this row fails
		run crun_ns "$level" "$T/runc" run -b "$T/b" "$ID"
		assert_failure
		assert_output --partial 'Failed to re-execute libcrun via memory file descriptor'
		refute_output --partial 'memfdprobe:' # the container never ran
		assert_nothing_left
	done
	run crun_ns 0 "$T/runc" run -b "$T/b" "$ID"
	assert_success
	assert_rootless_map
	assert_memfd_level 0
	assert_nothing_left
}

# ---- the wrapper -------------------------------------------------------------------

@test "crun-sealed, rootless: starts at levels 0, 1 and 2 from the overlay; the container reads the level" {
	as rootless "$U_WRAPPER"
	bundle b .
	local level
	for level in 0 1 2; do
		echo "level: $level" >&2 # shown if this row fails
		run crun_ns "$level" "$T/runc" run -b "$T/b" "$ID"
		assert_success
		assert_marker overlay
		refute_output --partial 'Failed to re-execute'
		assert_rootless_map
		assert_memfd_level "$level"
		assert_nothing_left
	done
}

@test "crun-sealed, rootful: starts at level 2 from the overlay, cgroups removed" {
	as rootful "$U_WRAPPER"
	bundle b .
	run crun_ns 2 "$T/runc" run -b "$T/b" "$ID"
	assert_success
	assert_marker overlay
	assert_memfd_level 2
	assert_nothing_left
}

# created NAME: in a crun_ns script, `$T/runc create` of bundle NAME as
# $ID, then what the container's init (crun itself, waiting to exec the
# container's process) runs from: exe=, fstype=, sealexec --check's line,
# and write= (a CVE-2019-5736-style open for writing of /proc/PID/exe).
CREATED='
	"$T/runc" create -b "$T/$0" "$ID" </dev/null >/dev/null 2>"$T/create.log" ||
		{ cat "$T/create.log"; exit 1; }
	pid=$("$T/runc" state "$ID" | jq -r .pid)
	echo "exe=$(readlink "/proc/$pid/exe")"
	echo "fstype=$(stat -L -f -c %T "/proc/$pid/exe")"
	"$1" --check "/proc/$pid/exe"
	if (: >>"/proc/$pid/exe") 2>"$T/write.err"; then echo write=ok; else echo "write=$(cat "$T/write.err")"; fi
	"$T/runc" delete -f "$ID"'

@test "a container created through crun-sealed holds no copy of crun: its init runs from the read-only overlay" {
	as rootless "$U_WRAPPER"
	bundle b . sleep 60
	local level
	for level in 2 0; do
		echo "level: $level" >&2 # shown if this row fails
		run crun_ns "$level" sh -c "$CREATED" b "$SEALEXEC"
		assert_success
		refute_line --regexp '^exe=/memfd:'
		assert_line fstype=overlayfs
		assert_line --regexp '^/proc/[0-9]+/exe: sealed clone$'
		assert_line --regexp '^write=.*Read-only file system$'
		assert_nothing_left
	done
	# Control: stock crun copies itself into a memfd, which the same
	# checks see (at level 0, where that copy can still execute).
	as rootless "$STOCK_CRUN"
	run crun_ns 0 sh -c "$CREATED" b "$SEALEXEC"
	assert_success
	assert_line --regexp '^exe=/memfd:'
	assert_line --regexp '^/proc/[0-9]+/exe: not a sealed clone$'
	assert_nothing_left
}

@test "crun-sealed passes arguments, exit status, stdio and signals through, and stays one process" {
	local w=(env "CRUN_SEALED_SEALEXEC=$SEALEXEC" "$U_WRAPPER")
	# Only leading --crun=/--sealexec= are the wrapper's; the rest, even
	# the same spelling, empty and dash arguments, goes through as it is.
	run "${w[@]}" --crun=/usr/bin/printf '%s|' "a b" "" -x -- --crun=x
	assert_success
	assert_output 'a b||-x|--|--crun=x|'
	run "${w[@]}" --crun=/bin/false
	assert_failure 1
	run "${w[@]}" --crun=/bin/sh -c 'read -r l; echo "got $l"; echo err >&2; exit 7' <<<hello
	assert_failure 7
	assert_line 'got hello'
	assert_line err
	# exec all the way: the PID that was started is crun's (here sleep's)
	# own, running from the overlay, and a signal reaches it.
	"${w[@]}" --crun=/bin/sleep 100 3>&- &
	local pid=$! i
	for ((i = 0; i < 100; i++)); do
		[ "$(stat -L -f -c %T "/proc/$pid/exe" 2>/dev/null)" = overlayfs ] && break
		sleep 0.05
	done
	[ "$(tr '\0' ' ' <"/proc/$pid/cmdline")" = "$(readlink -e /bin/sleep) 100 " ] ||
		fail "PID $pid runs '$(tr '\0' ' ' <"/proc/$pid/cmdline")', not sleep from the overlay ($(readlink "/proc/$pid/exe"))"
	kill -TERM "$pid"
	local status=0
	wait "$pid" || status=$?
	[ "$status" -eq 143 ] || fail "SIGTERM gave exit status $status, not 143"
	# And a container's exit status through crun.
	as rootless "$U_WRAPPER"
	bundle b . sh -c 'exit 7'
	run crun_ns 1 "$T/runc" run -b "$T/b" "$ID"
	assert_failure 7
	assert_nothing_left
}

# assert_refused REASON: the run exited 126 with sealexec's REASON and the
# wrapper's hint, no clone was made, crun never ran, nothing is left.
assert_refused() {
	assert_failure 126
	assert_output --partial "$1"
	assert_line --partial "$HINT"
	refute_output --partial 'cloned_binary: using'
	refute_output --partial 'Failed to re-execute' # crun's own copy
	refute_output --partial 'memfdprobe:'
	assert_nothing_left
}

@test "where the overlay is impossible crun-sealed fails with the reason and what works instead, never running a copy" {
	requires fakekernel || return 1
	# Level 0, where a copy would run and hide a fallback; 2 below.
	as rootful "$U_WRAPPER" "$U_FAKEKERNEL" --kernel=nofsopen --
	bundle b .
	run crun_ns 0 "$T/runc" run -b "$T/b" "$ID"
	assert_refused 'sealexec: Failed to make a sealed copy of /usr/bin/crun: Failed to open the binary from a detached overlayfs (overlay): no fsopen() (before Linux 5.2)'

	# Rootless without user namespaces: no overlay for the user, at 2.
	as rootless "$U_WRAPPER" "$U_FAKEKERNEL" --kernel=nouserns --
	bundle b .
	run crun_ns 2 "$T/runc" run -b "$T/b" "$ID"
	assert_refused 'no unprivileged user namespaces here'

	# The environment cannot turn the overlay off into a copy either.
	as rootless "$U_WRAPPER" env MEMFD_TOOLKIT_FEATURES=-fsopen
	run crun_ns 0 "$T/runc" run -b "$T/b" "$ID"
	assert_refused 'no fsopen()'
}

@test "crun-sealed refuses hostile crun and sealexec paths before anything runs" {
	local d="$T/bins" w=(env "CRUN_SEALED_SEALEXEC=$SEALEXEC" "$U_WRAPPER")
	mkdir -m 0755 "$d"
	install -m 0755 /bin/true "$d/crun"
	run "${w[@]}" --crun=bin/crun --version
	assert_failure 2
	assert_output "crun-sealed: Refusing the crun path 'bin/crun' from --crun: it must be an absolute path (for example /usr/bin/crun)"
	run env CRUN_SEALED_CRUN=crun "${w[@]}" --version
	assert_failure 2
	assert_output --partial "Refusing the crun path 'crun' from CRUN_SEALED_CRUN: it must be an absolute path"
	run "${w[@]}" --crun="$d/none"
	assert_failure 126
	assert_output --partial "Refusing the crun path '$d/none' from --crun: it does not exist"
	run "${w[@]}" --crun="$d"
	assert_failure 126
	assert_output --partial "$d is not a regular file"
	chmod 0644 "$d/crun"
	run "${w[@]}" --crun="$d/crun"
	assert_failure 126
	assert_output --partial "$d/crun is not executable"
	chmod 0775 "$d/crun"
	run "${w[@]}" --crun="$d/crun"
	assert_failure 126
	assert_output --partial "$d/crun (mode 775) is writable by group or others"
	chmod 0755 "$d/crun"
	chmod 0777 "$d"
	ln -s "$d/crun" "$T/link"
	run "${w[@]}" --crun="$T/link"
	assert_failure 126
	assert_output --partial "Refusing the crun path '$T/link' from --crun: $d (mode 777) is writable by group or others"
	chmod 0755 "$d"
	chown "$TEST_USER:" "$d/crun"
	run "${w[@]}" --crun="$d/crun"
	assert_failure 126
	assert_output --partial "$d/crun is owned by uid $(id -u "$TEST_USER"), neither root nor you"
	chown 0:0 "$d/crun"
	run env CRUN_SEALED_SEALEXEC="$d/crun-none" "$U_WRAPPER" --crun="$d/crun"
	assert_failure 126
	assert_output --partial "Refusing the sealexec path '$d/crun-none' from CRUN_SEALED_SEALEXEC: it does not exist"
	# sealexec next to the wrapper, else in PATH (a copy of the wrapper
	# alone; the wrapper's own tools never come from PATH).
	install -m 0755 "$U_WRAPPER" "$d/crun-sealed"
	run env PATH=/nonexistent "$d/crun-sealed" --crun="$d/crun"
	assert_failure 126
	assert_output --partial "cannot find sealexec next to $d/crun-sealed or in PATH (/nonexistent)"
	run env PATH="$USER_BIN" "$d/crun-sealed" --crun="$d/crun"
	assert_success
	run "${w[@]}" --sealexec= --crun="$d/crun"
	assert_failure 2
	assert_output "crun-sealed: option --sealexec= needs a value: --sealexec=/absolute/path"
	run "${w[@]}" --crun "$d/crun"
	assert_failure 2
	assert_output --partial "option --crun needs its value after '='"
	run env CRUN_SEALED_DEBUG=yes "${w[@]}" --crun="$d/crun"
	assert_failure 2
	assert_output --partial "invalid CRUN_SEALED_DEBUG='yes'; allowed: 1"
	# A script is refused by sealexec (its interpreter would run unsealed).
	printf '#!/bin/sh\necho ran\n' >"$d/crun"
	run "${w[@]}" --crun="$d/crun"
	assert_failure 126
	assert_output --partial 'is a script'
	refute_output --partial ran
	# Control: the same checks let the right file through, by a symlink too.
	install -m 0755 /bin/true "$d/crun"
	chmod 0755 "$d"
	run "${w[@]}" --crun="$T/link"
	assert_success
}

@test "sealexec --hint: the wrapper's line after a clone failure only, one printable line" {
	requires fakekernel || return 1
	run "$FAKEKERNEL" --kernel=nofsopen -- "$SEALEXEC" --method=overlay --hint='wrapper: do X' true
	assert_failure 126
	assert_line --index 0 --partial 'sealexec: Failed to make a sealed copy of true'
	assert_line --index 1 'wrapper: do X'
	run "$SEALEXEC" --hint='wrapper: do X' true
	assert_success
	refute_output
	run "$SEALEXEC" --hint="$(printf 'a\nforged: line')" true
	assert_failure 2
	assert_output 'sealexec: invalid --hint: it must be one line of printable text without control characters'
	run "$SEALEXEC" --hint= true
	assert_failure 2
	assert_output 'sealexec: invalid --hint: it must not be empty'
}

# ---- the per-container level: the hook, rootless through the service -----------

# hook_bundle NAME: bundle NAME with annotation 2 and the hook as a
# prestart hook in config.json (a plain crun reads no hooks.d; podman's
# hooks.d is the last test's); crun shows a hook's stderr only where the
# annotation run.oci.hooks.stderr sends it: $T/xdg/hook.err.
hook_bundle() {
	bundle "$1" '.annotations.memfd_noexec = "2" |
		.annotations["run.oci.hooks.stderr"] = $ENV.T + "/xdg/hook.err" |
		.hooks.prestart += [{"path": $ENV.U_MEMFD_NOEXEC, "args": ["memfd-noexec", "hook"]}]'
}

@test "crun-sealed + hook: annotation 2 at level 0 reads 2 rootful; rootless without podman fails closed" {
	[ -x "$U_MEMFD_NOEXEC" ] || missing "memfd-noexec at $MEMFD_NOEXEC" || return 1
	as rootful "$U_WRAPPER"
	hook_bundle b
	run crun_ns 0 "$T/runc" run -b "$T/b" "$ID"
	[ ! -s "$T/xdg/hook.err" ] || echo "the hook said: $(cat "$T/xdg/hook.err")" >&2
	assert_success
	assert_marker overlay
	assert_memfd_level 2
	assert_nothing_left

	# Rootless crun run by hand: its hook runs as the user, and crun keeps
	# the container's init non-dumpable until it execs, so the hook cannot
	# even open its PID namespace, service or not.  Closed: the container
	# never runs.  (Under rootless podman crun is root of podman's user
	# namespace, and the hook works: the next test.)
	start_default_service "$T/serve.log" || return 1
	rm -f "$T/xdg/hook.err" # root's, from the run above
	as rootless "$U_WRAPPER"
	hook_bundle b
	run crun_ns 0 "$T/runc" run -b "$T/b" "$ID"
	assert_failure
	assert_output --partial "error executing hook \`$U_MEMFD_NOEXEC\`"
	with_output "$(cat "$T/xdg/hook.err")" assert_output --regexp \
		'^memfd-noexec hook: Failed to open the PID namespace of process [0-9]+: Permission denied'
	refute_output --partial 'memfdprobe:'
	assert_nothing_left
}

# ---- rootless podman with the wrapper as its default runtime -----------------------

# write_crun_containers_conf FILE WRAPPER: podman.bash's rootless
# containers.conf with the recipe of contrib/crun/containers.conf on top:
# its default runtime and its [engine.runtimes] line, the path replaced by
# WRAPPER, and the staged sealexec for the wrapper in conmon's environment.
write_crun_containers_conf() {
	local recipe="$REPO_ROOT/contrib/crun/containers.conf" runtime line
	runtime=$(grep -E '^runtime = ' "$recipe") &&
		line=$(grep -E '^crun = \[' "$recipe") || {
		echo "write_crun_containers_conf: no runtime or crun line in $recipe" >&2
		return 1
	}
	write_containers_conf "$1" "$PODMAN_STOCK_RUNC"
	sed -i "s|^runtime = .*|$runtime|" "$1"
	sed -i "s|^\[engine\]\$|&\nconmon_env_vars = [\"PATH=/usr/sbin:/usr/bin:/sbin:/bin\", \"CRUN_SEALED_SEALEXEC=$U_SEALEXEC\"]|" "$1"
	sed -E "s|\"[^\"]*crun-sealed\"|\"$2\"|" <<<"$line" >>"$1"
}

@test "rootless podman, crun-sealed as the default runtime + hooks.d + service: annotation 2 at level 0 reads 2" {
	podman_requires podman-rootless hook || return 1
	grep -qxF "runtime = \"crun\"" "$PODMAN_T/rootless/containers.conf" ||
		fail "the rootless containers.conf does not make crun the default: $(cat "$PODMAN_T/rootless/containers.conf")"
	start_default_service "$T/serve.log" || return 1
	# rpodman: rootless podman in a child PID namespace at 0; the wrapper
	# finds sealexec through podman's environment and conmon's.
	CRUN_SEALED_SEALEXEC="$U_SEALEXEC" run rpodman 0 --hooks-dir "$PODMAN_T/hooks.d" run --rm --network none \
		--annotation "$(annotation 2)" "$PODMAN_IMAGE" sh -c "cat /proc/self/uid_map; $PROBES"
	assert_success
	assert_rootless_map
	assert_memfd_level 2
	with_output "$(cat "$T/serve.log")" assert_line --regexp \
		"^memfd-noexec serve: uid $(id -u "$TEST_USER") pid [0-9]+: raise 2 pid:\[[0-9]+\]: ok"
	# It was the wrapper: podman's default runtime, and every crun that
	# podman and conmon started ran from the overlay.
	with_output "$(cat "$PODMAN_T/rootless/crun-sealed.log")" assert_marker overlay
	with_output "$(cat "$PODMAN_T/rootless/crun-sealed.log")" refute_output --partial 'Refusing'
	CRUN_SEALED_SEALEXEC="$U_SEALEXEC" run rpodman inherit info --format '{{.Host.OCIRuntime.Path}}'
	assert_success
	assert_output "$USER_BIN/crun-sealed-logged"
	assert_rootless_clean
}
