#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The patched runc (contrib/runc/build.sh, RUNC=path overrides): run, exec
# and create/start/delete, rootful and rootless, at every vm.memfd_noexec
# level (each in a child PID namespace) and under the emulated kernels of
# fakekernel; plus CVE-2019-5736-style write attempts on runc init's binary.
#
# Every runc runs with --debug; the loader's markers reach its stderr as
# nsexec log lines:  msg="nsexec[PID]: cloned_binary: using memfd-exec",
# or runc's own msg="cloned_binary: using overlay" when runc starts runc
# init from the overlay itself (patch 0004).

load helpers

# setup_file stages runc, fakekernel and the bundle in a world-readable
# directory; bats re-reads this file for every test, so the staged paths
# come back through the STAGED_* variables it exports.
RUNC="${STAGED_RUNC:-$RUNC}"
FAKEKERNEL="${STAGED_FAKEKERNEL:-$FAKEKERNEL}"
BUNDLE_DIR="${STAGED_BUNDLE_DIR:-$BUILD_DIR/bundle-runc}"
ROOTFS="$BUNDLE_DIR/rootfs"
# shellcheck disable=SC2034 # read by runc_bundle and runc_dirs (helpers.bash)
RUNC_TMP=runc-bats # names the suite's directories in /tmp


# A read-only busybox rootfs and the two base configs, made once.
setup_file() {
	[ "$(id -u)" -eq 0 ] && [ -x "$RUNC" ] || return 0
	# Run everything from a world-readable copy: the build tree may sit
	# below a directory the rootless user cannot traverse.
	stage_user_binaries
	install -m 0755 "$RUNC" "$USER_BIN/runc"
	RUNC="$USER_BIN/runc" FAKEKERNEL="$U_FAKEKERNEL"
	BUNDLE_DIR="$USER_BIN/bundle-runc" ROOTFS="$USER_BIN/bundle-runc/rootfs"
	STAGED_RUNC="$RUNC" STAGED_FAKEKERNEL="$FAKEKERNEL"
	STAGED_BUNDLE_DIR="$BUNDLE_DIR"
	export STAGED_RUNC STAGED_FAKEKERNEL STAGED_BUNDLE_DIR
	runc_bundle sh true sleep cat ls readlink echo
}

teardown_file() {
	unstage_user_binaries
}

setup() {
	requires root runc cmd:jq cmd:busybox || return 1
	HOST_LEVEL_BEFORE="$(host_level)"
	HOST_DEVICES_BEFORE="$(host_devices)"
	RUNC_SUM_BEFORE="$(sha256sum <"$RUNC")"
	runc_dirs
	export RUNC
}

teardown() {
	local rc=0 # teardown runs without errexit: each check counts through rc
	if [ -n "${T:-}" ] && [ -d "$T" ]; then
		# Containers left by a failed test: their PID namespace is gone,
		# so delete -f only has to clean up state and cgroups.
		local id
		for id in $(plain_runc list -q 2>/dev/null); do
			plain_runc delete -f "$id" >/dev/null 2>&1 || true
		done
		rm -rf "$T"
	fi
	# The host's value must never change, nor the runc binary.
	assert_host_level_unchanged "${HOST_LEVEL_BEFORE:-}" || rc=1
	assert_host_devices_unchanged "${HOST_DEVICES_BEFORE:-}" || rc=1
	if [ -n "${RUNC_SUM_BEFORE:-}" ] && [ "$(sha256sum <"$RUNC")" != "$RUNC_SUM_BEFORE" ]; then
		fail "the runc binary $RUNC changed during the test"
		rc=1
	fi
	return "$rc"
}

# ---- how runc is started ---------------------------------------------------
#
# as MODE [KERNEL [FAIL]]: write $T/runc, the runc command of this test:
#   [fakekernel --kernel=KERNEL [--fail=FAIL] --] [setpriv to $TEST_USER]
#   runc --root $STATE
# MODE is rootful or rootless.  Each call of $T/runc is one runc process,
# wrapped on its own; the PID namespace (at_level --proc) wraps the whole test.
as() {
	MODE="$1" KERNEL="${2:-}"
	set -- "$1" "${2:-}" "${3:-}"
	local -a cmd=()
	[ -z "$KERNEL$3" ] || cmd+=("$FAKEKERNEL")
	[ -z "$KERNEL" ] || cmd+=("--kernel=$KERNEL")
	[ -z "${3:-}" ] || cmd+=("--fail=$3")
	[ -z "$KERNEL$3" ] || cmd+=(--)
	write_runc "$RUNC" "${cmd[@]}"
}

# bundle NAME ARGS...: $T/NAME/config.json for MODE, running ARGS.
bundle() {
	local name="$1"
	shift
	local args='[]' a
	# One --arg each: jq --args would take "-c" for its own option.
	for a in "$@"; do
		args=$(jq -c --arg a "$a" '. + [$a]' <<<"$args")
	done
	mkdir -p "$T/$name"
	# fakekernel hides /proc/sys/vm behind a mount, and a user namespace
	# may mount a new proc only where none is partly hidden; so rootless
	# containers under fakekernel bind the (PID namespace's own) /proc.
	jq --arg root "$ROOTFS" --argjson args "$args" \
		--arg procbind "$([ "$MODE" = rootless ] && [ -n "$KERNEL" ] && echo 1)" '
		.root.path = $root | .root.readonly = true |
		.process.terminal = false | .process.args = $args |
		if $procbind == "1" then .mounts |= map(
			if .destination == "/proc" then
				{destination: "/proc", type: "bind", source: "/proc",
				 options: ["rbind", "nosuid", "noexec", "nodev"]}
			else . end) else . end' \
		"$BUNDLE_DIR/$MODE.json" >"$T/$name/config.json"
	chmod -R a+rX "$T/$name"
}

# ---- assertions ------------------------------------------------------------

# assert_runc_marker METHOD [FILE]: runc's debug log (FILE, else $output)
# shows that runc init runs from a sealed clone made with METHOD (an ERE
# alternation) and recognised it.  The overlay is made by runc itself,
# which starts runc init from it (patch 0004): runc init must not clone
# itself again.  Every other method is runc init's own re-exec.
assert_runc_marker() {
	local text="${2:+$(cat "$2")}" who='nsexec\[[0-9]+\]: '
	[ -n "$text" ] || text="$output"
	[ "$1" != overlay ] || who=''
	local using="msg=\"${who}cloned_binary: using ($1)\"" sealed='cloned_binary: running from sealed clone"'
	if ! grep -qE "$using" <<<"$text" || ! grep -qF "$sealed" <<<"$text"; then
		batslib_print_kv_single_or_multi 8 'markers' \
			"'${who}cloned_binary: using ($1)' and 'cloned_binary: running from sealed clone'" \
			'log' "$text" |
			batslib_decorate "runc init's markers are not in runc's debug log" | fail
		return
	fi
	if [ "$1" = overlay ] && grep -qE 'msg="nsexec\[[0-9]+\]: cloned_binary: using ' <<<"$text"; then
		batslib_print_kv_single_or_multi 8 'log' "$text" |
			batslib_decorate "runc init cloned itself again, although runc started it from the overlay" |
			fail
		return
	fi
	if grep -qF 'could not ensure we are a cloned binary' <<<"$text"; then
		batslib_print_kv_single_or_multi 8 'log' "$text" |
			batslib_decorate "runc init failed to clone itself" | fail
	fi
}

# method_for LEVEL [KERNEL]: the method runc init must choose at LEVEL
# (or "host", the initial namespace's) on the real kernel or under the
# fakekernel profiles KERNEL, for MODE.  The overlay needs the new mount
# API and, rootless, a user namespace; without it the copies follow.
method_for() {
	local level="$1" kernel=",${2:-},"
	[ "$level" != host ] || level=$(host_level)
	case "$kernel" in
	*,nomemfd,*notmpfile,*) echo mkostemp ;;
	*,nomemfd,*) echo tmpfile ;;
	*,nofsopen,* | *,nooverlay,* | *,noexecveat,*) copy_method_for "$level" "$kernel" ;;
	*,nouserns,*)
		if [ "$MODE" = rootless ]; then
			copy_method_for "$level" "$kernel"
		else
			echo overlay
		fi ;;
	*) echo overlay ;;
	esac
}

copy_method_for() {
	case "$1:$2" in
	2:*) echo 'tmpfile|mkostemp' ;;
	*,6.1,*) echo memfd ;;
	*) echo memfd-exec ;;
	esac
}

# check_clone_exe METHOD LINK ID: runc init's /proc/PID/exe (LINK) is the
# clone, not the host binary: the binary at the root of its detached
# overlay ("/runc", a path in no mount tree), an unlinked memfd, or an
# unlinked file in the container's state directory (the shim points the
# tmpfile methods there).
check_clone_exe() {
	case "$3:$1" in
	*:overlay) [[ "$2" == "/runc" ]] ;;
	*:memfd*) [[ "$2" == "/memfd:cloned_binary (deleted)" ]] ;;
	*) [[ "$2" == "$STATE/$3/"*" (deleted)" ]] ;;
	esac || fail "runc init runs from '$2', expected a $1 clone"
}

# ---- run -------------------------------------------------------------------

# check_run MODE LEVEL [KERNEL]
check_run() {
	as "$1" "${3:-}"
	bundle b /bin/sh -c 'echo container-ran; env; exit 7'
	run at_level --proc "$2" "$T/runc" --debug run -b "$T/b" ctr
	assert_failure 7
	assert_output --partial container-ran
	assert_runc_marker "$(method_for "$2" "${3:-}")"
	# The loader's variables stay out of the container.
	refute_line --regexp '^(_CLONED_BINARY_REEXEC|_LIBCONTAINER_[A-Z]+)='
	# run removes its container.
	[ -z "$(ls -A "$STATE")" ] || fail "runc run left state behind: $(ls -A "$STATE")"
}

@test "runc --version names the memfd-toolkit loader" {
	run "$RUNC" --version
	assert_success
	assert_output --partial "loader: sealed W^X (memfd-toolkit "
	assert_output --partial "runc version 1.1."
}

@test "rootful runc run at vm.memfd_noexec=0 uses the overlay, no copy" {
	requires memfd_noexec
	check_run rootful 0
}

@test "rootful runc run at vm.memfd_noexec=1 uses the overlay, no copy" {
	requires memfd_noexec
	check_run rootful 1
}

@test "rootful runc run at vm.memfd_noexec=2 uses the overlay, no copy" {
	requires memfd_noexec
	check_run rootful 2
}

@test "rootful runc run at vm.memfd_noexec=2 without the mount API (fakekernel nofsopen) falls back to a file" {
	requires memfd_noexec fakekernel seccomp
	check_run rootful 2 nofsopen
}

@test "rootless runc run at vm.memfd_noexec=0 uses the overlay, no copy" {
	requires memfd_noexec user userns
	check_run rootless 0
}

@test "rootless runc run at vm.memfd_noexec=1 uses the overlay, no copy" {
	requires memfd_noexec user userns
	check_run rootless 1
}

@test "rootless runc run at vm.memfd_noexec=2 uses the overlay, no copy" {
	requires memfd_noexec user userns
	check_run rootless 2
}

@test "rootless runc run at vm.memfd_noexec=2 without the mount API (fakekernel nofsopen) falls back to a file" {
	requires memfd_noexec user userns fakekernel seccomp
	check_run rootless 2 nofsopen
}

# ---- exec ------------------------------------------------------------------

# check_exec MODE LEVEL [KERNEL]: create, exec (the marker of exec's own
# runc init), delete -f; one PID namespace for all three.
check_exec() {
	as "$1" "${3:-}"
	bundle b /bin/sleep 60
	run at_level --proc "$2" sh -ec '
		"$T/runc" create -b "$T/b" ctr </dev/null >/dev/null 2>"$T/create.log"
		rc=0
		"$T/runc" --debug exec ctr /bin/sh -c "echo exec-ran; exit 3" || rc=$?
		"$T/runc" delete -f ctr
		exit $rc'
	assert_failure 3
	assert_output --partial exec-ran
	assert_runc_marker "$(method_for "$2" "${3:-}")"
	[ -z "$(ls -A "$STATE")" ]
}

@test "rootful runc exec at vm.memfd_noexec=0 uses the overlay" {
	requires memfd_noexec
	check_exec rootful 0
}

@test "rootful runc exec at vm.memfd_noexec=2 uses the overlay" {
	requires memfd_noexec
	check_exec rootful 2
}

@test "rootless runc exec at vm.memfd_noexec=0 uses the overlay" {
	requires memfd_noexec user userns
	check_exec rootless 0
}

@test "rootless runc exec at vm.memfd_noexec=2 uses the overlay" {
	requires memfd_noexec user userns
	check_exec rootless 2
}

@test "rootful runc exec at vm.memfd_noexec=1 without the mount API uses memfd-exec" {
	requires memfd_noexec fakekernel seccomp
	check_exec rootful 1 nofsopen
}

@test "rootless runc exec at vm.memfd_noexec=2 without the mount API falls back to a file" {
	requires memfd_noexec fakekernel seccomp user userns
	check_exec rootless 2 nofsopen
}

# ---- emulated kernels --------------------------------------------------------
# At a real level 0, so that only the emulation decides.

@test "fakekernel 6.1: rootful runc run uses overlay" {
	requires memfd_noexec fakekernel seccomp
	check_run rootful 0 6.1
}

@test "fakekernel 6.1: rootless runc run uses overlay" {
	requires memfd_noexec fakekernel seccomp user userns
	check_run rootless 0 6.1
}

@test "fakekernel 6.1,nooverlay: rootful runc run uses memfd" {
	requires memfd_noexec fakekernel seccomp
	check_run rootful 0 6.1,nooverlay
}

@test "fakekernel 6.1,nooverlay: rootless runc run uses memfd" {
	requires memfd_noexec fakekernel seccomp user userns
	check_run rootless 0 6.1,nooverlay
}

@test "fakekernel nofsopen: rootful runc run uses memfd-exec" {
	requires memfd_noexec fakekernel seccomp
	check_run rootful 0 nofsopen
}

@test "fakekernel nofsopen: rootless runc run uses memfd-exec" {
	requires memfd_noexec fakekernel seccomp user userns
	check_run rootless 0 nofsopen
}

@test "fakekernel nooverlay: rootful runc run uses memfd-exec" {
	requires memfd_noexec fakekernel seccomp
	check_run rootful 0 nooverlay
}

@test "fakekernel nouserns: rootful runc run uses overlay" {
	requires memfd_noexec fakekernel seccomp
	check_run rootful 0 nouserns
}

@test "loader's user namespace refused: rootless runc run falls back to memfd-exec, saying why" {
	requires memfd_noexec fakekernel seccomp user userns
	# Only the loader's clone(CLONE_VM|CLONE_FILES|CLONE_VFORK|CLONE_NEWNS|
	# CLONE_NEWUSER|SIGCHLD): runc itself needs its own user namespace
	# (nouserns would stop runc altogether).
	as rootless '' 'clone[0==0x10024511]=EPERM'
	bundle b /bin/sh -c 'echo container-ran'
	run at_level --proc 0 "$T/runc" --debug run -b "$T/b" ctr
	assert_success
	assert_output --partial container-ran
	assert_output --partial 'cloned_binary: overlay not possible (clone(CLONE_NEWUSER|CLONE_NEWNS) failed: Operation not permitted (no unprivileged user namespaces here'
	assert_runc_marker memfd-exec
}

@test "fakekernel nomemfd: rootful runc run uses tmpfile" {
	requires memfd_noexec fakekernel seccomp
	check_run rootful 0 nomemfd
}

@test "fakekernel nomemfd: rootless runc run uses tmpfile" {
	requires memfd_noexec fakekernel seccomp user userns
	check_run rootless 0 nomemfd
}

@test "fakekernel nomemfd,notmpfile: rootful runc run uses mkostemp" {
	requires memfd_noexec fakekernel seccomp
	check_run rootful 0 nomemfd,notmpfile
}

@test "fakekernel nomemfd,notmpfile: rootless runc run uses mkostemp" {
	requires memfd_noexec fakekernel seccomp user userns
	check_run rootless 0 nomemfd,notmpfile
}

@test "fakekernel 6.1,nooverlay: rootful runc exec uses memfd" {
	requires memfd_noexec fakekernel seccomp
	check_exec rootful 0 6.1,nooverlay
}

@test "fakekernel nomemfd: rootless runc exec uses tmpfile" {
	requires memfd_noexec fakekernel seccomp user userns
	check_exec rootless 0 nomemfd
}

@test "a loader failure is reported without --debug and stops runc init" {
	requires memfd_noexec fakekernel seccomp
	# No memfd, no O_TMPFILE, and every O_EXCL create (mkostemp's) is
	# refused as if each candidate directory were read-only.
	as rootful nomemfd,notmpfile 'openat[2&0x80==0x80]=EROFS'
	bundle b /bin/sh -c 'echo container-ran'
	run at_level --proc 0 "$T/runc" run -b "$T/b" ctr
	assert_failure 1
	assert_output --partial 'level=error msg="nsexec['
	assert_output --partial 'cloned_binary: Failed to find a usable directory for the sealed copy (tmpfile); the last one tried, /dev/shm: cannot create a file there: Read-only file system'
	assert_output --partial 'could not ensure we are a cloned binary: Read-only file system'
	refute_output --partial container-ran # not without a clone
}

@test "a sealing failure stops runc init with the loader's reason (the shim's failure path)" {
	requires memfd_noexec fakekernel seccomp
	as rootful nofsopen 'fcntl[1&0xffffffff==1033]=EPERM'
	bundle b /bin/sh -c 'echo container-ran'
	run at_level --proc 0 "$T/runc" run -b "$T/b" ctr
	assert_failure 1
	assert_output --partial 'cloned_binary: Failed to seal the memfd (memfd-exec): Operation not permitted'
	assert_output --partial 'could not ensure we are a cloned binary: Operation not permitted'
	refute_output --partial container-ran # not without a sealed clone
	[ -z "$(ls -A "$STATE")" ] || fail "state left behind: $(ls -A "$STATE")"
}

# ---- create, start, delete: nothing left behind -----------------------------

# Named leftovers the tmpfile methods could leave (mkostemp names its file
# .cloned_binary-XXXXXX before unlinking it; O_TMPFILE never has a name).
# Every loader on the machine names its copies so, and other tests make and
# remove them meanwhile: a file counts only if it is a copy of this test's
# runc, whole or begun (its bytes are a prefix of $RUNC).
leftovers() {
	local d f
	for d in "$T/xdg" /run /tmp /var/tmp /dev/shm; do
		for f in "$d"/.cloned_binary-*; do
			[ -f "$f" ] && cmp -s -n "$(stat -c %s "$f")" "$f" "$RUNC" && echo "$f"
		done
	done | sort
}

# own_mounts MOUNTINFO: the lines of a mountinfo file that name this test's
# directories (its $T, the staged runc's directory with the bundle, which
# is also the loader overlay's lower layer) as mount point, source or
# option: what runc or its loader could leave attached.  In the host's
# mount namespace others mount and unmount meanwhile, and only these count.
own_mounts() {
	grep -F -e "$T" -e "$(dirname "$RUNC")" -e "$BUNDLE_DIR" "$1" || :
}

# check_lifecycle MODE LEVEL [KERNEL]
check_lifecycle() {
	local method
	as "$1" "${3:-}"
	method=$(method_for "$2" "${3:-}")
	bundle b /bin/true
	leftovers >"$T/leftovers.before"
	run at_level --proc "$2" sh -ec '
		cat /proc/self/mountinfo >"$T/mounts.before"
		"$T/runc" --debug create -b "$T/b" ctr </dev/null >/dev/null 2>"$T/create.log"
		pid=$("$T/runc" state ctr | jq -r .pid)
		readlink "/proc/$pid/exe" >"$T/init-exe"
		ls -A "$STATE/ctr" >"$T/statedir"
		"$T/runc" start ctr
		i=0
		while [ "$("$T/runc" state ctr | jq -r .status)" != stopped ]; do
			i=$((i + 1))
			[ $i -lt 100 ] || { echo "container did not stop"; exit 1; }
			sleep 0.1
		done
		"$T/runc" delete ctr
		cat /proc/self/mountinfo >"$T/mounts.after"'
	assert_success
	assert_runc_marker "$method" "$T/create.log"
	check_clone_exe "$method" "$(cat "$T/init-exe")" ctr
	# While runc init waited, its state directory held runc's files only.
	if grep -v -x -e exec.fifo -e state.json "$T/statedir"; then
		fail "unexpected files in the state directory (above); it held: $(cat "$T/statedir")"
	fi
	# No state, no mounts, no named temporary files are left.  At a level,
	# the test had a mount namespace of its own (at_level --proc, private
	# propagation): every mount in it is the test's.  In the host's, only
	# the mounts that name the test's directories are.
	[ -z "$(ls -A "$STATE")" ] || { fail "state left in $STATE: $(ls -la "$STATE")"; return; }
	local left
	if [ "$2" = host ]; then
		left=$(diff -u <(own_mounts "$T/mounts.before") <(own_mounts "$T/mounts.after")) ||
			{ fail "mounts of this test's directories left in the host's mount namespace: $left"; return; }
	else
		left=$(diff -u "$T/mounts.before" "$T/mounts.after") ||
			{ fail "mounts left in the test's mount namespace: $left"; return; }
	fi
	left=$(leftovers | diff -u "$T/leftovers.before" -) ||
		fail "named copies of runc left behind: $left"
}

@test "create/start/delete rootful in the initial namespaces leaves nothing" {
	check_lifecycle rootful host
}

@test "create/start/delete rootful at vm.memfd_noexec=0 on the overlay leaves nothing" {
	requires memfd_noexec
	check_lifecycle rootful 0
}

@test "create/start/delete rootful at vm.memfd_noexec=2 leaves nothing" {
	requires memfd_noexec
	check_lifecycle rootful 2
}

@test "create/start/delete rootless at vm.memfd_noexec=2 leaves nothing" {
	requires memfd_noexec user userns
	check_lifecycle rootless 2
}

@test "create/start/delete rootful at vm.memfd_noexec=2 without the mount API leaves nothing" {
	requires memfd_noexec fakekernel seccomp
	check_lifecycle rootful 2 nofsopen
}

@test "create/start/delete rootless at vm.memfd_noexec=0 on the overlay leaves nothing" {
	requires memfd_noexec user userns
	check_lifecycle rootless 0
}

@test "create/start/delete rootless under fakekernel mkostemp leaves nothing" {
	requires memfd_noexec fakekernel seccomp user userns
	check_lifecycle rootless 0 nomemfd,notmpfile
}

# ---- CVE-2019-5736 ------------------------------------------------------------
#
# The copy methods are attacked rootful here (under fakekernel nofsopen);
# rootless, fakekernel's filter keeps the attacker from even opening
# /proc/1/exe, so sealexec.bats covers them as the user instead.
#
# With runc init waiting in a created container, try to write its binary:
#  - from the host, as root, through /proc/PID/exe;
#  - from inside the container (runc exec), through /proc/1/exe (runc init
#    is PID 1 there) and through /proc/self/exe;
#  - the original exploit's way: keep a handle on /proc/1/exe, let runc init
#    exec the container's process (runc start), then reopen the handle for
#    writing through /proc/self/fd.
# Every attempt must fail, and the host's runc must be unchanged (also
# checked in teardown).

# check_cve MODE LEVEL [KERNEL]
check_cve() {
	local method
	as "$1" "${3:-}"
	method=$(method_for "$2" "${3:-}")
	OVL_ATTACK="$BUILD_DIR/tests/helpers/ovl-attack"
	export OVL_ATTACK
	bundle b /bin/sleep 60
	run at_level --proc "$2" sh -ec '
		cat /proc/self/mountinfo >"$T/mounts.before"
		"$T/runc" --debug create -b "$T/b" ctr </dev/null >/dev/null 2>"$T/create.log"
		pid=$("$T/runc" state ctr | jq -r .pid)
		readlink "/proc/$pid/exe" >"$T/init-exe"
		if echo PWNED 2>/dev/null >>"/proc/$pid/exe"; then
			echo host-write=ok
		else
			echo host-write=failed
		fi
		# Root on the host, holding the file: can its mount be made
		# writable (the overlay method only)?
		[ "$(cat "$T/init-exe")" != /runc ] || "$OVL_ATTACK" "/proc/$pid/exe" || true
		cat "/proc/$pid/mountinfo" >"$T/container-mounts"
		for f in /proc/$pid/fd/*; do readlink "$f"; done >"$T/init-fds"
		"$T/runc" exec ctr /bin/sh -c "
			if echo PWNED >>/proc/1/exe; then echo direct-write=ok
			else echo direct-write=failed; fi
			if (exec 3>>/proc/self/exe); then echo self-write=ok
			else echo self-write=failed; fi
			e=\$(readlink /proc/1/exe)
			for f in /proc/1/fd/* /proc/self/fd/*; do
				[ \"\$(readlink \$f)\" != \"\$e\" ] || echo fd-leak=\$f
			done
			echo fds-checked" 2>&1
		"$T/runc" exec -d ctr /bin/sh -c "
			exec 4</proc/1/exe && echo held=ok || echo held=failed
			i=0
			while [ \"\$(readlink /proc/1/exe)\" != /bin/busybox ] && [ \$i -lt 100 ]; do
				sleep 0.1; i=\$((i + 1))
			done
			echo pid1=\$(readlink /proc/1/exe)
			if echo PWNED >>/proc/self/fd/4; then echo handle-write=ok
			else echo handle-write=failed; fi
			echo done" </dev/null >"$T/attack.out" 2>&1
		"$T/runc" start ctr
		i=0
		until grep -qx done "$T/attack.out"; do
			i=$((i + 1))
			[ $i -lt 150 ] || { echo "attacker did not finish"; break; }
			sleep 0.1
		done
		cat "$T/attack.out"
		"$T/runc" delete -f ctr
		cat /proc/self/mountinfo >"$T/mounts.after"'
	assert_success
	assert_runc_marker "$method" "$T/create.log"
	check_clone_exe "$method" "$(cat "$T/init-exe")" ctr
	local want
	for want in host-write=failed direct-write=failed self-write=failed \
		held=ok pid1=/bin/busybox handle-write=failed fds-checked; do
		assert_output --partial "$want"
	done
	refute_line --regexp -- '-write=ok|fd-leak=|WRITABLE' # no write, no fd of the binary
	if [ "$method" = overlay ]; then
		assert_output --partial "ovl-attack: defeated"
		# Attached nowhere: no new mount in the test's own mount namespace
		# (at_level --proc), nor in the container.
		local left
		left=$(diff -u "$T/mounts.before" "$T/mounts.after") ||
			fail "mounts left in the test's mount namespace: $left"
		if grep ' - overlay ' "$T/container-mounts"; then
			fail "an overlay mount (above) shows in the container"
		fi
	fi
	# runc init holds no fd of the binary (its exe is all it needs).
	if grep -xF -- "$(cat "$T/init-exe")" "$T/init-fds"; then
		fail "runc init holds an fd of its binary (above)"
	fi
	[ "$(sha256sum <"$RUNC")" = "$RUNC_SUM_BEFORE" ]
}

@test "CVE-2019-5736: rootful runc init on the overlay cannot be written, nor its mount made writable" {
	requires memfd_noexec
	check_cve rootful 0
}

@test "CVE-2019-5736: rootful runc init on the overlay at vm.memfd_noexec=2 cannot be written" {
	requires memfd_noexec
	check_cve rootful 2
}

@test "CVE-2019-5736: rootful runc init's memfd clone cannot be written (no mount API)" {
	requires memfd_noexec fakekernel seccomp
	check_cve rootful 0 nofsopen
}

@test "CVE-2019-5736: rootful runc init's tmpfile clone cannot be written (no mount API, level 2)" {
	requires memfd_noexec fakekernel seccomp
	check_cve rootful 2 nofsopen
}

@test "CVE-2019-5736: rootless runc init on the overlay cannot be written, nor its mount made writable" {
	requires memfd_noexec user userns
	check_cve rootless 0
}

@test "CVE-2019-5736: rootless runc init on the overlay at vm.memfd_noexec=2 cannot be written" {
	requires memfd_noexec user userns
	check_cve rootless 2
}
