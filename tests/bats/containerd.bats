#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The per-container vm.memfd_noexec policy and the loader under a real
# containerd 1.6 (Debian's), driven with ctr, the way containerd users and
# Kubernetes (through the CRI plugin) reach runc: always through the runc
# shim, never by calling runc themselves.
#
# One containerd for the whole file (setup_file), started by daemons.bash
# as PID 1 of a child PID namespace at level 0, with a private root, state,
# sockets and /run; its config is contrib/containerd/config.toml merged
# into a private base config, so the CRI plugin loads the handler too.  The
# patched runc is reached through contrib/containerd/runc-debug (adds
# --debug, keeps runc's logs in $DAEMON_DIR/runc-debug.log).  The last
# test stops containerd by PID and checks that nothing is left.
#
# A container that JOINS an existing PID namespace is accepted with a
# notice when that namespace is already at the level, and refused (naming
# it and its level) when below.

load helpers
load daemons

CTR_NS="${CTR_NS:-mfdn-ctr-$$}"
IMAGE=localhost/mfdn-busybox:1

setup_file() {
	[ "$(id -u)" -eq 0 ] && [ -x "$RUNC" ] || return 0
	requires_daemon containerd >/dev/null 2>&1 || return 0
	daemon_dir mfdn-ctrd
	export CTR_NS
	# The contrib snippet, with BinaryName pointed at the debug wrapper.
	{
		cat <<-EOF
			version = 2
			root = "$DAEMON_DIR/root"
			state = "$DAEMON_DIR/state"
			[grpc]
			  address = "$DAEMON_DIR/containerd.sock"
			[ttrpc]
			  address = ""
			[debug]
			  address = ""
			[metrics]
			  address = ""
			[plugins."io.containerd.internal.v1.opt"]
			  path = "$DAEMON_DIR/opt"
			[plugins."io.containerd.grpc.v1.cri".cni]
			  conf_dir = "$DAEMON_DIR/cni/net.d"
			  bin_dir = "$DAEMON_DIR/cni/bin"
		EOF
		grep -v '^version' "$REPO_ROOT/contrib/containerd/config.toml" |
			sed "s|BinaryName = .*|BinaryName = \"$RUNC_DEBUG_WRAPPER\"|"
	} >"$DAEMON_DIR/config.toml"
	busybox_rootfs "$DAEMON_DIR/rootfs"
	oci_image_tar "$DAEMON_DIR/rootfs" "$IMAGE" "$DAEMON_DIR/image.tar"
	daemon_start containerd 0 env RUNC_DEBUG_REAL="$RUNC" \
		RUNC_DEBUG_LOG="$DAEMON_DIR/runc-debug.log" \
		containerd --config "$DAEMON_DIR/config.toml"
	daemon_wait containerd ctr_ version
	ctr_ image import "$DAEMON_DIR/image.tar" >/dev/null
}

teardown_file() {
	[ -n "${DAEMON_DIR:-}" ] || return 0
	remove_all_containers
	daemon_stop containerd
	remove_parent_cgroups "$CTR_NS"
	remove_cgroups "$CTR_NS"
	rm -rf "$DAEMON_DIR"
}

setup() {
	requires_daemon containerd || return 1
	[ -n "${DAEMON_DIR:-}" ] && daemon_pid containerd >/dev/null || {
		echo "containerd is not running (setup_file failed?)" >&2
		[ -z "${DAEMON_DIR:-}" ] || tail -30 "$DAEMON_DIR/containerd.log" >&2
		return 1
	}
	HOST_LEVEL_BEFORE="$(host_level)"
	: >"$DAEMON_DIR/runc-debug.log"
	ID="t$BATS_TEST_NUMBER"
}

teardown() {
	local rc=0 # teardown runs without errexit: each check counts through rc
	if [ -n "${DAEMON_DIR:-}" ] && daemon_pid containerd >/dev/null; then
		remove_all_containers
		# A test that raised containerd's namespace puts it back.
		if [ -n "${DAEMON_LEVEL_MOVED:-}" ] && ! daemon_set_level containerd 0; then
			fail "could not put containerd's PID namespace back to level 0"
			rc=1
		fi
	fi
	assert_host_level_unchanged "${HOST_LEVEL_BEFORE:-}" || rc=1
	return "$rc"
}

# ---- ctr ---------------------------------------------------------------------

ctr_() {
	ctr -a "$DAEMON_DIR/containerd.sock" -n "$CTR_NS" "$@"
}

# run_ctr RUNC [ctr run options] ID [CMD...]: ctr run --rm of $IMAGE with
# RUNC as the runc binary (the image goes before the ID).
ctr_run() {
	local runc="$1"
	shift
	local -a opts=()
	while [ $# -gt 0 ] && [ "${1#-}" != "$1" ]; do
		opts+=("$1")
		shift
	done
	ctr_ run --rm --fifo-dir "$DAEMON_DIR/fifo" --runc-binary "$runc" \
		"${opts[@]}" "$IMAGE" "$@"
}

remove_all_containers() {
	daemon_pid containerd >/dev/null || return 0
	local c
	for c in $(ctr_ containers ls -q 2>/dev/null); do
		ctr_ tasks kill -s SIGKILL "$c" >/dev/null 2>&1
		ctr_ tasks delete -f "$c" >/dev/null 2>&1
		ctr_ containers delete "$c" >/dev/null 2>&1
	done
	return 0
}

# task_pid ID: the task's PID as containerd's namespace (and so the shim's
# /proc) sees it.
task_pid() {
	ctr_ tasks ls | awk -v id="$1" '$1 == id { print $2 }'
}

# wait_running ID
wait_running() {
	for _ in $(seq 100); do
		[ "$(ctr_ tasks ls | awk -v id="$1" '$1 == id { print $3 }')" = RUNNING ] && return 0
		sleep 0.05
	done
	echo "task $1 is not running" >&2
	return 1
}

# spec_file OUT JQ: `ctr oci spec` for $CTR_NS, with the busybox rootfs,
# the probes as process, a cgroup under $CTR_NS, then JQ applied.
spec_file() {
	ctr_ oci spec | jq --arg root "$DAEMON_DIR/rootfs" --arg probe "$PROBE" \
		--arg cg "/$CTR_NS/$ID" --arg hook "$MEMFD_NOEXEC" "
		.root = {path: \$root, readonly: true} |
		.process.args = [\"/bin/sh\", \"-c\", \$probe] |
		.process.env = [\"PATH=/bin\"] |
		.linux.cgroupsPath = \$cg | $2" >"$1"
}

# runc_error: the message the shim relayed from runc create.
runc_error() {
	sed -n 's/.*runc create failed: \(.*\): unknown$/\1/p' <<<"$output"
}

# ---- configuration -----------------------------------------------------------

@test "containerd loads contrib/containerd/config.toml: CRI plugin ok, handler parsed; manifests are valid" {
	run ctr_ plugins ls
	assert_success
	assert_line --regexp '^io\.containerd\.grpc\.v1 +cri +.* ok *$'
	run containerd --config "$DAEMON_DIR/config.toml" config dump
	assert_success
	local dump="$output"
	# The handler, as containerd decoded it (python3 3.11 has tomllib).
	run python3 -c '
import sys, tomllib
cfg = tomllib.loads(sys.stdin.read())
rt = cfg["plugins"]["io.containerd.grpc.v1.cri"]["containerd"]["runtimes"]["memfd-noexec"]
assert rt["runtime_type"] == "io.containerd.runc.v2", rt
assert rt["pod_annotations"] == ["memfd_noexec"], rt
assert rt["options"]["BinaryName"] == sys.argv[1], rt
print("handler ok")' "$RUNC_DEBUG_WRAPPER" <<<"$dump"
	assert_success
	assert_output --partial "handler ok"
	# No error in containerd's log but the CRI plugin's about CNI: this
	# private conf_dir holds no network config (the tests use the host's
	# network), and containerd reports that as an error at every start.
	local errors
	errors=$(grep -i 'level=error' "$DAEMON_DIR/containerd.log" |
		grep -vF 'msg="failed to load cni during init, please check CRI plugin status before setting up network for pods"' || true)
	[ -z "$errors" ] || fail "containerd logged errors: $errors"
	run python3 -c '
import sys, yaml
docs = {}
for f in sys.argv[1:]:
    for d in yaml.safe_load_all(open(f)):
        docs[d["kind"]] = d
rc, pod = docs["RuntimeClass"], docs["Pod"]
assert rc["handler"] == "memfd-noexec"
assert pod["spec"]["runtimeClassName"] == rc["metadata"]["name"]
assert pod["metadata"]["annotations"]["memfd_noexec"] == "2"
print("yaml ok")' "$REPO_ROOT/contrib/containerd/runtimeclass.yaml" \
		"$REPO_ROOT/contrib/containerd/pod.yaml"
	assert_success
	assert_output --partial "yaml ok"
}

# ---- the patched runc ----------------------------------------------------------

@test "annotations 0, 1, 2 reach runc: the level inside; at 2 MFD_EXEC fails with EACCES" {
	local level
	for level in 0 1 2; do
		run ctr_run "$RUNC_DEBUG_WRAPPER" --annotation="memfd_noexec=$level" \
			"$ID-$level" sh -c "$PROBE"
		echo "level $level" >&2
		assert_success
		assert_memfd_level "$level"
	done
	# containerd's own namespace stayed at 0.
	[ "$(daemon_level containerd)" = 0 ]
}

@test "annotation 3 fails creation with the patched runc's message, nothing left" {
	run ctr_run "$RUNC_DEBUG_WRAPPER" --annotation=memfd_noexec=3 "$ID" sh -c "$PROBE"
	assert_failure
	assert_output --partial 'Refusing annotations["memfd_noexec"] = "3" in config.json: allowed values are "0", "1" or "2"'
	refute_output --partial 'memfdprobe:' # the container never ran
	run ctr_ containers ls -q
	assert_success
	refute_output
}

@test "ctr task exec sees the container's level" {
	ctr_ run -d --fifo-dir "$DAEMON_DIR/fifo" --runc-binary "$RUNC_DEBUG_WRAPPER" \
		--annotation memfd_noexec=2 "$IMAGE" "$ID" sleep 600 >/dev/null
	wait_running "$ID"
	run ctr_ tasks exec --fifo-dir "$DAEMON_DIR/fifo" --exec-id e1 "$ID" sh -c "$PROBE"
	assert_success
	assert_memfd_level 2
}

# A: the container that creates a PID namespace (annotation $1, or none
# for "-"), sleeping; B then joins it with the annotation "2".
start_pid_owner() {
	local -a ann=()
	[ "$1" = - ] || ann=(--annotation "memfd_noexec=$1")
	ctr_ run -d --fifo-dir "$DAEMON_DIR/fifo" --runc-binary "$RUNC_DEBUG_WRAPPER" \
		"${ann[@]}" "$IMAGE" "$ID-owner" sleep 600 >/dev/null
	wait_running "$ID-owner"
	OWNER_NS="/proc/$(task_pid "$ID-owner")/ns/pid"
}

@test "a joined PID namespace below the level is refused, naming it and its level" {
	start_pid_owner -
	run ctr_run "$RUNC_DEBUG_WRAPPER" --annotation=memfd_noexec=2 \
		--with-ns="pid:$OWNER_NS" "$ID" sh -c "$PROBE"
	assert_failure
	refute_output --partial 'memfdprobe:' # the container never ran
	# ctr shows runc's error, which ends with nsexec's reason.
	assert_line --regexp 'it joins the existing PID namespace, pid:\[[0-9]+\], which is at level 0\. A namespace that the container only joins is never changed'
	# The other container is untouched.
	run ctr_ tasks exec --fifo-dir "$DAEMON_DIR/fifo" --exec-id "check-$ID" "$ID-owner" cat /proc/sys/vm/memfd_noexec
	assert_success
	assert_output 0
}

@test "a joined PID namespace already at the level is accepted, with a notice" {
	start_pid_owner 2
	run ctr_run "$RUNC_DEBUG_WRAPPER" --annotation=memfd_noexec=2 \
		--with-ns="pid:$OWNER_NS" "$ID" sh -c "$PROBE"
	assert_success
	assert_memfd_level 2
	# The notice, in runc's log (warning or info, not debug).
	with_output "$(cat "$DAEMON_DIR/runc-debug.log")" \
		assert_line --regexp '"level":"(warning|info)","msg":"[^"]*vm\.memfd_noexec'
}

@test "without a PID namespace (ctr run --config) the annotation is refused" {
	spec_file "$DAEMON_DIR/$ID.json" '.annotations.memfd_noexec = "2" |
		.linux.namespaces |= map(select(.type != "pid"))'
	run ctr_ run --rm --fifo-dir "$DAEMON_DIR/fifo" --runc-binary "$RUNC_DEBUG_WRAPPER" \
		--config "$DAEMON_DIR/$ID.json" "$ID"
	assert_failure
	# It would join the runtime's own namespace, at 0: never changed.
	assert_output --partial 'it joins the PID namespace of the caller (the runtime), pid:['
	assert_output --partial 'which is at level 0'
	refute_output --partial 'memfdprobe:' # the container never ran
}

# ---- stock runc ----------------------------------------------------------------

@test "stock runc + the memfd-noexec prestart hook (ctr run --config): level 2" {
	spec_file "$DAEMON_DIR/$ID.json" '.annotations.memfd_noexec = "2" |
		.hooks.prestart = [{path: $hook, args: ["memfd-noexec", "hook"]}]'
	run ctr_ run --rm --fifo-dir "$DAEMON_DIR/fifo" --runc-binary "$STOCK_RUNC" \
		--config "$DAEMON_DIR/$ID.json" "$ID"
	assert_success
	assert_memfd_level 2
	# And a bad value fails the container, through the hook.
	spec_file "$DAEMON_DIR/$ID-bad.json" '.annotations.memfd_noexec = "3" |
		.hooks.prestart = [{path: $hook, args: ["memfd-noexec", "hook"]}]'
	run ctr_ run --rm --fifo-dir "$DAEMON_DIR/fifo" --runc-binary "$STOCK_RUNC" \
		--config "$DAEMON_DIR/$ID-bad.json" "$ID-bad"
	assert_failure
	refute_output --partial 'memfdprobe:' # the container never ran
}

@test "stock runc with the annotation and no hook runs UNPROTECTED (the documented hazard)" {
	run ctr_run "$STOCK_RUNC" --annotation=memfd_noexec=2 "$ID" sh -c "$PROBE"
	assert_success
	assert_memfd_level 0
}

# ---- memfd-noexec check ----------------------------------------------------------

# fake_runtime PATH: writes at PATH an executable stand-in for an OCI
# runtime.  It takes the bundle (into $b) and the command from its
# arguments, exits 0 for anything but `run`, reads the container's
# process.args (into $args), and then runs the bash it was given on stdin.
fake_runtime() {
	{
		cat <<-'EOF'
			#!/bin/bash
			b= cmd=
			while [ $# -gt 0 ]; do
				case "$1" in
				--bundle) b=$2; shift ;;
				run | delete) cmd=$1 ;;
				esac
				shift
			done
			[ "$cmd" = run ] || exit 0
			mapfile -t args < <(jq -r '.process.args[]' "$b/config.json")
		EOF
		cat
	} >"$1"
	chmod 755 "$1"
}

@test "memfd-noexec check: the patched runc honours the annotation" {
	run "$MEMFD_NOEXEC" check --runtime "$RUNC"
	assert_success
	assert_output --partial 'annotation "2": ran at level 2 (MFD_EXEC: EACCES)'
	assert_output --partial 'verdict: honours'
	run "$MEMFD_NOEXEC" check --runtime "$RUNC" --json
	assert_success
	jq -e '.verdict == "honours" and .annotation_2.level == 2 and
		.annotation_3.ran == false and .annotation_2.deleted' <<<"$output" >/dev/null
}

@test "memfd-noexec check: stock runc ignores it, and says so loudly" {
	run "$MEMFD_NOEXEC" check --runtime "$STOCK_RUNC"
	assert_failure 1
	assert_output --partial 'annotation "2": ran at level 0 (MFD_EXEC: ok)'
	assert_output --partial 'verdict: ignores'
	assert_output --partial "WARNING: $STOCK_RUNC IGNORES the memfd_noexec annotation: containers that ask for it run UNPROTECTED"
}

@test "memfd-noexec check: Debian's crun ignores it too (rootfs bind of / works with crun)" {
	[ -x /usr/bin/crun ] || missing "Debian's crun at /usr/bin/crun" || return 1
	run "$MEMFD_NOEXEC" check --runtime /usr/bin/crun
	assert_failure 1
	assert_output --partial 'annotation "2": ran at level 0 (MFD_EXEC: ok)'
	assert_output --partial 'verdict: ignores'
}

@test "memfd-noexec check: a runtime that fails the annotation refuses; one that runs nothing cannot tell" {
	local fake="$DAEMON_DIR/fake-runtime-$ID"
	# Refuses any bundle with the annotation; otherwise runs the process
	# directly (no container at all: the check's own throwaway namespace).
	fake_runtime "$fake" <<-'EOF'
		if jq -e '.annotations.memfd_noexec' "$b/config.json" >/dev/null; then
			echo "fake-runtime: I do not know memfd_noexec" >&2
			exit 1
		fi
		exec "${args[@]}"
	EOF
	run "$MEMFD_NOEXEC" check --runtime "$fake"
	assert_failure 1
	assert_output --partial 'annotation "2": failed (exit status 1): fake-runtime: I do not know memfd_noexec'
	assert_output --partial 'no annotation: ran at level 0'
	assert_output --partial 'verdict: refuses'
	run "$MEMFD_NOEXEC" check --runtime /bin/true --json
	assert_failure 1
	jq -e '.verdict == "cannot-tell" and .annotation_2.ran == false and
		.control.ran == false' <<<"$output" >/dev/null
}

@test "memfd-noexec check: a runtime that runs every annotated container at 2, \"3\" too, ignores it" {
	local all2="$DAEMON_DIR/all2-runtime-$ID"
	# Any annotation, whatever its value: the process runs as PID 1 of a
	# new PID namespace at 2 (never the one it was started in).
	fake_runtime "$all2" <<-'EOF'
		if jq -e '.annotations.memfd_noexec' "$b/config.json" >/dev/null; then
			exec unshare --pid --fork --mount-proc \
				sh -c 'echo 2 >/proc/sys/vm/memfd_noexec && exec "$@"' sh "${args[@]}"
		fi
		exec "${args[@]}"
	EOF
	run "$MEMFD_NOEXEC" check --runtime "$all2"
	assert_failure 1
	assert_output --partial 'annotation "2": ran at level 2'
	assert_output --partial 'annotation "3": ran at level 2'
	assert_output --partial 'verdict: ignores'
	refute_output --partial 'verdict: honours'
	[ "$(host_level)" = "$HOST_LEVEL_BEFORE" ]
}

@test "memfd-noexec check: a runtime that sets its own namespace's level is caught, and the host stays put" {
	local evil="$DAEMON_DIR/evil-runtime-$ID"
	# Writes the requested level where it runs, then runs the process
	# there: on a host, that would be the host's namespace.
	fake_runtime "$evil" <<-'EOF'
		v=$(jq -r '.annotations.memfd_noexec // empty' "$b/config.json")
		[ -z "$v" ] || echo "$v" >/proc/sys/vm/memfd_noexec
		exec "${args[@]}"
	EOF
	run "$MEMFD_NOEXEC" check --runtime "$evil"
	assert_failure 1
	assert_output --partial 'verdict: cannot-tell'
	assert_output --partial 'DANGER: with the annotation "2" the runtime changed vm.memfd_noexec of the PID namespace it runs in (from 0 to 2)'
	[ "$(host_level)" = "$HOST_LEVEL_BEFORE" ]
}

@test "memfd-noexec check: config.json escapes every value (a path with a quote, a backslash, a tab, UTF-8)" {
	local dir="$DAEMON_DIR/odd \"q\\ b"$'\t'"t é" saved="$DAEMON_DIR/saved-$ID"
	local keeper="$DAEMON_DIR/keeping-runtime-$ID" bad="$DAEMON_DIR/bad"$'\xff'"-$ID"
	mkdir -p "$dir" "$saved" "$bad"
	cp "$MEMFD_NOEXEC" "$dir/"
	cp "$MEMFD_NOEXEC" "$bad/"
	# The patched runc runs the check's container from there, and honours.
	run "$dir/memfd-noexec" check --runtime "$RUNC" --json
	assert_success
	jq -e '.verdict == "honours" and .annotation_2.level == 2' <<<"$output" >/dev/null
	# A runtime that keeps each config.json (the check gives it a clean
	# environment, so the directory is written into the script).
	{
		printf 'saved=%q\n' "$saved"
		cat <<-'EOF'
			cp "$b/config.json" "$saved/config.json"
			exec "${args[@]}"
		EOF
	} | fake_runtime "$keeper"
	run "$dir/memfd-noexec" check --runtime "$keeper"
	assert_failure 1
	assert_output --partial 'verdict: ignores'
	run python3 -m json.tool "$saved/config.json"
	assert_success
	jq -e --arg self "$dir/memfd-noexec" '.process.args == [$self, "check", "--inside"] and
		.annotations.memfd_noexec == "2" and (.root.path | test("^/(run|tmp)/memfd-noexec-check\\.[^/]+/rootfs$"))' \
		"$saved/config.json" >/dev/null || fail "config.json: $(cat "$saved/config.json")"
	# A path that is not UTF-8, which JSON cannot carry: refused, named.
	run "$bad/memfd-noexec" check --runtime "$RUNC"
	assert_failure 1
	assert_output --partial "Failed to write config.json: the path of this program, \"$DAEMON_DIR/bad\\u00ff-$ID/memfd-noexec\", is not valid UTF-8"
	rm -rf "$dir" "$saved" "$bad" "$keeper"
}

# run_check [at_level N] ARGS...: `run memfd-noexec check ARGS` (at level N
# in a child PID namespace when asked) with a /run and /tmp of its own (a
# private tmpfs each, in a mount namespace of its own), so that what it
# leaves there is its own: after it come the lines "check pid=P" (its PID,
# which names its container memfd-noexec-check-P) and "left: PATH" for
# each file it left in /run or /tmp.  Other checks on the machine make and
# remove their own directories and cgroups meanwhile.  A clone or a runc
# under /tmp (/tmp/x/build/...) stays reachable: the top directory of each
# under /tmp is bound back from the shared /tmp into the private one, and
# is not counted as left.
run_check() {
	local -a wrap=(unshare --mount --propagation private --)
	if [ "$1" = at_level ]; then
		wrap=(at_level --proc "$2")
		shift 2
	fi
	local keep='' p
	for p in "$MEMFD_NOEXEC" "$RUNC"; do
		case "$p" in
		/tmp/?*)
			p=${p#/tmp/}
			p=/tmp/${p%%/*}
			grep -qxF -- "$p" <<<"$keep" || keep+="$p"$'\n'
			;;
		esac
	done
	local -x RUN_CHECK_KEEP="$keep"
	run "${wrap[@]}" sh -c '
		exec 3</tmp
		mount -n -t tmpfs -o mode=0755 check-run /run &&
			mount -n -t tmpfs -o mode=1777 check-tmp /tmp || exit 125
		printf "%s" "$RUN_CHECK_KEEP" | while IFS= read -r k; do
			mkdir -p "$k" && mount -n --no-canonicalize --bind "/proc/self/fd/3/${k#/tmp/}" "$k" || exit 125
		done || exit 125
		exec 3<&-
		"$@" &
		pid=$!
		wait "$pid"
		rc=$?
		echo "check pid=$pid"
		find /run /tmp -mindepth 1 -maxdepth 1 | grep -vxF -- "${RUN_CHECK_KEEP:-/}" |
			sed "s/^/left: /"
		exit "$rc"' sh "$MEMFD_NOEXEC" check "$@"
}

# refute_check_left: the check that run_check ran left no file, and no
# cgroup named after it.
refute_check_left() {
	local pid
	refute_line --regexp '^left: '
	pid=$(sed -n 's/^check pid=\([0-9]*\)$/\1/p' <<<"$output")
	[ -n "$pid" ] || { fail "run_check printed no PID: $output"; return; }
	[ -z "$(cgroups_named "memfd-noexec-check-$pid")" ] ||
		fail "cgroups of the check left: $(cgroups_named "memfd-noexec-check-$pid")"
}

@test "memfd-noexec check: a missing runtime, a bare name and a level already at 2" {
	run_check --runtime /nonexistent/runc
	assert_failure 2
	assert_output --partial "Failed to find the runtime '/nonexistent/runc': No such file or directory"
	refute_check_left
	run_check --runtime runc
	assert_failure 2
	assert_output --partial "is a name, not a path"
	refute_check_left
	run_check
	assert_failure 2
	refute_check_left
	run_check at_level 2 --runtime "$RUNC"
	assert_failure 1
	assert_output --partial 'verdict: cannot-tell'
	assert_output --partial 'vm.memfd_noexec is already 2 in this PID namespace'
	refute_check_left
}

# ---- the loader ------------------------------------------------------------------

@test "the loader under containerd: runc init runs from a sealed clone at levels 0 and 2" {
	run ctr_run "$RUNC_DEBUG_WRAPPER" "$ID-0" sh -c "$PROBE"
	assert_success
	assert_memfd_level 0
	assert_loader "$DAEMON_DIR/runc-debug.log" "$LOADER_METHODS"
	# containerd's namespace at 2: the shim's runc init can make no
	# executable memfd.
	daemon_set_level containerd 2
	: >"$DAEMON_DIR/runc-debug.log"
	run ctr_run "$RUNC_DEBUG_WRAPPER" "$ID-2" sh -c "$PROBE"
	assert_success
	assert_memfd_level 2
	assert_loader "$DAEMON_DIR/runc-debug.log" "$LOADER_METHODS_AT_2"
	daemon_set_level containerd 0
	[ "$(daemon_level containerd)" = 0 ]
}

# ---- last: stop ------------------------------------------------------------------

@test "stopping containerd by PID leaves no daemon, shim, mount, cgroup or host path" {
	# A running container too, which the stop must take down.
	ctr_ run -d --fifo-dir "$DAEMON_DIR/fifo" --runc-binary "$RUNC_DEBUG_WRAPPER" \
		"$IMAGE" "$ID" sleep 600 >/dev/null
	wait_running "$ID"
	pgrep -f "containerd-shim-runc-v2 .*$DAEMON_DIR" >/dev/null
	remove_all_containers
	daemon_stop containerd
	remove_parent_cgroups "$CTR_NS"
	# Its private paths were used, in place of /var/lib/containerd,
	# /run/containerd, /opt/containerd and /etc/cni/net.d.
	assert_nothing_left containerd "$CTR_NS" \
		"$DAEMON_DIR/root/io.containerd.metadata.v1.bolt" \
		"$DAEMON_DIR/state/io.containerd.runtime.v2.task" "$DAEMON_DIR/opt/bin" \
		"$DAEMON_DIR/cni/net.d"
}
