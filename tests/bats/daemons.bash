# SPDX-License-Identifier: Apache-2.0
# Shared by containerd.bats and docker.bats (load after helpers): a real
# containerd or dockerd, started by the suite with private roots, sockets
# and pid files, and stopped by PID afterwards.
#
# The daemon runs as PID 1 of a child PID namespace whose vm.memfd_noexec
# is set first (never the initial namespace's), with a mount namespace of
# its own, a fresh /proc (without it the shim fails to set its OOM score)
# and a private tmpfs on /run.  The shims hard-code /run/containerd/s and
# default to /run/containerd/{fifo,runc}, dockerd writes /run/docker: all
# of that lands in the private tmpfs and vanishes with the namespace, so
# the host's /run is never touched.  ctr runs on the host and talks to the
# daemon's socket in $DAEMON_DIR; its FIFOs go to $DAEMON_DIR/fifo.
#
# Stopping: delete every container through the daemon (so that runc removes
# its cgroups), SIGTERM the daemon by its host PID, then wait for the
# namespace to empty.  Never use the daemon's --pidfile from the host: it
# holds the PID inside the namespace, which is 1.

# shellcheck disable=SC2034 # used by the suites that load this file
{
	MEMFD_NOEXEC="$BUILD_DIR/memfd-noexec/memfd-noexec"
	STOCK_RUNC=/usr/sbin/runc
	RUNC_DEBUG_WRAPPER="$REPO_ROOT/contrib/containerd/runc-debug"
	# Which method the loader must report: the overlay, at every level.
	LOADER_METHODS=overlay
	LOADER_METHODS_AT_2=overlay
}

# requires_daemon containerd|docker: the packages (installed if missing)
# and the patched runc; a missing piece skips, or fails under CI=true.
requires_daemon() {
	requires root memfd_noexec runc || return 1
	local -a bins pkgs
	case "$1" in
	containerd)
		bins=(containerd ctr jq busybox)
		pkgs=(containerd jq busybox-static) ;;
	docker)
		bins=(dockerd containerd curl jq busybox)
		pkgs=(docker.io containerd curl jq busybox-static) ;;
	esac
	command -v "${bins[@]}" >/dev/null 2>&1 ||
		missing "${bins[*]} (Debian's ${pkgs[*]})" || return 1
	[ -x "$STOCK_RUNC" ] || missing "Debian's runc at $STOCK_RUNC" || return 1
	[ -x "$MEMFD_NOEXEC" ] || missing "memfd-noexec at $MEMFD_NOEXEC" || return 1
}

# daemon_dir PREFIX: a private directory for the daemon and its files.
daemon_dir() {
	DAEMON_DIR=$(mktemp -d "/tmp/$1.XXXXXX")
	chmod 0711 "$DAEMON_DIR"
	mkdir -p "$DAEMON_DIR/fifo"
	export DAEMON_DIR
}

# The host paths that Debian's daemons use by default; the suites' daemons
# must create none of them (assert_nothing_left).
HOST_PATHS=(/run/containerd /run/docker /etc/docker/key.json /opt/containerd
	/var/lib/containerd /var/lib/docker /etc/cni/net.d)

# host_paths_snapshot [before|after]: which of HOST_PATHS exist now, sorted,
# into $DAEMON_DIR/host-paths.before (or .after).
host_paths_snapshot() {
	local p
	for p in "${HOST_PATHS[@]}"; do
		[ ! -e "$p" ] || echo "$p"
	done | LC_ALL=C sort >"$DAEMON_DIR/host-paths.${1:-before}"
}

# daemon_start NAME LEVEL CMD...: CMD as PID 1 of a new PID namespace at
# vm.memfd_noexec=LEVEL (see above); its output goes to $DAEMON_DIR/NAME.log.
# Records the daemon's host PID in $DAEMON_DIR/NAME.host-pid, and
# unshare's in $DAEMON_DIR/NAME.unshare-pid (never name a daemon's own
# --pidfile like these: it holds 1).
daemon_start() {
	local name="$1" level="$2" upid hpid i
	shift 2
	host_paths_snapshot before
	# fd 3 is bats' own: a background job holding it would hang bats.
	unshare --pid --fork --kill-child --mount --mount-proc --propagation private -- \
		sh -c 'echo "$0" > /proc/sys/vm/memfd_noexec || exit 125
			mount -t tmpfs -o mode=0755,size=64m tmpfs /run || exit 125
			exec "$@"' "$level" "$@" \
		</dev/null >"$DAEMON_DIR/$name.log" 2>&1 3>&- &
	upid=$!
	echo "$upid" >"$DAEMON_DIR/$name.unshare-pid"
	for i in $(seq 100); do
		hpid=$(pgrep -P "$upid" | head -1)
		[ -n "$hpid" ] && break
		sleep 0.05
	done
	[ -n "$hpid" ] || {
		echo "daemon_start: $name did not start; its log:" >&2
		cat "$DAEMON_DIR/$name.log" >&2
		return 1
	}
	echo "$hpid" >"$DAEMON_DIR/$name.host-pid"
}

# daemon_pid NAME: the daemon's PID as the host sees it, after checking
# that it is still the child of the unshare that daemon_start ran (so that
# a stale or wrong file can never make us signal another process, or
# init).  Prints nothing and fails otherwise.
daemon_pid() {
	local hpid upid ppid
	hpid=$(cat "$DAEMON_DIR/$1.host-pid" 2>/dev/null) || return 1
	upid=$(cat "$DAEMON_DIR/$1.unshare-pid" 2>/dev/null) || return 1
	[ -n "$hpid" ] && [ "$hpid" -gt 1 ] && [ -n "$upid" ] || return 1
	ppid=$(awk '{ print $4 }' "/proc/$hpid/stat" 2>/dev/null) || return 1
	[ "$ppid" = "$upid" ] || return 1
	echo "$hpid"
}

# daemon_wait NAME CMD...: waits (10 s at most) until CMD succeeds.
daemon_wait() {
	local name="$1" i
	shift
	for i in $(seq 200); do
		"$@" >/dev/null 2>&1 && return 0
		daemon_pid "$name" >/dev/null || break
		sleep 0.05
	done
	echo "daemon_wait: $name is not answering; its log ends:" >&2
	tail -30 "$DAEMON_DIR/$name.log" >&2
	return 1
}

# daemon_set_level NAME N: sets vm.memfd_noexec of the daemon's own PID
# namespace (from a process forked into it, after checking that it is
# neither the initial namespace nor ours).  Lowering works down to the
# host's level (hierarchy kernels); ratchet kernels refuse it.
daemon_set_level() {
	local hpid want
	hpid=$(daemon_pid "$1") || return 1
	want=$(readlink "/proc/$hpid/ns/pid") || return 1
	if [ -z "$want" ] || [ "$want" = "$(readlink /proc/1/ns/pid)" ] ||
		[ "$want" = "$(readlink /proc/self/ns/pid)" ]; then
		echo "daemon_set_level: refusing: $1 (PID $hpid) is not in a child PID namespace" >&2
		return 1
	fi
	# For teardown: this test moved the daemon's level.
	# shellcheck disable=SC2034 # the suites' teardown reads it
	DAEMON_LEVEL_MOVED=1
	nsenter --target "$hpid" --pid -- sh -c \
		'[ "$(readlink /proc/self/ns/pid)" = "$0" ] || exit 125
		echo "$1" > /proc/sys/vm/memfd_noexec' "$want" "$2"
}

# daemon_level NAME: what the daemon's namespace reads.
daemon_level() {
	local hpid
	hpid=$(daemon_pid "$1") || return 1
	nsenter --target "$hpid" --pid -- cat /proc/sys/vm/memfd_noexec
}

# daemon_stop NAME: SIGTERM by host PID, then SIGKILL after 20 s; waits
# for unshare (and so the namespace) to go.  Idempotent.
daemon_stop() {
	local name="$1" hpid upid i
	hpid=$(daemon_pid "$name") || hpid=
	upid=$(cat "$DAEMON_DIR/$name.unshare-pid" 2>/dev/null)
	[ -n "$upid" ] && [ "$upid" -gt 1 ] || return 0
	# unshare ignores SIGTERM; its child, the daemon, gets it.
	[ -z "$hpid" ] || kill -TERM "$hpid" 2>/dev/null || true
	for i in $(seq 400); do
		kill -0 "$upid" 2>/dev/null || break
		if [ "$i" -eq 300 ]; then
			[ -z "$hpid" ] || kill -KILL "$hpid" 2>/dev/null
			kill -KILL "$upid" 2>/dev/null
		fi
		sleep 0.05
	done
	wait "$upid" 2>/dev/null || true
	return 0
}

# assert_nothing_left NAME CGROUP_NAME [OWN_PATH...]: after daemon_stop,
# nothing of this file's is left: no daemon or unshare of its (by PID, if
# it still names $DAEMON_DIR), no shim or other process that names
# $DAEMON_DIR, no mount that names it, no cgroup called CGROUP_NAME (a
# name of this file's); each OWN_PATH exists (a private path that the
# config gives the daemon in place of a default in HOST_PATHS: proof it
# was used); and no host path appeared with this file's names in it.
# Others on the machine start and stop their own processes, mounts,
# cgroups and daemons meanwhile: only what carries this file's names
# counts.
assert_nothing_left() {
	local name="$1" cg="$2" left p
	shift 2
	for p in "$(cat "$DAEMON_DIR/$name.host-pid" 2>/dev/null)" \
		"$(cat "$DAEMON_DIR/$name.unshare-pid" 2>/dev/null)"; do
		[ -n "$p" ] || continue
		if grep -qaF -- "$DAEMON_DIR" "/proc/$p/cmdline" 2>/dev/null; then
			fail "still running: $(ps -o pid=,args= -p "$p")"
			return
		fi
	done
	left=$(pgrep -af -- "$DAEMON_DIR" || true)
	[ -z "$left" ] || { fail "processes left: $left"; return; }
	left=$(grep -F -- "$DAEMON_DIR" /proc/self/mountinfo || true)
	[ -z "$left" ] || { fail "mounts left: $left"; return; }
	left=$(cgroups_named "$cg")
	[ -z "$left" ] || { fail "cgroups left: $left"; return; }
	for p in "$@"; do
		[ -e "$p" ] || { fail "$name never made $p: did it use a default path of the host instead?"; return; }
	done
	host_paths_snapshot after
	for p in $(comm -13 "$DAEMON_DIR/host-paths.before" "$DAEMON_DIR/host-paths.after"); do
		left=$(own_traces "$p" "$cg" "$DAEMON_DIR")
		[ -z "$left" ] || { fail "$name created $p (it holds: $left)"; return; }
		echo "# $p appeared meanwhile, with nothing of this suite's in it: not counted" >&3
	done
}

# own_traces PATH NAME...: up to five files under PATH (a host path that
# appeared during the suite) whose name or content carries one of NAMES.
own_traces() {
	local p="$1" n
	local -a names=() greps=()
	shift
	for n in "$@"; do
		names+=(-o -name "*${n##*/}*")
		greps+=(-e "$n")
	done
	{
		find "$p" -maxdepth 8 \( -false "${names[@]}" \) -print 2>/dev/null
		grep -rlsF "${greps[@]}" "$p" 2>/dev/null
	} | head -5
}

# remove_parent_cgroups CGROUP_NAME: runc removes a container's own
# cgroup, not the parent that the daemon named (ctr: /<namespace>/<id>,
# dockerd: --cgroup-parent, which it makes relative to its own cgroup in a
# hierarchy where that is not the root); rmdir those parents, which fails,
# leaving them for assert_nothing_left, if a container's cgroup is still
# inside.
remove_parent_cgroups() {
	local cg
	cgroups_named "$1" | while read -r cg; do
		rmdir "$cg" 2>/dev/null
	done
	return 0
}

# remove_cgroups CGROUP_NAME: rmdir, deepest first, everything below and
# including CGROUP_NAME (teardown_file after a failed run).
remove_cgroups() {
	local cg
	cgroups_named "$1" | while read -r cg; do
		find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null
	done
	return 0
}

# ---- inside the container --------------------------------------------------

# What the containers run: the level, then the three memfd probes.
# shellcheck disable=SC2034 # the suites run it
PROBE='memfdprobe level; memfdprobe none; memfdprobe exec; memfdprobe exec-run'

# ---- images ----------------------------------------------------------------

# busybox_rootfs DIR: busybox (static) with its applets and a static
# memfdprobe in DIR/bin.
busybox_rootfs() {
	local d="$1" a probe="$BUILD_DIR/tests/helpers/memfdprobe-static"
	mkdir -p "$d/bin" "$d/proc" "$d/dev" "$d/sys" "$d/tmp" "$d/etc" "$d/run"
	cp /bin/busybox "$d/bin/busybox"
	for a in sh cat sleep true ls echo; do
		ln -sf busybox "$d/bin/$a"
	done
	if [ -x "$probe" ]; then
		cp "$probe" "$d/bin/memfdprobe"
	else
		"${CC:-cc}" -static -O2 -D_GNU_SOURCE -I "$REPO_ROOT/common" \
			-o "$d/bin/memfdprobe" "$REPO_ROOT/tests/helpers/memfdprobe.c"
	fi
	echo 'root:x:0:0:root:/:/bin/sh' >"$d/etc/passwd"
	echo 'root:x:0:' >"$d/etc/group"
}

# rootfs_tar ROOTFS OUT: a reproducible tar of ROOTFS.
rootfs_tar() {
	tar --numeric-owner --owner=0 --group=0 --sort=name --mtime=@0 \
		-C "$1" -cf "$2" .
}

# blob DIR FILE: moves FILE into DIR/blobs/sha256 under its digest and
# prints "DIGEST SIZE".
blob() {
	local sum size
	sum=$(sha256sum "$2" | cut -d' ' -f1)
	size=$(stat -c %s "$2")
	mv "$2" "$1/blobs/sha256/$sum"
	echo "$sum $size"
}

# oci_image_tar ROOTFS NAME OUT: an OCI image layout tar of ROOTFS (one
# uncompressed layer) whose index names it NAME (io.containerd.image.name),
# for `ctr image import`.
oci_image_tar() {
	local rootfs="$1" name="$2" out="$3" d l c m
	d=$(mktemp -d "$DAEMON_DIR/oci.XXXXXX")
	mkdir -p "$d/blobs/sha256"
	rootfs_tar "$rootfs" "$d/layer"
	read -r l lsize < <(blob "$d" "$d/layer")
	jq -n --arg l "sha256:$l" '{architecture: "amd64", os: "linux",
		config: {Env: ["PATH=/bin"], Cmd: ["/bin/sh"]},
		rootfs: {type: "layers", diff_ids: [$l]}}' >"$d/config"
	read -r c csize < <(blob "$d" "$d/config")
	jq -n --arg c "sha256:$c" --argjson cs "$csize" \
		--arg l "sha256:$l" --argjson ls "$lsize" '{schemaVersion: 2,
		mediaType: "application/vnd.oci.image.manifest.v1+json",
		config: {mediaType: "application/vnd.oci.image.config.v1+json",
			digest: $c, size: $cs},
		layers: [{mediaType: "application/vnd.oci.image.layer.v1.tar",
			digest: $l, size: $ls}]}' >"$d/manifest"
	read -r m msize < <(blob "$d" "$d/manifest")
	jq -n --arg m "sha256:$m" --argjson ms "$msize" --arg n "$name" '{
		schemaVersion: 2, manifests: [{
		mediaType: "application/vnd.oci.image.manifest.v1+json",
		digest: $m, size: $ms,
		annotations: {"io.containerd.image.name": $n},
		platform: {architecture: "amd64", os: "linux"}}]}' >"$d/index.json"
	echo '{"imageLayoutVersion": "1.0.0"}' >"$d/oci-layout"
	tar -C "$d" -cf "$out" oci-layout index.json blobs
	rm -rf "$d"
}

# ---- the runc wrapper ------------------------------------------------------

# assert_loader LOG METHODS: the wrapper's log shows runc init cloning
# itself with one of METHODS (an ERE alternation) and running from the
# sealed clone, and no failure to clone.
assert_loader() {
	local text
	text=$(cat "$1" 2>/dev/null) || : # a missing log fails below, with the message
	if ! grep -qE "\"msg\":\"(nsexec\[[0-9]+\]: )?cloned_binary: using ($2)\"" <<<"$text" ||
		! grep -qF 'cloned_binary: running from sealed clone"' <<<"$text"; then
		batslib_print_kv_single_or_multi 8 'markers' \
			"'cloned_binary: using ($2)' and 'cloned_binary: running from sealed clone'" \
			"log" "$(tail -40 <<<"$text")" |
			batslib_decorate "runc init's markers are not in the runc log $1" | fail
		return
	fi
	if grep -qF 'could not ensure we are a cloned binary' <<<"$text"; then
		batslib_print_kv_single_or_multi 8 "log" "$(tail -40 <<<"$text")" |
			batslib_decorate "runc init failed to clone itself" | fail
	fi
}
