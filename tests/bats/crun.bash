# SPDX-License-Identifier: Apache-2.0
# Helpers shared by tests/bats/crun.bats (Debian's stock crun 1.8.1 through
# contrib/crun/crun-sealed) and tests/bats/crun-patched.bats (crun 1.8.1
# rebuilt by contrib/crun/build.sh).  Load after `load helpers` and `load
# podman`.
#
# Every crun runs inside `crun_ns N` (at_level --proc: a child PID namespace
# that root set to N, with its own mount namespace and /proc), never in the
# initial namespace.  crun refuses this machine's hybrid cgroup layout
# ("cgroups in hybrid mode not supported"), so crun_ns also unmounts the
# cgroup2 hierarchy at /sys/fs/cgroup/unified there, and crun uses cgroup
# v1.  The containers run a static memfdprobe in a read-only busybox
# rootfs.
#
# A suite sets CRUN_ENV (the environment its crun runs with) and calls
# crun_stage from setup_file, crun_setup from setup and crun_teardown from
# teardown.

STOCK_CRUN=/usr/bin/crun
# crun_stage puts everything in a world-readable directory (the rootless
# user runs from it); bats re-reads a suite for every test, so the staged
# paths come back through the STAGED_* variable it exports.
USER_BIN="${STAGED_USER_BIN:-}"
BUNDLE_DIR="${STAGED_USER_BIN:+$STAGED_USER_BIN/bundle}"
ROOTFS="$BUNDLE_DIR/rootfs"
# shellcheck disable=SC2034 # the suites use it
MEMFD_NOEXEC="$BUILD_DIR/memfd-noexec/memfd-noexec"

# What the containers run: the user namespace mapping, then the probes.
PROBE='cat /proc/self/uid_map; for m in level none exec exec-run; do memfdprobe $m; done'

# crun needs cgroup v1 alone here: rpodman (podman.bash) then unmounts the
# cgroup2 hierarchy of a hybrid layout in its mount namespace.
export RPODMAN_CGROUP_V1=1

# crun_stage: from setup_file, as root: the test user, the staged binaries
# (helpers.bash) and bundle/ with a busybox rootfs holding the static
# memfdprobe, and the base configs rootful.json and rootless.json (`crun
# spec`, `crun spec --rootless`).  Returns 1 (setup then fails every
# test, through STAGED_USER_BIN being unset) when it cannot.
crun_stage() {
	[ "$(id -u)" -eq 0 ] && [ -x "$STOCK_CRUN" ] && [ -x "$MEMFDPROBE_STATIC" ] &&
		ensure_test_user || return 1
	stage_user_binaries
	STAGED_USER_BIN="$USER_BIN"
	export STAGED_USER_BIN
	BUNDLE_DIR="$USER_BIN/bundle" ROOTFS="$USER_BIN/bundle/rootfs"
	local a d
	mkdir -p "$ROOTFS/bin" "$ROOTFS/proc" "$ROOTFS/dev" "$ROOTFS/sys" \
		"$ROOTFS/tmp" "$ROOTFS/etc"
	install -m 0755 /bin/busybox "$ROOTFS/bin/busybox"
	for a in sh true sleep cat; do
		ln -s busybox "$ROOTFS/bin/$a"
	done
	install -m 0755 "$MEMFDPROBE_STATIC" "$ROOTFS/bin/memfdprobe"
	(cd "$BUNDLE_DIR" && "$STOCK_CRUN" spec && mv config.json rootful.json)
	d=$(mktemp -d /tmp/crun-bats-spec.XXXXXX)
	chown "$TEST_USER:" "$d"
	(cd "$d" && as_user "$STOCK_CRUN" spec --rootless)
	mv "$d/config.json" "$BUNDLE_DIR/rootless.json"
	rm -rf "$d"
	chmod -R a+rX "$USER_BIN"
}

# crun_setup: from setup: this test's $T (state, XDG_RUNTIME_DIR), its
# container name $ID and the host's level for teardown.
crun_setup() {
	requires root user userns memfd_noexec cmd:jq cmd:crun || return 1
	[ -n "$STAGED_USER_BIN" ] && [ -d "$BUNDLE_DIR" ] || {
		echo "setup_file did not stage the bundle (memfdprobe-static at $MEMFDPROBE_STATIC?)" >&2
		return 1
	}
	HOST_LEVEL_BEFORE="$(host_level)"
	HOST_DEVICES_BEFORE="$(host_devices)"
	T=$(mktemp -d /tmp/crun-bats.XXXXXX)
	chmod 755 "$T"
	STATE="$T/state"
	mkdir -m 700 "$STATE" "$T/xdg"
	# Unique, so that a leftover cgroup is this test's.
	ID="crun-$BATS_TEST_NUMBER-$$"
	MODE=rootful
	PLAIN_CRUN=("$STOCK_CRUN" --root "$STATE")
	export T STATE ID
}

# crun_teardown: from teardown: the service stopped, rootless podman's
# containers and every container of this test's state removed, $T gone,
# and the host's level and devices (helpers.bash) where they were.  Returns 1 when a check failed.
crun_teardown() {
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
	assert_host_devices_unchanged "${HOST_DEVICES_BEFORE:-}" || rc=1
	return "$rc"
}

# crun_ns LEVEL CMD...: CMD as root in a child PID namespace at LEVEL with
# its own mount namespace and /proc, where a hybrid layout's cgroup2 mount
# is gone (crun supports cgroup v1 or v2, not both).  The namespace lives
# CRUN_NS_TIMEOUT seconds at most (default 120; one crun command takes
# well under 10 s here), then it is killed and CMD fails with 137.
crun_ns() {
	local level="$1"
	shift
	at_level --proc --timeout "${CRUN_NS_TIMEOUT:-120}" "$level" sh -c '
		if mountpoint -q /sys/fs/cgroup/unified; then
			umount /sys/fs/cgroup/unified || exit 125
		fi
		exec "$@"' sh "$@"
}

# as MODE BINARY [PREFIX...]: $T/runc, this test's crun command (PREFIX,
# env CRUN_ENV..., [setpriv to $TEST_USER,] BINARY --root $STATE) for MODE
# rootful or rootless; and PLAIN_CRUN, stock crun on the same state, for
# the checks and teardown.
as() {
	MODE="$1"
	local bin="$2"
	shift 2
	write_runc "$bin" "$@" env "${CRUN_ENV[@]}"
	PLAIN_CRUN=("$STOCK_CRUN" --root "$STATE")
	[ "$MODE" = rootful ] ||
		PLAIN_CRUN=(setpriv "--reuid=$TEST_USER" "--regid=$TEST_USER" --init-groups
			--inh-caps=-all -- env "XDG_RUNTIME_DIR=$T/xdg" "${PLAIN_CRUN[@]}")
}

# bundle NAME FILTER [ARGS...]: $T/NAME/config.json for MODE, running ARGS
# (default: the probes) on the read-only rootfs, the jq FILTER applied
# last.  FILTER may use $v, the JSON value in the file $T/value.json (when
# it exists).
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

# CREATED: a crun_ns script: `$T/runc create` of bundle $0 as $ID, then
# what the container's init (crun itself, waiting to exec the container's
# process) runs from: exe=, fstype=, `$1 --check` (sealexec) of it, and
# write= (a CVE-2019-5736-style open for writing of /proc/PID/exe).  The
# check runs as root (the init is not dumpable, so its owner cannot open
# its exe): root's proof of another process's detached overlay fails
# closed on 6.15+ (open_tree EINVAL, which an unbindable forgery also
# gives), so there its answer is "not a sealed clone" (README, "sealexec");
# the tests then rest on fstype=, exe= and write=.
# shellcheck disable=SC2034 # the suites run it
CREATED='
	"$T/runc" create -b "$T/$0" "$ID" </dev/null >/dev/null 2>"$T/create.log" ||
		{ cat "$T/create.log"; exit 1; }
	pid=$("$T/runc" state "$ID" | jq -r .pid)
	echo "exe=$(readlink "/proc/$pid/exe")"
	echo "fstype=$(stat -L -f -c %T "/proc/$pid/exe")"
	"$1" --check "/proc/$pid/exe"
	if (: >>"/proc/$pid/exe") 2>"$T/write.err"; then echo write=ok; else echo "write=$(cat "$T/write.err")"; fi
	"$T/runc" delete -f "$ID"'

# USERNS_100000: a bundle filter: a user namespace whose root is host uid
# and gid 100000 (65536 ids), as a rootful engine's --userns gives.
# IN_USERNS_100000: a container command that exits 0 only there.
# shellcheck disable=SC2034 # the suites use them
USERNS_100000='.linux.namespaces += [{"type": "user"}] |
	.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] |
	.linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'
# shellcheck disable=SC2034 # the suites use it
IN_USERNS_100000='read -r c h n </proc/self/uid_map && [ "$c $h $n" = "0 100000 65536" ]'
# CHMOD_DEV_NULL: a container command that checks it runs there (else
# exit 10), then tries a chmod 0600 of its /dev/null, which crun binds
# from the host's: where the container's root owns the node, it succeeds.
# shellcheck disable=SC2034 # the suites use it
CHMOD_DEV_NULL="$IN_USERNS_100000 || exit 10; busybox chmod 0600 /dev/null; exit 0"

# ON_DEV_NULL_COPY: a crun_ns script: `$T/runc run` of bundle $0 as $ID
# with stdin, stdout and stderr on /dev/null, where /dev/null is a copy:
# in crun_ns's private mount namespace a fresh node (mknod c 1 3, root,
# 0666, on a tmpfs of its own) is bind-mounted over it, so a crun that
# chowns the streams changes only the copy, never the host's node.
# Prints status= and node= (the copy's uid:gid, mode and device
# afterwards), then crun's log.  Without the copy in place nothing runs
# (exit 125).
# shellcheck disable=SC2034 # the suites run it
ON_DEV_NULL_COPY='
	d=$(mktemp -d "$T/devcopy.XXXXXX") && mount -t tmpfs -o mode=0755,size=64k devcopy "$d" || exit 125
	mknod -m 0666 "$d/null" c 1 3 && chown 0:0 "$d/null" || exit 125
	mount --bind "$d/null" /dev/null || exit 125
	[ "$(stat -c %d:%i /dev/null)" = "$(stat -c %d:%i "$d/null")" ] || exit 125
	"$T/runc" --log "$d.log" run -b "$T/$0" "$ID" </dev/null >/dev/null 2>/dev/null
	echo "status=$?"
	echo "node=$(stat -c "%u:%g %a %t:%T" "$d/null")"
	cat "$d.log" 2>/dev/null'

# write_crun_containers_conf FILE RUNTIME [ENV...]: podman.bash's rootless
# containers.conf with the recipe of contrib/crun/containers.conf on top:
# its default runtime and its [engine.runtimes] line, the path replaced by
# RUNTIME, and ENV (NAME=VALUE) in conmon's environment besides PATH.
write_crun_containers_conf() {
	local recipe="$REPO_ROOT/contrib/crun/containers.conf" runtime line env e
	runtime=$(grep -E '^runtime = ' "$recipe") &&
		line=$(grep -E '^crun = \[' "$recipe") || {
		echo "write_crun_containers_conf: no runtime or crun line in $recipe" >&2
		return 1
	}
	env='"PATH=/usr/sbin:/usr/bin:/sbin:/bin"'
	for e in "${@:3}"; do
		env="$env, \"$e\""
	done
	write_containers_conf "$1" "$PODMAN_STOCK_RUNC"
	sed -i "s|^runtime = .*|$runtime|" "$1"
	sed -i "s|^\[engine\]\$|&\nconmon_env_vars = [$env]|" "$1"
	sed -E "s|\"[^\"]*crun-sealed\"|\"$2\"|" <<<"$line" >>"$1"
}

# write_logged_runtime FILE RUNTIME LOG [ENV...]: FILE, a runtime for
# podman that appends every line RUNTIME writes to stderr to LOG and runs
# it with ENV (NAME=VALUE) set, so that a test can see its markers.
write_logged_runtime() {
	local file="$1" runtime="$2" log="$3" e
	shift 3
	{
		echo '#!/bin/sh'
		printf 'exec 2>>%q\n' "$log"
		for e in "$@"; do
			printf 'export %q\n' "$e"
		done
		printf 'exec %q "$@"\n' "$runtime"
	} >"$file"
	chmod 0755 "$file"
	: >"$log"
	chown "$TEST_USER:" "$log"
}
