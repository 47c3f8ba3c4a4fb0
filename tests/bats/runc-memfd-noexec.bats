#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The per-container vm.memfd_noexec policy: the OCI annotation
# "memfd_noexec" (or linux.sysctl["vm.memfd_noexec"]) = "0", "1" or "2".
#
#  - The patched runc (RUNC: contrib/runc/build.sh's build/runc, runc
#    1.1.5, by default; tests/roots/run.sh sets it to the packaged runc of
#    a suite's root, 1.1.15 in trixie): runc create/run read config.json
#    with memfd-toolkit's C parser first; nsexec's stage-0 applies the
#    level to the container's PID namespace before stage-2 runs.
#  - Debian's stock runc (STOCK_RUNC, default /usr/sbin/runc; the suite's
#    own in a root) with the `memfd-noexec hook` (BUILD_DIR/
#    memfd-noexec/memfd-noexec) as a prestart hook in config.json (a stock runc
#    reads no hooks.d; podman.bats tests the hooks.d file through podman).
#
# Every runc runs inside `at_level --proc N` (a child PID namespace set to
# N), so no write can ever reach the initial namespace; teardown checks that the
# host's value did not move.  Inside the container, a static memfdprobe
# (built in setup_file: tests/helpers/memfdprobe.c, whose CMake target is
# dynamic) reports what memfd_create() gives.

load helpers

# setup_file stages runc and the bundle in a world-readable directory;
# bats re-reads this file for every test, so the staged paths come back
# through the STAGED_* variables it exports (as in runc.bats).
RUNC="${STAGED_RUNC:-$RUNC}"
USER_BIN="${STAGED_USER_BIN:-}"
BUNDLE_DIR="${STAGED_BUNDLE_DIR:-$BUILD_DIR/bundle-runc-memfd-noexec}"
ROOTFS="$BUNDLE_DIR/rootfs"
# shellcheck disable=SC2034 # read by runc_bundle and runc_dirs (helpers.bash)
RUNC_TMP=runc-mfdn # names the suite's directories in /tmp
STOCK_RUNC="${STOCK_RUNC:-/usr/sbin/runc}"
MEMFD_NOEXEC="$BUILD_DIR/memfd-noexec/memfd-noexec"

# What the container runs: its user namespace mapping, then the probes.
PROBE='cat /proc/self/uid_map; for m in level none exec exec-run; do memfdprobe $m; done'
export PROBE

# A read-only busybox rootfs with a static memfdprobe, and the two base
# configs, made once in a world-readable directory (the rootless user runs
# runc from there).
setup_file() {
	[ "$(id -u)" -eq 0 ] && [ -x "$RUNC" ] || return 0
	stage_user_binaries
	install -m 0755 "$RUNC" "$USER_BIN/runc"
	RUNC="$USER_BIN/runc"
	BUNDLE_DIR="$USER_BIN/bundle" ROOTFS="$USER_BIN/bundle/rootfs"
	STAGED_RUNC="$RUNC" STAGED_USER_BIN="$USER_BIN"
	STAGED_BUNDLE_DIR="$BUNDLE_DIR"
	export STAGED_RUNC STAGED_USER_BIN STAGED_BUNDLE_DIR
	runc_bundle --probe sh true sleep cat
}

teardown_file() {
	unstage_user_binaries
}

setup() {
	requires root runc memfd_noexec cmd:jq cmd:busybox || return 1
	HOST_LEVEL_BEFORE="$(host_level)"
	HOST_DEVICES_BEFORE="$(host_devices)"
	runc_dirs
	# Unique, so that a leftover cgroup is this test's.
	ID="mfdn-$BATS_TEST_NUMBER-$$"
	MODE=rootful
	export RUNC ID
}

teardown() {
	local rc=0 # teardown runs without errexit: each check counts through rc
	stop_default_service || rc=1
	if [ -n "${T:-}" ] && [ -d "$T" ]; then
		local id
		for id in $(plain_runc list -q 2>/dev/null); do
			plain_runc delete -f "$id" >/dev/null 2>&1 || true
		done
		rm -rf "$T"
	fi
	if [ -n "${HUGEPAGES_BEFORE:-}" ]; then
		echo "$HUGEPAGES_BEFORE" >/proc/sys/vm/nr_hugepages || rc=1
		[ "$(cat /proc/sys/vm/nr_hugepages)" = "$HUGEPAGES_BEFORE" ] ||
			{ echo "vm.nr_hugepages is $(cat /proc/sys/vm/nr_hugepages), not $HUGEPAGES_BEFORE again" >&2; rc=1; }
	fi
	# The host's value must never change.
	assert_host_level_unchanged "${HOST_LEVEL_BEFORE:-}" || rc=1
	assert_host_devices_unchanged "${HOST_DEVICES_BEFORE:-}" || rc=1
	return "$rc"
}

# ---- how runc is started ---------------------------------------------------

# as MODE [RUNC_BINARY]: writes $T/runc, this test's runc command
# ([setpriv to $TEST_USER] RUNC_BINARY --root $STATE), for MODE rootful or
# rootless; RUNC_BINARY defaults to the patched runc.
as() {
	MODE="$1"
	write_runc "${2:-$RUNC}"
}

# bundle NAME FILTER [ARGS...]: $T/NAME/config.json for MODE, running ARGS
# (default: the probes), with the jq FILTER applied last.  FILTER may use
# $v, the JSON value in the file $T/value.json (when it exists).
bundle() {
	local name="$1" filter="$2" args='[]' a
	shift 2
	[ $# -gt 0 ] || set -- /bin/sh -c "$PROBE"
	for a in "$@"; do
		args=$(jq -c --arg a "$a" '. + [$a]' <<<"$args")
	done
	[ -e "$T/value.json" ] || echo null >"$T/value.json"
	mkdir -p "$T/$name"
	jq --arg root "$ROOTFS" --argjson args "$args" \
		--slurpfile v "$T/value.json" "
		.root.path = \$root | .root.readonly = true |
		.process.terminal = false | .process.args = \$args |
		(\$v[0]) as \$v | $filter" \
		"$BUNDLE_DIR/$MODE.json" >"$T/$name/config.json"
	chmod -R a+rX "$T/$name"
}

# The user namespace and the mappings a rootful runc writes (uid_map /
# gid_map from stage-0), for bundle FILTERs.
USERNS='.linux.namespaces += [{"type": "user"}] |
	.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] |
	.linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'

# ---- assertions ------------------------------------------------------------

# nsexec's markers, as runc's text log shows them.
nsexec_msg() {
	printf 'level=%s msg="nsexec-0\\[[0-9]+\\]: vm\\.memfd_noexec: %s"' "$1" "$2"
}

# messages: the msg of every error or fatal line of a --log-format json
# runc in $output (non-JSON lines are dropped), decoded.
messages() {
	jq -Rr 'fromjson? | select(.level == "error" or .level == "fatal") | .msg' \
		<<<"$output"
}

# assert_message TEXT: a runc error message contains TEXT (fixed string).
assert_message() {
	grep -qF -- "$1" <<<"$(messages)" && return
	batslib_print_kv_single_or_multi 9 'substring' "$1" 'output' "$output" |
		batslib_decorate "no runc error (--log-format json, level error or fatal) contains the substring" |
		fail
}

# assert_nothing_left: no container in this test's runc state, no state
# directory and no cgroup of $ID (a name that only this test uses: the
# cgroups that others make and remove meanwhile are never looked at).
assert_nothing_left() {
	local left
	left=$(plain_runc list -q 2>&1) || { fail "runc list failed: $left"; return; }
	[ -z "$left" ] || { fail "runc list still shows: $left"; return; }
	[ ! -e "$STATE/$ID" ] || { fail "state left in $STATE/$ID: $(ls -A "$STATE/$ID")"; return; }
	left=$(cgroups_named "$ID")
	[ -z "$left" ] || fail "cgroups of container $ID left: $left"
}

# ---- the patched runc ------------------------------------------------------

@test "annotation 2: MFD_EXEC fails with EACCES, other memfds are 0666 and exec-sealed" {
	as rootful
	bundle b '.annotations.memfd_noexec = "2"'
	run at_level --proc 0 "$T/runc" --debug run -b "$T/b" "$ID"
	assert_success
	assert_memfd_level 2
	assert_line --regexp "$(nsexec_msg debug 'set 2 \(was 0\)')"
	assert_nothing_left
}

@test "annotation 1: a memfd without flags is not executable, MFD_EXEC still is" {
	as rootful
	bundle b '.annotations.memfd_noexec = "1"'
	run at_level --proc 0 "$T/runc" --debug run -b "$T/b" "$ID"
	assert_success
	assert_memfd_level 1
	assert_line --regexp "$(nsexec_msg debug 'set 1 \(was 0\)')"
}

@test "no annotation: the container keeps the inherited level, nsexec does nothing" {
	as rootful
	bundle b '.'
	run at_level --proc 0 "$T/runc" --debug run -b "$T/b" "$ID"
	assert_success
	assert_memfd_level 0
	refute_line --regexp 'nsexec.*vm\.memfd_noexec: '
	# nsexec's stage-2 only reads the level, for the MFD_HUGETLB rule.
	assert_line --partial 'vm.memfd_noexec=0 here: no MFD_HUGETLB rule needed'
}

@test "user namespace container: set from outside, and runc exec sees it too" {
	as rootful
	bundle u ".annotations.memfd_noexec = \"2\" | $USERNS" \
		/bin/sh -c "$PROBE; exec sleep 60"
	run at_level --proc 0 sh -ec '
		"$T/runc" --debug create -b "$T/u" "$ID" </dev/null >"$T/init.out" 2>"$T/create.log"
		find /sys/fs/cgroup -maxdepth 3 -name "$ID" | grep -q . && echo cgroup=present
		"$T/runc" start "$ID"
		i=0
		until grep -q "flags=exec-run" "$T/init.out"; do
			i=$((i + 1))
			[ $i -lt 100 ] || { echo "the container did not report"; exit 1; }
			sleep 0.1
		done
		echo ---- exec
		"$T/runc" --debug exec "$ID" /bin/sh -c "$PROBE" 2>&1
		"$T/runc" delete -f "$ID"'
	assert_success
	# The container's root is host uid 100000; its init saw level 2 ...
	with_output "$(cat "$T/init.out")" assert_line --regexp '^ +0 +100000 +65536$'
	assert_memfd_level 2 "$(cat "$T/init.out")"
	with_output "$(cat "$T/create.log")" assert_line --regexp "$(nsexec_msg debug 'set 2 \(was 0\)')"
	# ... and so does a process that runc exec adds, whose runc init is
	# not sent the level (only the container's init is).
	local exec_out="${output#*---- exec}"
	assert_memfd_level 2 "$exec_out"
	with_output "$exec_out" assert_line --regexp '^ +0 +100000 +65536$'
	with_output "$exec_out" refute_line --regexp 'vm\.memfd_noexec: (applying|set)'
	# The leftover check below knows where the cgroups are.
	assert_output --partial cgroup=present
	assert_nothing_left
}

# hugetlbfs ignores F_SEAL_EXEC, so level 2 alone would leave MFD_HUGETLB
# memfds executable; runc init adds a seccomp rule for them at 2 only.
@test "annotation 2: memfd_create(MFD_HUGETLB) fails with EPERM, in runc exec too; at 1 it is allowed" {
	as rootful
	bundle two '.annotations.memfd_noexec = "2"' \
		/bin/sh -c 'memfdprobe hugetlb; memfdprobe none; exec sleep 60'
	bundle one '.annotations.memfd_noexec = "1"' /bin/memfdprobe hugetlb
	run at_level --proc 0 sh -ec '
		"$T/runc" --debug create -b "$T/two" "$ID" </dev/null >"$T/init.out" 2>"$T/create.log"
		"$T/runc" start "$ID"
		i=0
		until grep -q "flags=none" "$T/init.out"; do
			i=$((i + 1))
			[ $i -lt 100 ] || { echo "the container did not report"; exit 1; }
			sleep 0.1
		done
		echo ---- exec
		"$T/runc" exec "$ID" /bin/memfdprobe hugetlb 2>&1
		"$T/runc" delete -f "$ID"
		echo ---- level 1
		"$T/runc" run -b "$T/one" "$ID-1" </dev/null 2>&1'
	assert_success
	with_output "$(cat "$T/init.out")" assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	# Only that flag: the other memfds are made as level 2 makes them.
	with_output "$(cat "$T/init.out")" assert_line --regexp '^memfdprobe: flags=none result=ok mode=0666 '
	with_output "$(cat "$T/create.log")" assert_line --partial 'memfd_create(MFD_HUGETLB) refused (seccomp)'
	local exec_out="${output#*---- exec}"
	with_output "${exec_out%%---- level 1*}" assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	with_output "${output#*---- level 1}" assert_line --regexp '^memfdprobe: flags=hugetlb result=ok '
	assert_nothing_left
}

# The rule follows the level the container really runs at, read in its own
# PID namespace, not the one it asks for: a request for 1
# under a parent at 2 runs at 2, and so does a container that joins a
# namespace at 2 without asking; both get the rule.  One that really runs
# at 0 or 1 does not.
@test "the hugetlb rule follows the real level: asked 1 under a parent at 2, or joined at 2 unasked, gives EPERM; really 0 or 1 does not" {
	as rootful
	local probe='memfdprobe level; memfdprobe hugetlb'
	bundle one '.annotations.memfd_noexec = "1"' /bin/sh -c "$probe"
	run at_level --proc 2 "$T/runc" --debug run -b "$T/one" "$ID" </dev/null
	assert_success
	assert_line 'memfdprobe: level=2'
	assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	assert_line --partial 'vm.memfd_noexec=2 here, asked for 1: memfd_create(MFD_HUGETLB) refused (seccomp)'
	assert_nothing_left
	# No request, no PID namespace of its own: it joins at_level's, at 2.
	bundle join '.linux.namespaces |= map(select(.type != "pid"))' /bin/sh -c "$probe"
	run at_level --proc 2 "$T/runc" --debug run -b "$T/join" "$ID" </dev/null
	assert_success
	assert_line 'memfdprobe: level=2'
	assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	assert_line --partial 'vm.memfd_noexec=2 here: memfd_create(MFD_HUGETLB) refused (seccomp)'
	assert_nothing_left
	# No request, joining another namespace at 2 by path (a pod's
	# sandbox), and runc exec into it.
	bundle path '.linux.namespaces |= map(if .type == "pid" then .path = "PIDNS" else . end)' \
		/bin/sh -c "$probe; exec sleep 60"
	run at_level --proc 0 sh -ec '
		unshare --pid --fork --kill-child sh -c "echo 2 >/proc/sys/vm/memfd_noexec; exec sleep 1000" &
		until s=$(pgrep -P $! sleep); do sleep 0.05; done
		sed -i "s|\"PIDNS\"|\"/proc/$s/ns/pid\"|" "$T/path/config.json"
		"$T/runc" create -b "$T/path" "$ID" </dev/null >"$T/init.out" 2>&1
		"$T/runc" start "$ID"
		i=0
		until grep -q "flags=hugetlb" "$T/init.out"; do
			i=$((i + 1))
			[ $i -lt 100 ] || { echo "the container did not report"; exit 1; }
			sleep 0.1
		done
		echo ---- exec
		"$T/runc" exec "$ID" /bin/memfdprobe hugetlb 2>&1
		"$T/runc" delete -f "$ID"
		kill $!'
	assert_success
	with_output "$(cat "$T/init.out")" assert_line 'memfdprobe: level=2'
	with_output "$(cat "$T/init.out")" assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	with_output "${output#*---- exec}" assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	assert_nothing_left
	# Really at 0 or 1, asked for or not: no rule, huge-page memfds work.
	local level filter
	for level in 0 1; do
		for filter in '.' ".annotations.memfd_noexec = \"$level\""; do
			bundle b "$filter" /bin/sh -c "$probe"
			run at_level --proc "$level" "$T/runc" --debug run -b "$T/b" "$ID" </dev/null
			assert_success
			assert_line "memfdprobe: level=$level"
			assert_line --regexp '^memfdprobe: flags=hugetlb result=ok '
			assert_line --partial "vm.memfd_noexec=$level here"
			assert_line --partial 'no MFD_HUGETLB rule needed'
			assert_nothing_left
		done
	done
}

# procfs_zero: a host sysctl file that reads 0 now, for a spoof: the
# issue's laptop_mode where it does, else another vm sysctl at 0.  Only
# ever read through the spoofs below, never written.
procfs_zero() {
	local f
	for f in laptop_mode oom_kill_allocating_task panic_on_oom; do
		if [ "$(cat "/proc/sys/vm/$f" 2>/dev/null)" = 0 ]; then
			echo "$f"
			return 0
		fi
	done
	fail "no sysctl of /proc/sys/vm reads 0 here to spoof with"
}

# The spoofs of the level that decides the MFD_HUGETLB rule: a procfs file
# that holds 0 where the container's /proc/sys/vm/memfd_noexec is read.
# runc reads the level through the fd nsexec's stage-0 opened on its own
# procfs before any namespace or mount of the container, so neither fools
# it.  Without huge pages reserved, memfd_create(MFD_HUGETLB) succeeds
# unless the rule refuses it (only a later mmap needs the pages).
@test "spoof: annotation 2, the image's /proc/sys/vm/memfd_noexec a symlink to a procfs file holding 0 (procfs at /realproc): MFD_HUGETLB still gets EPERM" {
	as rootful
	local zero
	zero="$(procfs_zero)" || return 1
	# The image: no procfs at /proc, whose sys/vm/memfd_noexec links to
	# the config's procfs at /realproc (self, thread-self and sys/kernel
	# too, which runc init uses: 1.3 reads kernel/cap_last_cap).
	cp -a "$ROOTFS" "$T/spoof-rootfs"
	mkdir -p "$T/spoof-rootfs/proc/sys/vm"
	ln -s "/realproc/sys/vm/$zero" "$T/spoof-rootfs/proc/sys/vm/memfd_noexec"
	ln -s /realproc/self "$T/spoof-rootfs/proc/self"
	ln -s /realproc/thread-self "$T/spoof-rootfs/proc/thread-self"
	ln -s /realproc/sys/kernel "$T/spoof-rootfs/proc/sys/kernel"
	bundle b ".annotations.memfd_noexec = \"2\" | .root.path = \"$T/spoof-rootfs\" |
		.mounts |= map(if .destination == \"/proc\" then .destination = \"/realproc\" else . end)" \
		/bin/sh -c 'cat /proc/sys/vm/memfd_noexec; memfdprobe hugetlb; memfdprobe exec'
	run at_level --proc 0 "$T/runc" --debug run -b "$T/b" "$ID" </dev/null
	assert_success
	# The spoof is in place: the container's path reads 0 ...
	assert_line 0
	# ... its level is 2 (MFD_EXEC refused), and so is the rule's.
	assert_line --regexp '^memfdprobe: flags=exec result=EACCES'
	assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	assert_line --partial 'vm.memfd_noexec=2 here, asked for 2: memfd_create(MFD_HUGETLB) refused (seccomp)'
	assert_nothing_left
	# Without a request, at 2 inherited: no request to clamp up to, so
	# only the fd opened before the container's mounts tells.
	bundle n ".root.path = \"$T/spoof-rootfs\" |
		.mounts |= map(if .destination == \"/proc\" then .destination = \"/realproc\" else . end)" \
		/bin/sh -c 'cat /proc/sys/vm/memfd_noexec; memfdprobe hugetlb; memfdprobe exec'
	run at_level --proc 2 "$T/runc" --debug run -b "$T/n" "$ID" </dev/null
	assert_success
	assert_line 0
	assert_line --regexp '^memfdprobe: flags=exec result=EACCES'
	assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	assert_line --partial 'vm.memfd_noexec=2 here: memfd_create(MFD_HUGETLB) refused (seccomp)'
	assert_nothing_left
}

@test "spoof: the container binds a procfs file holding 0 over /proc/sys/vm/memfd_noexec (CAP_SYS_ADMIN in its user namespace): a later runc exec still gets EPERM" {
	as rootful
	local zero
	zero="$(procfs_zero)" || return 1
	bundle u ".annotations.memfd_noexec = \"2\" | $USERNS |
		.process.capabilities |= with_entries(.value += [\"CAP_SYS_ADMIN\"])" \
		/bin/sh -c "busybox mount --bind /proc/sys/vm/$zero /proc/sys/vm/memfd_noexec && echo bound; exec sleep 60"
	run at_level --proc 0 sh -ec '
		"$T/runc" create -b "$T/u" "$ID" </dev/null >"$T/init.out" 2>&1
		"$T/runc" start "$ID"
		i=0
		until grep -q "^bound$" "$T/init.out"; do
			i=$((i + 1))
			[ $i -lt 100 ] || { echo "the container did not bind: $(cat "$T/init.out")"; exit 1; }
			sleep 0.1
		done
		echo ---- exec
		"$T/runc" --debug exec "$ID" /bin/sh -c "cat /proc/sys/vm/memfd_noexec; memfdprobe exec; memfdprobe hugetlb" 2>&1
		"$T/runc" delete -f "$ID"'
	assert_success
	local exec_out="${output#*---- exec}"
	# The spoof is in place for the exec'd process: its path reads 0 ...
	with_output "$exec_out" assert_line 0
	# ... its level is 2, and so is the rule's.
	with_output "$exec_out" assert_line --regexp '^memfdprobe: flags=exec result=EACCES'
	with_output "$exec_out" assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	with_output "$exec_out" assert_line --partial 'vm.memfd_noexec=2 here, asked for 2: memfd_create(MFD_HUGETLB) refused (seccomp)'
	assert_nothing_left
	# Without a request, at 2 inherited: only the fd opened before the
	# container's mounts tells (there is no request to clamp up to).
	bundle n "$USERNS | .process.capabilities |= with_entries(.value += [\"CAP_SYS_ADMIN\"])" \
		/bin/sh -c "busybox mount --bind /proc/sys/vm/$zero /proc/sys/vm/memfd_noexec && echo bound; exec sleep 60"
	run at_level --proc 2 sh -ec '
		"$T/runc" create -b "$T/n" "$ID" </dev/null >"$T/init.out" 2>&1
		"$T/runc" start "$ID"
		i=0
		until grep -q "^bound$" "$T/init.out"; do
			i=$((i + 1))
			[ $i -lt 100 ] || { echo "the container did not bind: $(cat "$T/init.out")"; exit 1; }
			sleep 0.1
		done
		echo ---- exec
		"$T/runc" --debug exec "$ID" /bin/sh -c "cat /proc/sys/vm/memfd_noexec; memfdprobe exec; memfdprobe hugetlb" 2>&1
		"$T/runc" delete -f "$ID"'
	assert_success
	exec_out="${output#*---- exec}"
	with_output "$exec_out" assert_line 0
	with_output "$exec_out" assert_line --regexp '^memfdprobe: flags=exec result=EACCES'
	with_output "$exec_out" assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	with_output "$exec_out" assert_line --partial 'vm.memfd_noexec=2 here: memfd_create(MFD_HUGETLB) refused (seccomp)'
	assert_nothing_left
}

@test "rootless, annotation 2: memfd_create(MFD_HUGETLB) fails with EPERM" {
	requires user userns
	as rootless
	bundle b '.annotations.memfd_noexec = "2"' /bin/memfdprobe hugetlb
	# Already 2 where it starts: nothing to raise, the rule still comes.
	run at_level --proc 2 "$T/runc" run -b "$T/b" "$ID" </dev/null
	assert_success
	assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	assert_nothing_left
	# No request at all, inherited 2: the rule too (it follows the level
	# runc init reads in its namespace); inherited 1: none.
	bundle none '.' /bin/memfdprobe hugetlb
	run at_level --proc 2 "$T/runc" run -b "$T/none" "$ID" </dev/null
	assert_success
	assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	run at_level --proc 1 "$T/runc" run -b "$T/none" "$ID" </dev/null
	assert_success
	assert_line --regexp '^memfdprobe: flags=hugetlb result=ok '
	assert_nothing_left
}

# Invalid requests: a JSON value for annotations["memfd_noexec"] (in a
# file, so that a 1 MiB value fits), then what the message must quote.
# "dup" makes the key appear twice instead ("2", then "0").
BAD_VALUES=(
	'"3"'		'annotations["memfd_noexec"] = "3" in config.json'
	'"-1"'		'annotations["memfd_noexec"] = "-1" in config.json'
	'""'		'annotations["memfd_noexec"] = "" in config.json'
	'" 2"'		'annotations["memfd_noexec"] = " 2" in config.json'
	'"2\n"'		'annotations["memfd_noexec"] = "2\n" in config.json'
	'"two"'		'annotations["memfd_noexec"] = "two" in config.json'
	'2'		'annotations["memfd_noexec"] in config.json: it is the JSON number 2'
	'big'		'(1048576 bytes) in config.json: the value is longer than 65536 bytes'
	'dup'		'duplicate key "memfd_noexec" in the object at annotations'
)

@test "bad values: runc create fails before anything is created, quoting the value" {
	as rootful
	local i value want
	for ((i = 0; i < ${#BAD_VALUES[@]}; i += 2)); do
		value="${BAD_VALUES[i]}" want="${BAD_VALUES[i + 1]}"
		case "$value" in
		big) printf '"%s"' "$(head -c 1048576 /dev/zero | tr '\0' x)" ;;
		dup) echo '"2"' ;;
		*) printf '%s' "$value" ;;
		esac >"$T/value.json"
		bundle b '.annotations.memfd_noexec = $v'
		if [ "$value" = dup ]; then
			jq -c . "$T/b/config.json" |
				sed 's/"memfd_noexec":"2"/&,"memfd_noexec":"0"/' >"$T/b/c" &&
				mv "$T/b/c" "$T/b/config.json"
			grep -qF '"memfd_noexec":"2","memfd_noexec":"0"' "$T/b/config.json"
		fi
		run at_level --proc 0 "$T/runc" --log-format json create -b "$T/b" "$ID" </dev/null
		echo "row: $value" >&2 # shown if the row fails
		assert_failure 1
		assert_message "$want"
		assert_nothing_left
	done
}

# What would let runc's encoding/json and another reader (the hook's
# parser, a policy engine) see different requests: a repeated request key
# (Go keeps the last, others the first), or a key on the way that Go
# matches case-insensitively (Unicode folding included) to one of its
# fields, whose object then decodes into the same field.  Each row: a jq
# filter for the request, a sed edit of the compact JSON, and what the
# message must say.
DUP_ROWS=(
	'.linux.sysctl["vm.memfd_noexec"] = "2"'
	's/"vm.memfd_noexec":"2"/&,"vm.memfd_noexec":"0"/'
	'duplicate key "vm.memfd_noexec" in the object at linux.sysctl'
	'.linux.sysctl["vm/memfd_noexec"] = "2"'
	's|"vm/memfd_noexec":"2"|&,"vm/memfd_noexec":"0"|'
	'duplicate key "vm/memfd_noexec" in the object at linux.sysctl'
	'.annotations.memfd_noexec = "2"'
	's/^{/{"Annotations":{"memfd_noexec":"0"},/'
	'both name "annotations"'
	'.annotations.memfd_noexec = "2"'
	's/^{/{"annotation\\u017f":{"memfd_noexec":"0"},/'
	'both name "annotations"'
	'.linux.sysctl["vm.memfd_noexec"] = "2"'
	's/^{/{"LINUX":{"sysctl":{"vm.memfd_noexec":"0"}},/'
	'both name "linux"'
	'.linux.sysctl["vm.memfd_noexec"] = "2"'
	's/"sysctl":{/"Sysctl":{"vm.memfd_noexec":"0"},&/'
	'both name "sysctl"'
)

@test "runc refuses a repeated request key, and keys Go folds together on the way to it" {
	as rootful
	local i
	for ((i = 0; i < ${#DUP_ROWS[@]}; i += 3)); do
		bundle b "${DUP_ROWS[i]}"
		jq -c . "$T/b/config.json" | sed "${DUP_ROWS[i + 1]}" >"$T/b/c"
		cmp -s "$T/b/c" <(jq -c . "$T/b/config.json") && fail "row $i: the edit changed nothing"
		mv "$T/b/c" "$T/b/config.json"
		run at_level --proc 0 "$T/runc" --log-format json create -b "$T/b" "$ID" </dev/null
		echo "row: ${DUP_ROWS[i + 1]}" >&2 # shown if the row fails
		assert_failure 1
		assert_message "${DUP_ROWS[i + 2]}"
		assert_nothing_left
	done
}

@test "linux.sysctl vm.memfd_noexec=2 works like the annotation" {
	as rootful
	bundle b '.linux.sysctl["vm.memfd_noexec"] = "2"'
	run at_level --proc 0 "$T/runc" --debug run -b "$T/b" "$ID"
	assert_success
	assert_memfd_level 2
	assert_line --regexp "$(nsexec_msg debug 'set 2 \(was 0\)')"
	# runc's '/' spelling, with an annotation that agrees.
	bundle b '.linux.sysctl["vm/memfd_noexec"] = "1" | .annotations.memfd_noexec = "1"'
	run at_level --proc 0 "$T/runc" --debug run -b "$T/b" "$ID"
	assert_success
	assert_memfd_level 1
}

@test "linux.sysctl and the annotation disagreeing fails" {
	as rootful
	bundle b '.linux.sysctl["vm.memfd_noexec"] = "1" | .annotations.memfd_noexec = "2"'
	run at_level --proc 0 "$T/runc" --log-format json create -b "$T/b" "$ID" </dev/null
	assert_failure 1
	assert_message 'annotations["memfd_noexec"] = "2" and linux.sysctl["vm.memfd_noexec"] = "1" ask for different vm.memfd_noexec levels'
	assert_nothing_left
}

@test "runc never changes a PID namespace the container only joins" {
	as rootful
	# No PID namespace of its own: the container joins runc's (here
	# at_level's), which is at 0.  Refused, by the same rule as the hook.
	bundle b '.annotations.memfd_noexec = "2" |
		.linux.namespaces |= map(select(.type != "pid"))'
	run at_level --proc 0 "$T/runc" --log-format json create -b "$T/b" "$ID" </dev/null
	assert_failure 1
	assert_message 'it joins the PID namespace of the caller (the runtime), pid:['
	assert_message 'which is at level 0. A namespace that the container only joins is never changed'
	assert_nothing_left
	# The sysctl spelling gets the same answer.
	bundle b '.linux.sysctl["vm.memfd_noexec"] = "1" |
		.linux.namespaces |= map(select(.type != "pid"))'
	run at_level --proc 0 "$T/runc" --log-format json create -b "$T/b" "$ID" </dev/null
	assert_failure 1
	assert_message 'Refusing vm.memfd_noexec=1 for process'
	assert_nothing_left
	# Another container's namespace, by path: refused, and left at 0.
	bundle b '.annotations.memfd_noexec = "2" |
		.linux.namespaces |= map(if .type == "pid" then .path = $v else . end)'
	run at_level --proc 0 sh -ec '
		unshare --pid --fork --kill-child sleep 1000 &
		until s=$(pgrep -P $! sleep); do sleep 0.05; done
		jq --arg p "/proc/$s/ns/pid" ".linux.namespaces |= map(if .type == \"pid\" then .path = \$p else . end)" \
			"$T/b/config.json" >"$T/b/c" && mv "$T/b/c" "$T/b/config.json"
		"$T/runc" --log-format json create -b "$T/b" "$ID" </dev/null || echo "create=$?"
		echo "other=$(nsenter --target "$s" --pid cat /proc/sys/vm/memfd_noexec)"
		kill $!'
	assert_output --partial "create=1"
	assert_output --partial "other=0"
	assert_message 'it joins the existing PID namespace, pid:['
	assert_nothing_left
}

@test "runc accepts a joined PID namespace that is already at the level" {
	as rootful
	bundle b '.annotations.memfd_noexec = "2" |
		.linux.namespaces |= map(select(.type != "pid"))'
	run at_level --proc 2 "$T/runc" run -b "$T/b" "$ID"
	assert_success
	assert_memfd_level 2
	assert_line --regexp "$(nsexec_msg warning 'joined a namespace already at 2 \(asked for 2\)')"
	# By path, as a pod's container joins its sandbox (shareProcessNamespace).
	bundle b '.annotations.memfd_noexec = "1"'
	run at_level --proc 0 sh -ec '
		unshare --pid --fork --kill-child sh -c "echo 2 >/proc/sys/vm/memfd_noexec; exec sleep 1000" &
		until s=$(pgrep -P $! sleep); do sleep 0.05; done
		jq --arg p "/proc/$s/ns/pid" ".linux.namespaces |= map(if .type == \"pid\" then .path = \$p else . end)" \
			"$T/b/config.json" >"$T/b/c" && mv "$T/b/c" "$T/b/config.json"
		"$T/runc" run -b "$T/b" "$ID"
		kill $!'
	assert_success
	assert_memfd_level 2
	assert_line --regexp "$(nsexec_msg warning 'joined a namespace already at 2 \(asked for 1\)')"
	assert_nothing_left
}

@test "runc refuses a request when the container keeps CAP_SYS_ADMIN without a user namespace" {
	as rootful
	bundle b '.annotations.memfd_noexec = "2" | .process.capabilities.bounding += ["CAP_SYS_ADMIN"]'
	run at_level --proc 0 "$T/runc" --log-format json run -b "$T/b" "$ID" </dev/null
	assert_failure 1
	assert_message 'keeps CAP_SYS_ADMIN in its bounding set and has no user namespace'
	assert_message 'Drop CAP_SYS_ADMIN'
	assert_nothing_left
	# Other ways of keeping it: no capabilities at all or no bounding set
	# (the library's rule refuses to guess then).
	local keep
	for keep in 'del(.process.capabilities)' 'del(.process.capabilities.bounding)'; do
		bundle b ".annotations.memfd_noexec = \"2\" | $keep"
		run at_level --proc 0 "$T/runc" --log-format json run -b "$T/b" "$ID" </dev/null
		assert_failure 1
		assert_message 'Drop CAP_SYS_ADMIN'
		refute_output --partial 'memfdprobe:'
		assert_nothing_left
	done
	# runc reads capability names itself (exact "CAP_" names): spellings it
	# ignores, with its warning, grant nothing, so they keep nothing.
	for keep in '"cap_sys_admin"' '"21"'; do
		bundle b ".annotations.memfd_noexec = \"2\" | .process.capabilities.bounding += [$keep]"
		run at_level --proc 0 "$T/runc" run -b "$T/b" "$ID" </dev/null
		assert_success
		assert_memfd_level 2
		assert_nothing_left
	done
	# With a user namespace (root mapped to 100000) it is accepted.
	bundle b ".annotations.memfd_noexec = \"2\" | .process.capabilities.bounding += [\"CAP_SYS_ADMIN\"] | $USERNS"
	run at_level --proc 0 "$T/runc" run -b "$T/b" "$ID"
	assert_success
	assert_memfd_level 2
	assert_nothing_left
}

# Level 1 asks the same question as 2 (a container that keeps CAP_SYS_ADMIN
# could lower 1 to 0 as well); runc's own decode and capability parsing
# answer it: a bounding entry runc ignores grants nothing, and one that is
# not a string fails runc's decode before anything is created.
@test "at annotation 1 too, runc's own parsing reads the bounding set: an unknown name grants nothing, a number is refused" {
	as rootful
	bundle b '.annotations.memfd_noexec = "1" | .process.capabilities.bounding += ["CAP_FOO"]'
	run at_level --proc 0 "$T/runc" run -b "$T/b" "$ID" </dev/null
	assert_success
	assert_memfd_level 1
	assert_nothing_left
	bundle b '.annotations.memfd_noexec = "1" | .process.capabilities.bounding += [21]'
	run at_level --proc 0 "$T/runc" --log-format json create -b "$T/b" "$ID" </dev/null
	assert_failure 1
	assert_message 'cannot unmarshal number'
	assert_nothing_left
}

@test "rootless runc cannot raise it: annotation 2 fails closed, nothing left" {
	requires user userns
	no_default_service || return 1
	as rootless
	bundle b '.annotations.memfd_noexec = "2"'
	run at_level --proc 0 "$T/runc" --log-format json run -b "$T/b" "$ID" </dev/null
	assert_failure 1
	assert_message 'Failed to set vm.memfd_noexec=2 in the PID namespace of process '
	assert_message 'so rootless runtimes cannot set it; a rootless container inherits the level of the PID namespace it starts in, which is 0 here. To get 2, set it as root in a parent PID namespace (for example, start the rootless runtime under `memfd-noexec run --level 2 --`)'
	assert_message 'The memfd-noexec service, which could raise it, is not running at /run/memfd-noexec.sock'
	assert_message 'enable it with `systemctl enable --now memfd-noexec.socket`'
	refute_output --partial 'memfdprobe:' # the container never ran
	assert_nothing_left
}

# ---- rootless, with the memfd-noexec service ---------------------------------

# assert_served LEVEL REPLY: the service's log shows the test user's
# request for LEVEL answered REPLY (ok, kept).
assert_served() {
	local uid
	uid=$(id -u "$TEST_USER")
	with_output "$(cat "$T/serve.log")" \
		assert_line --regexp "^memfd-noexec serve: uid $uid pid [0-9]+: raise $1 pid:\[[0-9]+\]: $2"
}

@test "rootless runc + memfd-noexec service: annotation 2 reads 2, MFD_EXEC refused, host unchanged; runc exec too" {
	requires user userns
	start_default_service "$T/serve.log" || return 1
	as rootless
	bundle b '.annotations.memfd_noexec = "2"' /bin/sh -c "$PROBE; exec sleep 60"
	run at_level --proc 0 sh -ec '
		"$T/runc" --debug create -b "$T/b" "$ID" </dev/null >"$T/init.out" 2>"$T/create.log"
		"$T/runc" start "$ID"
		i=0
		until grep -q "flags=exec-run" "$T/init.out"; do
			i=$((i + 1))
			[ $i -lt 100 ] || { echo "the container did not report"; exit 1; }
			sleep 0.1
		done
		echo ---- exec
		"$T/runc" exec "$ID" /bin/sh -c "$PROBE" 2>&1
		"$T/runc" delete -f "$ID"'
	assert_success
	assert_memfd_level 2 "$(cat "$T/init.out")"
	assert_memfd_level 2 "${output#*---- exec}"
	with_output "$(cat "$T/create.log")" assert_line --regexp "$(nsexec_msg debug 'set 2 \(was 0\)')"
	assert_served 2 ok
	[ "$(host_level)" = "$HOST_LEVEL_BEFORE" ]
	assert_nothing_left
}

@test "rootless runc + memfd-noexec service: annotation 1 gives exactly 1; 0 under a stricter parent is kept" {
	requires user userns
	start_default_service "$T/serve.log" || return 1
	as rootless
	bundle b '.annotations.memfd_noexec = "1"'
	run at_level --proc 0 "$T/runc" run -b "$T/b" "$ID"
	assert_success
	assert_memfd_level 1
	assert_served 1 ok
	# Below the inherited level nothing is asked: the stricter level stays.
	bundle b '.annotations.memfd_noexec = "0"'
	run at_level --proc 1 "$T/runc" run -b "$T/b" "$ID"
	assert_success
	assert_memfd_level 1
	assert_line --regexp "$(nsexec_msg warning 'kept stricter inherited 1 \(asked for 0\)')"
	[ "$(grep -c 'raise' "$T/serve.log")" -eq 1 ] ||
		fail "expected one request in the service's log, which has: $(cat "$T/serve.log")"
	assert_nothing_left
}

@test "stock rootless runc + hook + memfd-noexec service: annotation 2 reads 2" {
	requires user userns
	requires_hook || return 1
	start_default_service "$T/serve.log" || return 1
	as rootless "$STOCK_RUNC"
	bundle b '.annotations.memfd_noexec = "2"'
	MEMFD_NOEXEC="$U_MEMFD_NOEXEC" add_hook "$T/b/config.json"
	run at_level --proc 0 "$T/runc" run -b "$T/b" "$ID"
	assert_success
	assert_memfd_level 2
	assert_served 2 ok
	assert_nothing_left
}

@test "stock rootless runc + hook without the service: annotation 2 fails closed, naming the service" {
	requires user userns
	requires_hook || return 1
	no_default_service || return 1
	as rootless "$STOCK_RUNC"
	bundle b '.annotations.memfd_noexec = "2"'
	MEMFD_NOEXEC="$U_MEMFD_NOEXEC" add_hook "$T/b/config.json"
	run at_level --proc 0 "$T/runc" --log-format json run -b "$T/b" "$ID" </dev/null
	assert_failure 1
	assert_message 'The memfd-noexec service, which could raise it, is not running at /run/memfd-noexec.sock'
	refute_output --partial 'memfdprobe:' # the container never ran
	assert_nothing_left
}

@test "rootless runc: a parent namespace's stricter level is inherited, with the notice" {
	requires user userns
	as rootless
	bundle b '.annotations.memfd_noexec = "1"'
	run at_level --proc 2 "$T/runc" run -b "$T/b" "$ID"
	assert_success
	assert_memfd_level 2
	assert_line --regexp "$(nsexec_msg warning 'kept stricter inherited 2 \(asked for 1\)')"
	bundle b '.annotations.memfd_noexec = "2"'
	run at_level --proc 2 "$T/runc" --debug run -b "$T/b" "$ID"
	assert_success
	assert_memfd_level 2
	assert_line --regexp "$(nsexec_msg debug 'already 2')"
}

@test "nested: started at level 1, annotation 0 runs at 1 and says so without --debug" {
	as rootful
	bundle b '.annotations.memfd_noexec = "0"'
	run at_level --proc 1 "$T/runc" run -b "$T/b" "$ID"
	assert_success
	assert_memfd_level 1
	assert_line --regexp "$(nsexec_msg warning 'kept stricter inherited 1 \(asked for 0\)')"
	refute_line --regexp 'level=debug'
}

@test "a kernel without vm.memfd_noexec (fakekernel) fails closed, nothing left" {
	requires fakekernel
	as rootful
	# The sysctl is hidden in fakekernel's mount namespace, where stage-0
	# and the writer it forks look for it.
	{
		echo '#!/bin/bash'
		printf 'exec %q --memfd-noexec=hide -- %q --root %q "$@"\n' \
			"$USER_BIN/fakekernel" "$RUNC" "$STATE"
	} >"$T/runc"
	bundle b '.annotations.memfd_noexec = "2"'
	run at_level --proc 0 "$T/runc" --log-format json run -b "$T/b" "$ID" </dev/null
	assert_failure 1
	assert_message 'this kernel lacks /proc/sys/vm/memfd_noexec (it needs Linux 6.3 or later'
	refute_output --partial 'memfdprobe:' # the container never ran
	assert_nothing_left
}

@test "runc restore refuses a container with a request (runc init would not set it)" {
	as rootful
	bundle b '.annotations.memfd_noexec = "2"'
	run at_level --proc 0 "$T/runc" --log-format json restore --image-path "$T/no-image" \
		-b "$T/b" "$ID" </dev/null
	assert_failure 1
	assert_message 'refusing to restore: the container asks for vm.memfd_noexec'
	assert_nothing_left
}

# ---- stock runc with the hook ------------------------------------------------

# add_hook CONFIG: the hook as a prestart hook in CONFIG itself, as a user
# of plain runc (which reads no hooks.d) sets it up.  Which containers get
# it through hooks.d is tested through podman itself (tests/bats/podman.bats).
add_hook() {
	jq --arg bin "$MEMFD_NOEXEC" \
		'.hooks.prestart += [{"path": $bin, "args": ["memfd-noexec", "hook"]}]' \
		"$1" >"$1.new" && mv "$1.new" "$1"
}

requires_hook() {
	[ -x "$STOCK_RUNC" ] || missing "Debian's runc at $STOCK_RUNC" || return 1
	[ -x "$MEMFD_NOEXEC" ] || missing "memfd-noexec at $MEMFD_NOEXEC" || return 1
}

@test "stock runc + hook: annotation 2 sets 2 before the container runs" {
	requires_hook || return 1
	as rootful "$STOCK_RUNC"
	bundle b '.annotations.memfd_noexec = "2"'
	add_hook "$T/b/config.json"
	run at_level --proc 0 "$T/runc" run -b "$T/b" "$ID"
	assert_success
	assert_memfd_level 2
	assert_nothing_left
}

# The hole itself needs a reserved huge page (vm.nr_hugepages is host-wide:
# two more for this test, restored by teardown).
@test "huge pages reserved, annotation 2: stock runc runs a script from a hugetlb memfd; the seccomp rule and the patched runc refuse the memfd" {
	requires_hook || return 1
	HUGEPAGES_BEFORE=$(cat /proc/sys/vm/nr_hugepages)
	echo $((HUGEPAGES_BEFORE + 2)) >/proc/sys/vm/nr_hugepages
	[ "$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)" -ge 1 ] ||
		missing "a free huge page (vm.nr_hugepages could not be raised)" || return 1

	as rootful "$STOCK_RUNC"
	bundle hole '.annotations.memfd_noexec = "2"' /bin/memfdprobe hugetlb-run
	add_hook "$T/hole/config.json"
	run at_level --proc 0 "$T/runc" run -b "$T/hole" "$ID" </dev/null
	assert_success
	assert_line 'memfdprobe: the hugetlb script ran'

	# The snippet for stock runtimes, on podman's own default profile and
	# on an allow-all one.
	local profile
	for profile in /usr/share/containers/seccomp.json allow; do
		if [ "$profile" = allow ]; then
			echo '{"defaultAction": "SCMP_ACT_ALLOW"}'
		else
			cat "$profile"
		fi | jq -f "$REPO_ROOT/contrib/seccomp/deny-hugetlb-memfd.jq" >"$T/value.json"
		bundle rule '.annotations.memfd_noexec = "2" | .linux.seccomp = $v' \
			/bin/sh -c 'memfdprobe hugetlb-run; memfdprobe none'
		add_hook "$T/rule/config.json"
		run at_level --proc 0 "$T/runc" run -b "$T/rule" "$ID" </dev/null
		assert_success
		assert_line 'memfdprobe: flags=hugetlb-run result=EPERM'
		assert_line --regexp '^memfdprobe: flags=none result=ok mode=0666 '
	done

	as rootful
	rm "$T/value.json"
	bundle patched '.annotations.memfd_noexec = "2"' /bin/memfdprobe hugetlb-run
	run at_level --proc 0 "$T/runc" run -b "$T/patched" "$ID" </dev/null
	assert_success
	assert_line 'memfdprobe: flags=hugetlb-run result=EPERM'
	refute_output --partial 'the hugetlb script ran'
	assert_nothing_left
}

@test "stock runc + hook: a bad value fails container creation" {
	requires_hook || return 1
	as rootful "$STOCK_RUNC"
	local value
	for value in 3 two ' 2' $'2\n' ''; do
		printf '%s' "$value" | jq -Rs . >"$T/value.json"
		bundle b '.annotations.memfd_noexec = $v'
		add_hook "$T/b/config.json"
		run at_level --proc 0 "$T/runc" --log-format json run -b "$T/b" "$ID" </dev/null
		assert_failure 1
		assert_message "memfd-noexec hook: Refusing annotations[\"memfd_noexec\"] = $(cat "$T/value.json") in $T/b/config.json"
		assert_nothing_left
	done
}

@test "stock runc rejects vm.memfd_noexec in linux.sysctl (as documented)" {
	requires_hook || return 1
	as rootful "$STOCK_RUNC"
	bundle b '.linux.sysctl["vm.memfd_noexec"] = "2"'
	run at_level --proc 0 "$T/runc" --log-format json create -b "$T/b" "$ID" </dev/null
	assert_failure 1
	assert_message 'sysctl "vm.memfd_noexec" is not in a separate kernel namespace'
	assert_nothing_left
}
