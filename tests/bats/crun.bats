#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# crun-sealed (crun-sealed/, built into build/crun-sealed/crun-sealed):
# Debian's stock crun 1.8.1 (/usr/bin/crun), run from its own binary on a
# detached read-only overlay, so that it skips the memfd copy that cannot
# execute at vm.memfd_noexec 1 and 2.  tests/run-all.sh also runs the
# stock crun and crun-sealed tests in the trixie root (tests/roots/run.sh),
# against Debian 13's own crun 1.21.
#
# Every crun runs inside `crun_ns N` (crun.bash: a child PID namespace at
# N without the hybrid layout's cgroup2 mount), never in the initial
# namespace.  Each test checks that nothing is left (state, cgroups) and
# teardown that the host's value did not move.  The last test drives the
# wrapper through rootless podman 4.3.1 (podman.bash) with the hook and
# the memfd-noexec service.

bats_require_minimum_version 1.5.0

load helpers
load podman
load crun
load syslog

WRAPPER_SRC="$BUILD_DIR/crun-sealed/crun-sealed"
U_WRAPPER="${STAGED_USER_BIN:+$STAGED_USER_BIN/crun-sealed}"
# What every crun of this suite runs with: the wrapper's marker.
# shellcheck disable=SC2034 # crun.bash's as reads it
CRUN_ENV=(CRUN_SEALED_DEBUG=1)

# The one-line hint of the wrapper when it cannot run crun sealed.
HINT='crun-sealed: crun cannot run from a copy: it would copy itself into a memfd again, which cannot execute at vm.memfd_noexec 1 or 2. What works instead:'

setup_file() {
	crun_stage || return 0
	[ -x "$WRAPPER_SRC" ] || return 0
	install -m 0755 "$WRAPPER_SRC" "$USER_BIN/crun-sealed"
	# Rootless podman for the last test (podman.bash; as podman.bats does).
	if command -v podman >/dev/null && [ -e /proc/sys/vm/memfd_noexec ]; then
		podman_stage
		# The wrapper as podman's runtime, its marker and every line
		# it and crun write to stderr appended to a log.
		write_logged_runtime "$USER_BIN/crun-sealed-logged" "$USER_BIN/crun-sealed" \
			"$PODMAN_T/rootless/crun-sealed.log" CRUN_SEALED_DEBUG=1
		write_crun_containers_conf "$PODMAN_T/rootless/containers.conf" \
			"$USER_BIN/crun-sealed-logged"
		chown "$TEST_USER:" "$PODMAN_T/rootless/containers.conf"
	fi
}

teardown_file() {
	podman_unstage
	unstage_user_binaries
}

setup() {
	crun_setup || return 1
	[ -x "$U_WRAPPER" ] || {
		echo "setup_file did not stage the wrapper ($WRAPPER_SRC: cmake --build build)" >&2
		return 1
	}
}

teardown() {
	crun_teardown
}

# ---- stock crun: the failure the wrapper exists for ------------------------------

@test "stock crun is the suite's own: 1.8.1 on Debian 12, 1.21 in the trixie root" {
	# tests/roots/run.sh sets SUITE in a suite's root; the host is bookworm.
	local want
	case ${SUITE:-bookworm} in
	bookworm) want=1.8.1 ;;
	trixie) want=1.21 ;;
	*) fail "no stock crun version known for suite '$SUITE' (bookworm, trixie)" ;;
	esac
	run crun_ns 0 "$STOCK_CRUN" --version
	assert_success
	assert_line "crun version $want"
}

@test "stock crun, rootless at 1 and 2: its copy is a memfd made without MFD_EXEC, whose exec fails with EACCES" {
	requires cmd:strace || return 1
	as rootless "$STOCK_CRUN"
	local level
	for level in 1 2 0; do
		echo "level: $level" >&2 # shown if this row fails
		# crun clones itself before it reads its arguments: --version
		# is enough.  strace (as root, in the namespace) follows the
		# setpriv of $T/runc to crun as the user.
		run crun_ns "$level" strace -f -qq -e trace=memfd_create,execveat \
			-o "$T/trace" "$T/runc" --version
		echo "$output"
		cat "$T/trace"
		run grep -E 'memfd_create\("crun_cloned' "$T/trace"
		assert_success
		assert_output --partial 'MFD_CLOEXEC|MFD_ALLOW_SEALING) = '
		refute_output --partial MFD_EXEC
		refute_output --partial MFD_NOEXEC_SEAL
		run grep -E '^[0-9]+ +execveat\([0-9]+, "",.*AT_EMPTY_PATH\)' "$T/trace"
		assert_success
		if [ "$level" = 0 ]; then
			assert_output --regexp '\) = 0$'
		else
			assert_output --regexp '\) = -1 EACCES \(Permission denied\)$'
			refute_output --regexp '\) = 0$'
		fi
	done
}

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

@test "a container created through crun-sealed holds no copy of crun: its init runs from the read-only overlay" {
	as rootless "$U_WRAPPER"
	bundle b . sleep 60
	local level
	for level in 2 0; do
		echo "level: $level" >&2 # shown if this row fails
		run crun_ns "$level" sh -c "$CREATED" b "$U_SEALEXEC"
		assert_success
		refute_line --regexp '^exe=/memfd:'
		assert_line fstype=overlayfs
		# root's fail-closed answer on 6.15+ (crun.bash, CREATED)
		assert_line --regexp '^/proc/[0-9]+/exe: (not a )?sealed clone$'
		assert_line --regexp '^write=.*Read-only file system$'
		assert_nothing_left
	done
	# Control: stock crun copies itself into a memfd, which the same
	# checks see (at level 0, where that copy can still execute).
	as rootless "$STOCK_CRUN"
	run crun_ns 0 sh -c "$CREATED" b "$U_SEALEXEC"
	assert_success
	assert_line --regexp '^exe=/memfd:'
	assert_line --regexp '^/proc/[0-9]+/exe: not a sealed clone$'
	assert_nothing_left
}

# The known bug of stock crun 1.8.1 and 1.21 (README, "Runtimes and
# Debian releases"): before a rootful container enters a user namespace
# whose root is another uid, crun chowns every standard stream that is
# not a terminal to that uid, a device too.  crun-sealed runs the same
# crun, so it does the same.  Measured on a copy of /dev/null only
# (crun.bash, ON_DEV_NULL_COPY); teardown checks the host's nodes.
@test "stock crun, and so crun-sealed: a rootful user-namespace container with its streams on /dev/null gets the device chowned to its root, which can then chmod it" {
	local bin
	for bin in "$STOCK_CRUN" "$U_WRAPPER"; do
		echo "row: $bin" >&2 # shown if it fails
		as rootful "$bin"
		bundle b "$USERNS_100000" /bin/sh -c "$CHMOD_DEV_NULL"
		run crun_ns 0 sh -c "$ON_DEV_NULL_COPY" b
		assert_success
		assert_line status=0
		# chowned, and then its chmod went through to the node
		assert_line 'node=100000:100000 600 1:3'
		assert_nothing_left
	done
}

@test "crun-sealed passes arguments, exit status, stdio and signals through, and stays one process" {
	local w=("$U_WRAPPER")
	# Only leading --crun= are the wrapper's; the rest, even
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

# assert_refused REASON: the run exited 126 with the loader's REASON and the
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
	assert_refused 'crun-sealed: Failed to make a sealed copy of /usr/bin/crun: Failed to open the binary from a detached overlayfs (overlay): no fsopen() (before Linux 5.2)'

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

@test "crun-sealed refuses hostile crun paths before anything runs, and never searches PATH" {
	local d="$T/bins" w=("$U_WRAPPER")
	mkdir -m 0755 "$d"
	install -m 0755 /bin/true "$d/crun"
	run "${w[@]}" --crun=bin/crun --version
	assert_failure 2
	assert_output "crun-sealed: Refusing the crun path 'bin/crun' from --crun: it must be an absolute path (for example /usr/bin/crun)"
	run env CRUN_SEALED_CRUN=crun "${w[@]}" --version
	assert_failure 2
	assert_output --partial "Refusing the crun path 'crun' from CRUN_SEALED_CRUN: it must be an absolute path"
	# A relative name is never looked up in PATH, even where PATH has it.
	run env PATH="$d" CRUN_SEALED_CRUN=crun "${w[@]}" --version
	assert_failure 2
	assert_output --partial "it must be an absolute path"
	run "${w[@]}" --crun="$d/none"
	assert_failure 126
	assert_output --partial "Refusing the crun path '$d/none' from --crun: it does not exist"
	run "${w[@]}" --crun="$d"
	assert_failure 126
	assert_output --partial "$d is not a regular file"
	run "${w[@]}" --crun=/dev/null
	assert_failure 126
	assert_output --partial "/dev/null is not a regular file"
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
	chown "$TEST_USER:" "$d"
	chown 0:0 "$d/crun"
	run "${w[@]}" --crun="$d/crun"
	assert_failure 126
	assert_output --partial "$d is owned by uid $(id -u "$TEST_USER"), neither root nor you"
	chown 0:0 "$d"
	run "${w[@]}" --sealexec=/usr/bin/sealexec --crun="$d/crun"
	assert_failure 2
	assert_output --partial "option --sealexec=/usr/bin/sealexec: crun-sealed no longer runs sealexec"
	run "${w[@]}" --crun= --version
	assert_failure 2
	assert_output "crun-sealed: option --crun= needs a value: --crun=/absolute/path"
	run "${w[@]}" --crun "$d/crun"
	assert_failure 2
	assert_output --partial "option --crun needs its value after '='"
	run env CRUN_SEALED_DEBUG=yes "${w[@]}" --crun="$d/crun"
	assert_failure 2
	assert_output --partial "invalid CRUN_SEALED_DEBUG='yes'; allowed: 1"
	# A script is refused (its interpreter would run the writable original).
	printf '#!/bin/sh\necho ran\n' >"$d/crun"
	run "${w[@]}" --crun="$d/crun"
	assert_failure 126
	assert_output --partial 'is a script'
	refute_output --partial ran
	# Control: the same checks let the right file through, by a symlink too.
	install -m 0755 /bin/true "$d/crun"
	run "${w[@]}" --crun="$T/link"
	assert_success
}

# In the initial user namespace the overflow uid (65534) is the ordinary
# nobody account, who must not be able to replace what runs as root.  In a
# user namespace where global root is unmapped (rootless podman's, or
# `unshare -U -r`), root's files show as that uid, and so do every other
# unmapped user's: there only the packaged /usr/bin/crun is taken for
# root's, and any other path is refused with the reason (issue 41: a crun
# of another user's, 0755, ran there).
@test "crun-sealed: the overflow uid is refused in the initial user namespace; where root is unmapped only the packaged crun is trusted" {
	# other: a uid that is neither root, nor the test user, nor the
	# overflow uid ("another user"; it needs no account to own a file).
	local d="$T/bins" nobody other=4343
	nobody=$(cat /proc/sys/kernel/overflowuid)
	mkdir -m 0755 "$d"
	install -m 0755 -o "$nobody" /bin/true "$d/crun"
	run "$U_WRAPPER" --crun="$d/crun"
	assert_failure 126
	assert_output --partial "$d/crun is owned by uid $nobody, neither root nor you"
	# The test user in a user namespace of its own, where global root
	# (the owner of /usr/bin/crun, /usr/bin, /usr and /) is unmapped and
	# shows as the overflow uid: the packaged crun runs from the overlay,
	# named or by default.
	for how in default --crun=/usr/bin/crun; do
		run as_user unshare --user --map-current-user sh -c \
			'stat -c "owner=%u" /usr/bin/crun; CRUN_SEALED_DEBUG=1 "$1" ${2#default} --version; echo "rc=$?"' \
			sh "$U_WRAPPER" "$how"
		assert_line "owner=$nobody"
		assert_line rc=0
		assert_marker overlay
		assert_line --partial "crun version"
	done
	# Any other crun there is refused, whoever owns it: root, or another
	# user, whose files show as the same uid.
	for owner in 0 "$other"; do
		chown "$owner:0" "$d/crun"
		run as_user unshare --user --map-current-user sh -c \
			'stat -c "owner=%u" "$1"; CRUN_SEALED_DEBUG=1 "$2" --crun="$1" --version; echo "rc=$?"' \
			sh "$d/crun" "$U_WRAPPER"
		assert_line "owner=$nobody"
		assert_line rc=126
		assert_line "crun-sealed: Refusing the crun path '$d/crun' from --crun: / shows as owned by uid $nobody, the overflow uid: global root is unmapped in this user namespace, and every owner unmapped here shows as that uid, root and any other user alike, so it cannot be told here whether someone else could replace what runs. Here only the packaged /usr/bin/crun is taken on trust; run crun-sealed from the initial user namespace (where owners show) to use another crun"
		refute_line --partial "cloned_binary: using"
	done
	# A symlink to the packaged crun is the packaged crun: the walk is of
	# the path it resolves to.
	ln -s /usr/bin/crun "$d/link"
	run as_user unshare --user --map-current-user sh -c \
		'CRUN_SEALED_DEBUG=1 "$1" --crun="$2" --version; echo "rc=$?"' sh "$U_WRAPPER" "$d/link"
	assert_line rc=0
	assert_marker overlay
	# What the wrapper reads there: /proc/sys/kernel/overflowuid, owned by
	# global root, shows as owned by the overflow uid (in the initial
	# namespace, as owned by 0, so the rule is off there).
	run as_user unshare --user --map-current-user sh -c 'stat -c "%u" /proc/sys/kernel/overflowuid'
	assert_output "$nobody"
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

# (Not named "stock crun ...": tests/run-all.sh runs those in the trixie
# root too, which has no python3 for the /dev/log listener.)
@test "hook under stock crun: crun hides the hook's refusal; syslog has it, with the container's id" {
	[ -x "$U_MEMFD_NOEXEC" ] || missing "memfd-noexec at $MEMFD_NOEXEC" || return 1
	[ -x /usr/bin/python3 ] || missing "/usr/bin/python3" || return 1
	as rootful "$STOCK_CRUN"
	# A bad value, and no run.oci.hooks.stderr: what a user of podman
	# with crun gets.
	bundle b '.annotations.memfd_noexec = "3" |
		.hooks.prestart += [{"path": $ENV.U_MEMFD_NOEXEC, "args": ["memfd-noexec", "hook"]}]'
	run with_dev_log "$T/syslog" crun_ns 0 "$T/runc" --debug run -b "$T/b" "$ID"
	assert_failure
	assert_output --regexp "error executing hook .$U_MEMFD_NOEXEC. \\(exit code: 1\\)"
	refute_output --partial 'annotations["memfd_noexec"]'
	refute_output --partial 'memfdprobe:'
	with_output "$(cat "$T/syslog")" assert_line --regexp \
		"^<27>.* memfd-noexec\\[[0-9]+\\]: hook refused container $ID \\(pid [0-9]+\\): Refusing annotations\\[\"memfd_noexec\"\\] = \"3\" in $T/b/config.json: allowed values are"
	assert_nothing_left
}

# ---- rootless podman with the wrapper as its default runtime -----------------------

@test "rootless podman, crun-sealed as the default runtime + hooks.d + service: annotation 2 at level 0 reads 2" {
	podman_requires podman-rootless hook || return 1
	grep -qxF "runtime = \"crun\"" "$PODMAN_T/rootless/containers.conf" ||
		fail "the rootless containers.conf does not make crun the default: $(cat "$PODMAN_T/rootless/containers.conf")"
	start_default_service "$T/serve.log" || return 1
	# rpodman: rootless podman in a child PID namespace at 0.
	run rpodman 0 --hooks-dir "$PODMAN_T/hooks.d" run --rm --network none \
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
	run rpodman inherit info --format '{{.Host.OCIRuntime.Path}}'
	assert_success
	assert_output "$USER_BIN/crun-sealed-logged"
	assert_rootless_clean
}
