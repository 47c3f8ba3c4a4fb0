# SPDX-License-Identifier: Apache-2.0
# Helpers for tests/bats/podman.bats: Debian 12's podman 4.3.1 driving the
# memfd-noexec hook and the patched runc, rootful and rootless.  Load after
# `load helpers`.
#
# Nothing here touches the machine's own podman state.  Every podman gets
# this file's --root, --runroot, --tmpdir, --volumepath and
# --network-config-dir (all under $PODMAN_T, made by podman_stage), its own
# containers.conf and storage.conf, the vfs driver, file locks and the file
# events backend, and an empty --hooks-dir of its own first, so that no
# hooks.d file installed on the machine is ever read.  Rootful containers
# get a cgroup parent of this file ($PODMAN_CGROUP_PARENT), rootful runc a
# --root under $PODMAN_T (podman 4.3 passes runc no --root, and its exit
# commands drop --runtime-flag, so /run/runc would be used).
#
# Levels: rootful podman runs inside a holder, a child PID namespace (with
# its own mount namespace and /proc) that root set to a level
# (podman_ns_start); rootless podman runs, one command at a time, in a
# fresh child PID namespace that root set first (rpodman).  So no podman,
# conmon, runc or hook ever runs in the initial PID namespace.

# The image every test runs (mk_image).
PODMAN_IMAGE=localhost/memfd-toolkit-busybox:latest
PODMAN_STOCK_RUNC=/usr/sbin/runc
MEMFDPROBE_STATIC="$BUILD_DIR/tests/helpers/memfdprobe-static"

# podman_requires root|podman|podman-rootless|hook|patched-runc ...: like
# `requires` (skip, or fail when CI=true), for what this suite needs.
podman_requires() {
	local r
	for r in "$@"; do
		case "$r" in
		podman)
			requires root memfd_noexec cmd:jq cmd:busybox || return 1
			command -v podman >/dev/null ||
				missing "podman (contrib/install-deps.sh test)" || return 1
			command -v conmon >/dev/null ||
				missing "conmon (contrib/install-deps.sh test)" || return 1
			[ -x "$PODMAN_STOCK_RUNC" ] ||
				missing "Debian's runc at $PODMAN_STOCK_RUNC" || return 1
			[ -x "$MEMFDPROBE_STATIC" ] ||
				missing "memfdprobe-static at $MEMFDPROBE_STATIC (a build without sanitizers)" || return 1
			[ -n "${PODMAN_T:-}" ] && [ -f "$PODMAN_T/image.ok" ] || {
				echo "setup_file did not finish staging podman under ${PODMAN_T:-?}" >&2
				return 1
			} ;;
		podman-rootless)
			podman_requires podman || return 1
			requires user userns || return 1
			command -v newuidmap >/dev/null ||
				missing "newuidmap (uidmap)" || return 1
			[ -f "$PODMAN_T/rootless/image.ok" ] || {
				echo "setup_file did not import the image for $TEST_USER" >&2
				return 1
			}
			# For teardown: clean up the rootless roots too.
			# shellcheck disable=SC2034 # podman.bats' teardown reads it
			PODMAN_ROOTLESS_USED=1 ;;
		hook)
			[ -x "$BUILD_DIR/memfd-noexec/memfd-noexec" ] ||
				missing "memfd-noexec at $BUILD_DIR/memfd-noexec/memfd-noexec" || return 1 ;;
		patched-runc)
			[ -x "$RUNC" ] ||
				missing "the patched runc at $RUNC (contrib/runc/build.sh)" || return 1 ;;
		*)
			requires "$r" || return 1 ;;
		esac
	done
}

# ---- staging (setup_file) -----------------------------------------------------

# mk_rootfs_tar FILE: a busybox rootfs (every applet a hard link: the
# copy's `busybox --install -s` would link to its host path) with a static
# memfdprobe as /bin/memfdprobe, as a tar for `podman import`.
mk_rootfs_tar() {
	local dir
	dir=$(mktemp -d /tmp/podman-rootfs.XXXXXX)
	mkdir -p "$dir/bin" "$dir/proc" "$dir/dev" "$dir/sys" "$dir/tmp" \
		"$dir/etc" "$dir/run"
	install -m 0755 /bin/busybox "$dir/bin/busybox"
	"$dir/bin/busybox" --install "$dir/bin" || return 1
	[ -e "$dir/bin/sh" ] && [ -e "$dir/bin/sleep" ] || {
		echo "mk_rootfs_tar: busybox --install made no applets in $dir/bin" >&2
		return 1
	}
	install -m 0755 "$MEMFDPROBE_STATIC" "$dir/bin/memfdprobe"
	tar -C "$dir" --numeric-owner --owner=0 --group=0 -cf "$1" .
	local rc=$?
	rm -rf -- "$dir"
	return $rc
}

# mk_image PODMAN_FN: imports $PODMAN_T/rootfs.tar as $PODMAN_IMAGE with
# PODMAN_FN (rootful_import or rpodman_import).
mk_image() {
	"$1" import -q "$PODMAN_T/rootfs.tar" "$PODMAN_IMAGE" >/dev/null
}

# write_containers_conf FILE RUNC_WRAPPER [ROOTFUL]: a containers.conf for
# CONTAINERS_CONF, which then is the only one read.  The default runtime is
# RUNC_WRAPPER: podman 4.3 puts the config's default, not the container's
# runtime, into the exit command of `podman exec`, and Debian's default is
# crun.  Rootful podman needs lower ulimits (no CAP_SYS_RESOURCE here);
# conmon gets no cgroup of its own (podman never removes it).
write_containers_conf() {
	{
		echo '[containers]'
		[ -z "${3:-}" ] ||
			echo 'default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]'
		echo 'cgroups = "no-conmon"'
		echo 'default_sysctls = []'
		echo '[engine]'
		echo 'lock_type = "file"'
		echo 'events_logger = "file"'
		echo 'cgroup_manager = "cgroupfs"'
		echo "hooks_dir = [\"$PODMAN_T/hooks-none.d\"]"
		echo 'runtime = "runc"'
		echo '[engine.runtimes]'
		echo "runc = [\"$2\"]"
	} >"$1"
}

# write_storage_conf DIR: DIR/storage.conf for CONTAINERS_STORAGE_CONF
# (which containers/storage then reads instead of the machine's): vfs in
# DIR/root and DIR/runroot, as the global options say too.
write_storage_conf() {
	{
		echo '[storage]'
		echo 'driver = "vfs"'
		echo "graphroot = \"$1/root\""
		echo "runroot = \"$1/runroot\""
		echo "rootless_storage_path = \"$1/root\""
	} >"$1/storage.conf"
}

# write_runc_wrapper FILE RUNC [ARGS...]: an executable FILE (named runc,
# as podman picks runc's features by the binary's name) that runs RUNC
# ARGS... with podman's arguments.
write_runc_wrapper() {
	local file="$1"
	shift
	{
		echo '#!/bin/sh'
		printf 'exec'
		printf ' %q' "$@"
		printf ' "$@"\n'
	} >"$file"
	chmod 0755 "$file"
}

# write_logging_runc FILE RUNC LOG [ARGS...]: a runc for podman that adds
# ARGS and, after each call, appends the log file that podman named (--log,
# runc's JSON log, where the loader's markers go) to LOG.  It must not
# exec: the log is complete only when runc has exited.
write_logging_runc() {
	local file="$1" runc="$2" log="$3"
	shift 3
	cat >"$file" <<EOF
#!/bin/sh
log= prev=
for a; do
	[ "\$prev" = --log ] && log=\$a
	case \$a in --log=*) log=\${a#--log=} ;; esac
	prev=\$a
done
$(printf '%q ' "$runc" "$@")"\$@"
rc=\$?
[ -n "\$log" ] && [ -f "\$log" ] && cat "\$log" >>$(printf '%q' "$log")
exit \$rc
EOF
	chmod 0755 "$file"
}

# write_hooksd DIR HOOK_PATH: DIR/memfd-noexec.json, the project's
# contrib/hooks.d file with hook.path replaced by HOOK_PATH.
write_hooksd() {
	mkdir -p "$1"
	jq --arg p "$2" '.hook.path = $p' \
		"$REPO_ROOT/contrib/hooks.d/memfd-noexec.json" >"$1/memfd-noexec.json"
	chmod -R a+rX "$1"
}

# ensure_subids: gives $TEST_USER an /etc/subuid and /etc/subgid range
# (65536 ids above every range there) unless it has one; records what it
# added in $PODMAN_T/subids-added for remove_subids.
ensure_subids() {
	local f start
	for f in /etc/subuid /etc/subgid; do
		[ -f "$f" ] || touch "$f"
		grep -q "^$TEST_USER:" "$f" && continue
		start=$(awk -F: 'BEGIN { m = 100000 }
			$2 + $3 > m { m = $2 + $3 } END { print m }' "$f")
		echo "$TEST_USER:$start:65536" >>"$f"
		echo "$f $TEST_USER:$start:65536" >>"$PODMAN_T/subids-added"
	done
}

remove_subids() {
	local f line
	[ -f "$PODMAN_T/subids-added" ] || return 0
	while read -r f line; do
		# Exactly the line that ensure_subids added, nothing else.
		grep -vxF -- "$line" "$f" >"$f.podman-bats" || true
		cat "$f.podman-bats" >"$f" && rm -f "$f.podman-bats"
	done <"$PODMAN_T/subids-added"
	rm -f "$PODMAN_T/subids-added"
}

# podman_stage: makes $PODMAN_T (world-traversable, as the rootless user
# runs from it) with the binaries, runc wrappers, hooks.d files, configs,
# the image, rootful and rootless, and exports what the tests need.
#
#   $PODMAN_T/bin/          memfd-noexec, the patched runc, hook-logger
#   $PODMAN_T/hooks.d/      the hooks.d file -> bin/memfd-noexec
#   $PODMAN_T/hooks-logged.d/  the hooks.d file -> bin/hook-logger
#   $PODMAN_T/hooks-none.d/ empty: every podman reads it first
#   $PODMAN_T/rootful/      containers.conf, storage.conf, the storage,
#                           runc-state/, stock/runc and patched/runc (the
#                           wrappers that add runc's --root)
#   $PODMAN_T/rootless/     configs and storage of $TEST_USER, owned by it,
#                           with xdg/ (XDG_RUNTIME_DIR), home/ and
#                           runc-debug.log
#   $PODMAN_T/rootless-bin/patched-debug/runc  the patched runc with --debug
#   $PODMAN_T/rootless-bin/packaged-debug/runc  /usr/sbin/runc with --debug,
#                           for rpodman with RPODMAN_INSTALL=...:/usr/sbin/runc
podman_stage() {
	PODMAN_T=$(mktemp -d /tmp/podman-bats.XXXXXX)
	chmod 0755 "$PODMAN_T"
	PODMAN_CGROUP_PARENT="/memfd-podman-bats-${PODMAN_T##*.}"
	export PODMAN_T PODMAN_CGROUP_PARENT
	local d="$PODMAN_T"
	mkdir -p "$d/bin" "$d/hooks-none.d" "$d/rootful/stock" \
		"$d/rootful/patched" "$d/rootful/runc-state" "$d/rootless-bin"
	[ ! -x "$BUILD_DIR/memfd-noexec/memfd-noexec" ] ||
		install -m 0755 "$BUILD_DIR/memfd-noexec/memfd-noexec" "$d/bin/memfd-noexec"
	[ ! -x "$RUNC" ] || install -m 0755 "$RUNC" "$d/bin/runc"
	# A hook that logs each call, then is memfd-noexec.
	cat >"$d/bin/hook-logger" <<EOF
#!/bin/sh
echo "hook-logger: called with: \$*" >>$(printf '%q' "$d/hook-calls.log")
exec $(printf '%q' "$d/bin/memfd-noexec") "\$@"
EOF
	chmod 0755 "$d/bin/hook-logger"
	: >"$d/hook-calls.log"
	write_hooksd "$d/hooks.d" "$d/bin/memfd-noexec"
	write_hooksd "$d/hooks-logged.d" "$d/bin/hook-logger"
	write_runc_wrapper "$d/rootful/stock/runc" "$PODMAN_STOCK_RUNC" \
		--root "$d/rootful/runc-state"
	write_runc_wrapper "$d/rootful/patched/runc" "$d/bin/runc" \
		--root "$d/rootful/runc-state"
	write_containers_conf "$d/rootful/containers.conf" \
		"$d/rootful/stock/runc" rootful
	write_storage_conf "$d/rootful"
	mk_rootfs_tar "$d/rootfs.tar" || return 1
	chmod -R a+rX "$d"
	mk_image rootful_import || return 1
	: >"$d/image.ok"

	ensure_test_user && unshare --user true 2>/dev/null || return 0
	ensure_subids
	mkdir -p "$d/rootless/xdg" "$d/rootless/home" "$d/rootless/tmp"
	chmod 0700 "$d/rootless/xdg"
	# Rootless runc keeps its state in $XDG_RUNTIME_DIR/runc, so stock runc
	# needs no wrapper; the patched one gets --debug.
	mkdir -p "$d/rootless-bin/patched-debug"
	write_logging_runc "$d/rootless-bin/patched-debug/runc" "$d/bin/runc" \
		"$d/rootless/runc-debug.log" --debug
	mkdir -p "$d/rootless-bin/packaged-debug"
	write_logging_runc "$d/rootless-bin/packaged-debug/runc" /usr/sbin/runc \
		"$d/rootless/runc-debug.log" --debug
	write_containers_conf "$d/rootless/containers.conf" "$PODMAN_STOCK_RUNC"
	write_storage_conf "$d/rootless"
	chmod -R a+rX "$d/rootless-bin"
	chown -R "$TEST_USER:" "$d/rootless"
	mk_image rpodman_import || return 1
	: >"$d/rootless/image.ok"
}

# podman_unstage: removes $PODMAN_T, this file's cgroup parents and the
# subordinate id ranges that ensure_subids added.
podman_unstage() {
	[ -n "${PODMAN_T:-}" ] || return 0
	case "$PODMAN_T" in /tmp/podman-bats.*) ;; *) return 1 ;; esac
	remove_subids
	local cg
	# Empty by now (assert_rootful_clean checks that after every test):
	# rmdir, never rm -r, so a cgroup with tasks stays and shows.
	cgroups_named "${PODMAN_CGROUP_PARENT#/}" | while read -r cg; do
		find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	if grep -qF " $PODMAN_T/" /proc/self/mountinfo; then
		echo "podman_unstage: mounts left under $PODMAN_T, not removing it" >&2
		return 1
	fi
	rm -rf -- "$PODMAN_T"
}

# ---- rootful podman ---------------------------------------------------------

# The global options of a rootful podman (hooks: add --hooks-dir DIR after
# them; podman reads every --hooks-dir given).
rootful_globals() {
	ROOTFUL_GLOBALS=(--root "$PODMAN_T/rootful/root"
		--runroot "$PODMAN_T/rootful/runroot"
		--tmpdir "$PODMAN_T/rootful/tmp"
		--volumepath "$PODMAN_T/rootful/volumes"
		--network-config-dir "$PODMAN_T/rootful/net"
		--storage-driver vfs --cgroup-manager cgroupfs
		--events-backend file --hooks-dir "$PODMAN_T/hooks-none.d")
}

rootful_env() {
	ROOTFUL_ENV=(CONTAINERS_CONF="$PODMAN_T/rootful/containers.conf"
		CONTAINERS_STORAGE_CONF="$PODMAN_T/rootful/storage.conf"
		TMPDIR="$PODMAN_T/rootful/tmp")
}

# rootful_import ARGS...: rootful podman outside any holder, for the image
# import in setup_file: containers/image writes its blob-info cache to
# /var/lib/containers/cache for root whatever --root says, so /var/lib is
# a private tmpfs for it.
rootful_import() {
	local -a ROOTFUL_GLOBALS ROOTFUL_ENV
	rootful_globals
	rootful_env
	mkdir -p "$PODMAN_T/rootful/tmp"
	kill_after "${PODMAN_TIMEOUT:-300}" unshare --pid --fork --kill-child --mount-proc -- sh -c \
		'mount -t tmpfs -o mode=0755 podman-bats /var/lib && exec "$@"' sh \
		env "${ROOTFUL_ENV[@]}" podman "${ROOTFUL_GLOBALS[@]}" "$@"
}

# podman_ns_start LEVEL: starts this test's holder, a child PID namespace
# (and mount namespace with its own /proc) at vm.memfd_noexec=LEVEL, set
# by root there; every rootful_podman runs in it.  Sets PODMAN_NS_PID (its
# init as seen from here) and PODMAN_NS_UNSHARE.
podman_ns_start() {
	local ready="$BATS_TEST_TMPDIR/podman-ns.ready" i
	rm -f "$ready"
	unshare --pid --fork --kill-child --mount-proc -- bash -c '
		echo "$0" >/proc/sys/vm/memfd_noexec || exit 125
		: >"$1"
		trap "exit 0" TERM
		# PID 1 here: conmon is reparented to it, and bash reaps it.
		while :; do sleep 3600 & wait $!; done' "$1" "$ready" \
		</dev/null >/dev/null 2>&1 3>&- &
	PODMAN_NS_UNSHARE=$! PODMAN_NS_LEVEL=$1
	for ((i = 0; i < 100; i++)); do
		[ -e "$ready" ] && break
		sleep 0.05
	done
	PODMAN_NS_PID=$(cat "/proc/$PODMAN_NS_UNSHARE/task/$PODMAN_NS_UNSHARE/children" 2>/dev/null)
	PODMAN_NS_PID=${PODMAN_NS_PID%% *}
	[ -e "$ready" ] && [ -n "$PODMAN_NS_PID" ] || {
		echo "podman_ns_start: the holder at level $1 did not start" >&2
		return 1
	}
}

# podman_ns_stop: ends the holder and everything in it (SIGKILL to its
# init; unshare ignores SIGTERM while it waits).
podman_ns_stop() {
	[ -n "${PODMAN_NS_PID:-}" ] || return 0
	kill -KILL "$PODMAN_NS_PID" 2>/dev/null
	wait "$PODMAN_NS_UNSHARE" 2>/dev/null
	PODMAN_NS_PID='' PODMAN_NS_UNSHARE=''
}

# in_podman_ns CMD...: CMD in the holder's PID and mount namespaces, for
# PODMAN_TIMEOUT seconds at most (300).  Then nsenter is stopped, and since
# its child lives on in the holder (and would hold `run`'s pipe, see
# kill_after), the holder is killed with everything in it; CMD fails with
# 124 and the holder is gone for the rest of the test.
in_podman_ns() {
	local limit="${PODMAN_TIMEOUT:-300}" start="$SECONDS" rc=0
	timeout --foreground "$limit" nsenter --target "$PODMAN_NS_PID" --pid --mount -- "$@" || rc=$?
	if [ "$rc" -eq 124 ] && [ $((SECONDS - start)) -ge "$limit" ]; then
		echo "in_podman_ns: '$1' still ran after $limit s (PODMAN_TIMEOUT); killed the holder (PID $PODMAN_NS_PID) and everything in it" >&2
		kill -KILL "$PODMAN_NS_PID" 2>/dev/null
	fi
	return "$rc"
}

# rootful_podman [GLOBAL_OPTS...] COMMAND ...: rootful podman with this
# file's roots, in the holder.
rootful_podman() {
	local -a ROOTFUL_GLOBALS ROOTFUL_ENV
	rootful_globals
	rootful_env
	in_podman_ns env "${ROOTFUL_ENV[@]}" podman "${ROOTFUL_GLOBALS[@]}" "$@"
}

# The run options of every rootful container: no network, this file's
# cgroup parent, the runtime (a wrapper named runc that adds --root).
rootful_run_opts() {
	RUN_OPTS=(--network none --cgroup-parent "$PODMAN_CGROUP_PARENT")
	case "$1" in
	stock) RUN_OPTS+=(--runtime "$PODMAN_T/rootful/stock/runc") ;;
	patched) RUN_OPTS+=(--runtime "$PODMAN_T/rootful/patched/runc") ;;
	*) echo "rootful_run_opts: unknown runtime '$1'" >&2; return 1 ;;
	esac
}

# ---- rootless podman --------------------------------------------------------

rootless_globals() {
	ROOTLESS_GLOBALS=(--root "$PODMAN_T/rootless/root"
		--runroot "$PODMAN_T/rootless/runroot"
		--tmpdir "$PODMAN_T/rootless/tmp"
		--volumepath "$PODMAN_T/rootless/volumes"
		--network-config-dir "$PODMAN_T/rootless/net"
		--storage-driver vfs --cgroup-manager cgroupfs
		--events-backend file --hooks-dir "$PODMAN_T/hooks-none.d")
}

# rpodman LEVEL|inherit [GLOBAL_OPTS...] COMMAND ...: rootless podman as
# $TEST_USER with this file's rootless roots and environment, in a fresh
# child PID namespace (and mount namespace, own /proc) where root first set
# vm.memfd_noexec to LEVEL ("inherit": left as inherited).  Podman's pause
# process and conmon die with that namespace when the command ends, so one
# call is one self-contained podman session; a stale pause.pid from the
# last one is removed first.  RPODMAN_CGROUP_V1 non-empty: the cgroup2
# mount of a hybrid layout is unmounted there first (crun needs that).
rpodman() {
	local level="$1" r="$PODMAN_T/rootless"
	shift
	local -a ROOTLESS_GLOBALS
	rootless_globals
	rm -f "$r/tmp/pause.pid"
	# In the new mount namespace (private, as unshare makes it) "/" is made
	# shared again, in peer groups of its own, for podman's rootless mounts.
	# The session lives PODMAN_TIMEOUT seconds at most (300), then it is
	# killed (137); so that the kill reaches it, the root sh stays the
	# namespace's init and runs setpriv as a child (see kill_after).
	kill_after "${PODMAN_TIMEOUT:-300}" unshare --pid --fork --kill-child --mount-proc -- sh -c '
		[ "$0" = inherit ] || echo "$0" >/proc/sys/vm/memfd_noexec || exit 125
		# RPODMAN_INSTALL=FILE:PATH: FILE installed at PATH (a runtime at
		# its packaged path), in this mount namespace only: a fresh
		# tmpfs, root'"'"'s, on the directory of PATH, holding a copy of
		# FILE (a bind of the file alone would not do: an overlayfs of
		# the directory shows what is under the bind).
		if [ -n "${RPODMAN_INSTALL:-}" ]; then
			mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$(dirname "${RPODMAN_INSTALL#*:}")" &&
				install -m 0755 "${RPODMAN_INSTALL%%:*}" "${RPODMAN_INSTALL#*:}" || exit 125
		fi
		# crun (crun.bats) refuses a hybrid cgroup layout: v1 alone.
		[ -z "${RPODMAN_CGROUP_V1:-}" ] || ! mountpoint -q /sys/fs/cgroup/unified ||
			umount /sys/fs/cgroup/unified || exit 125
		mount --make-rshared / || exit 125
		"$@"
		exit "$?"' "$level" \
		setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups \
		--inh-caps=-all -- \
		env HOME="$r/home" XDG_RUNTIME_DIR="$r/xdg" \
		XDG_CONFIG_HOME="$r/home/.config" XDG_DATA_HOME="$r/home/.local/share" \
		CONTAINERS_CONF="$r/containers.conf" \
		CONTAINERS_STORAGE_CONF="$r/storage.conf" TMPDIR="$r/tmp" \
		podman "${ROOTLESS_GLOBALS[@]}" "$@"
}

rpodman_import() {
	rpodman inherit "$@"
}

# The run options of every rootless container: no network (/dev/net/tun
# is 0600 here), and the runtime: stock, or the patched runc through the
# --debug wrapper (markers in $PODMAN_T/rootless/runc-debug.log).
rootless_run_opts() {
	RUN_OPTS=(--network none)
	case "$1" in
	stock) RUN_OPTS+=(--runtime "$PODMAN_STOCK_RUNC") ;;
	patched) RUN_OPTS+=(--runtime "$PODMAN_T/rootless-bin/patched-debug/runc") ;;
	packaged) RUN_OPTS+=(--runtime "$PODMAN_T/rootless-bin/packaged-debug/runc") ;;
	*) echo "rootless_run_opts: unknown runtime '$1'" >&2; return 1 ;;
	esac
}

# ---- requests and assertions -----------------------------------------------

# annotation VALUE: the --annotation argument for memfd_noexec=VALUE,
# verbatim.  podman parses --annotation as CSV (pflag's StringSlice): a
# bare newline would end the value and a comma split it, so it is quoted.
annotation() {
	printf '"memfd_noexec=%s"' "${1//\"/\"\"}"
}

# What the containers run: the level, then what memfd_create() gives.
# shellcheck disable=SC2034 # podman.bats runs it
PROBES='for m in level none exec exec-run; do memfdprobe $m; done'

# assert_no_mounts: no mount from this file's podman roots, here or in the
# holder's mount namespace.
assert_no_mounts() {
	local f left
	for f in /proc/self/mountinfo ${PODMAN_NS_PID:+/proc/$PODMAN_NS_PID/mountinfo}; do
		left=$(grep -F " $PODMAN_T/" "$f" || true)
		[ -z "$left" ] || { fail "mounts left in $f: $left"; return; }
	done
}

# assert_rootful_clean: nothing left of rootful podman: `podman ps -a`
# empty, no runc state, no container cgroup, no mount, and the holder's
# own level unchanged (a hook writing to the runtime's PID namespace
# instead of the container's would show here, not on the host).  Only
# what this file made is looked at: its roots, its cgroup parent.
assert_rootful_clean() {
	local left
	left=$(rootful_podman ps -a -q 2>&1) || { fail "podman ps -a failed: $left"; return; }
	[ -z "$left" ] || { fail "podman ps -a still shows: $left"; return; }
	left=$(ls -A "$PODMAN_T/rootful/runc-state")
	[ -z "$left" ] || { fail "runc state left in $PODMAN_T/rootful/runc-state: $left"; return; }
	left=$(cgroups_named "${PODMAN_CGROUP_PARENT#/}" | while read -r cg; do
		find "$cg" -mindepth 1 -type d 2>/dev/null
	done)
	[ -z "$left" ] || { fail "container cgroups left below $PODMAN_CGROUP_PARENT: $left"; return; }
	assert_no_mounts || return
	left=$(in_podman_ns cat /proc/sys/vm/memfd_noexec)
	[ "$left" = "$PODMAN_NS_LEVEL" ] ||
		fail "the holder's PID namespace reads $left, not $PODMAN_NS_LEVEL: something wrote the runtime's namespace"
}

# assert_rootless_clean: `podman ps -a` of the rootless roots is empty and
# no mount is left.
assert_rootless_clean() {
	local left
	left=$(rpodman inherit ps -a -q 2>&1) || { fail "rootless podman ps -a failed: $left"; return; }
	[ -z "$left" ] || { fail "rootless podman ps -a still shows: $left"; return; }
	assert_no_mounts
}
