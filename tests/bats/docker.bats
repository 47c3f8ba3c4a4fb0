#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The per-container vm.memfd_noexec policy and the loader under a real
# dockerd 20.10 (Debian's docker.io), through the Engine API with curl: the
# docker 20.10 CLI cannot ask for a level (no --annotation, and it refuses
# --sysctl vm.memfd_noexec), but HostConfig.Sysctls reaches the runtime.
#
# One dockerd for the whole file (setup_file), started by daemons.bash as
# PID 1 of a child PID namespace at level 0, with its own containerd beside
# it (as Debian's docker.service uses containerd.service), private roots,
# sockets, /run and cgroup parent; daemon.json is contrib/docker/daemon.json
# with the runtime's path pointed at contrib/containerd/runc-debug (which
# runs the patched runc with --debug and keeps its logs).  The last test
# stops dockerd by PID and checks that nothing is left.

load helpers
load daemons

CG_PARENT="${CG_PARENT:-mfdn-docker-$$}"
IMAGE=mfdn-busybox:1
RUN_AT_LEVEL="$REPO_ROOT/contrib/docker/run-at-level"
DOCKER_CLI=/usr/bin/docker

setup_file() {
	[ "$(id -u)" -eq 0 ] && [ -x "$RUNC" ] || return 0
	requires_daemon docker >/dev/null 2>&1 || return 0
	daemon_dir mfdn-dockerd
	export CG_PARENT
	cat >"$DAEMON_DIR/containerd.toml" <<-EOF
		version = 2
		root = "$DAEMON_DIR/containerd-root"
		state = "$DAEMON_DIR/containerd-state"
		disabled_plugins = ["io.containerd.grpc.v1.cri"]
		[grpc]
		  address = "$DAEMON_DIR/containerd.sock"
		[ttrpc]
		  address = ""
		[plugins."io.containerd.internal.v1.opt"]
		  path = "$DAEMON_DIR/opt"
	EOF
	# contrib's runtime, through the wrapper, plus stock runc; dockerd
	# would write /etc/docker/key.json without deprecated-key-path.
	jq --arg wrapper "$RUNC_DEBUG_WRAPPER" --arg stock "$STOCK_RUNC" \
		--arg key "$DAEMON_DIR/key.json" '
		.runtimes["memfd-noexec"].path = $wrapper |
		.runtimes["stock-runc"] = {path: $stock} |
		.["deprecated-key-path"] = $key' \
		"$REPO_ROOT/contrib/docker/daemon.json" >"$DAEMON_DIR/daemon.json"
	busybox_rootfs "$DAEMON_DIR/rootfs"
	rootfs_tar "$DAEMON_DIR/rootfs" "$DAEMON_DIR/rootfs.tar"
	daemon_start dockerd 0 env RUNC_DEBUG_REAL="$RUNC" \
		RUNC_DEBUG_LOG="$DAEMON_DIR/runc-debug.log" D="$DAEMON_DIR" \
		CG="$CG_PARENT" sh -c '
		containerd --config "$D/containerd.toml" >"$D/containerd.log" 2>&1 &
		i=0
		until [ -S "$D/containerd.sock" ] || [ $i -ge 200 ]; do
			sleep 0.05
			i=$((i + 1))
		done
		exec dockerd --containerd "$D/containerd.sock" \
			--data-root "$D/data" --exec-root "$D/exec" \
			--pidfile "$D/dockerd.ns-pid" --host "unix://$D/docker.sock" \
			--iptables=false --ip6tables=false --bridge=none \
			--storage-driver=vfs --config-file "$D/daemon.json" \
			--cgroup-parent "$CG"'
	daemon_wait dockerd api GET /_ping
	api POST "/images/create?fromSrc=-&repo=mfdn-busybox&tag=1" \
		-H 'Content-Type: application/x-tar' --data-binary "@$DAEMON_DIR/rootfs.tar" >/dev/null
}

teardown_file() {
	[ -n "${DAEMON_DIR:-}" ] || return 0
	remove_all_containers
	daemon_stop dockerd
	remove_cgroups "$CG_PARENT"
	rm -rf "$DAEMON_DIR"
}

setup() {
	requires_daemon docker || return 1
	[ -n "${DAEMON_DIR:-}" ] && daemon_pid dockerd >/dev/null || {
		echo "dockerd is not running (setup_file failed?)" >&2
		[ -z "${DAEMON_DIR:-}" ] || tail -30 "$DAEMON_DIR/dockerd.log" >&2
		return 1
	}
	HOST_LEVEL_BEFORE="$(host_level)"
	: >"$DAEMON_DIR/runc-debug.log"
	export DOCKER_SOCK="$DAEMON_DIR/docker.sock"
}

teardown() {
	local rc=0 # teardown runs without errexit: each check counts through rc
	if [ -n "${DAEMON_DIR:-}" ] && daemon_pid dockerd >/dev/null; then
		remove_all_containers
		# A test that raised dockerd's namespace puts it back.
		if [ -n "${DAEMON_LEVEL_MOVED:-}" ] && ! daemon_set_level dockerd 0; then
			fail "could not put dockerd's PID namespace back to level 0"
			rc=1
		fi
	fi
	assert_host_level_unchanged "${HOST_LEVEL_BEFORE:-}" || rc=1
	return "$rc"
}

# api METHOD PATH [curl args]: the Engine API (v1.41, Docker 20.10's).
api() {
	local m="$1" p="$2"
	shift 2
	curl -sSf --unix-socket "$DAEMON_DIR/docker.sock" -X "$m" "$@" "http://docker/v1.41$p"
}

remove_all_containers() {
	daemon_pid dockerd >/dev/null || return 0
	local c
	for c in $(api GET '/containers/json?all=1' | jq -r '.[].Id'); do
		api DELETE "/containers/$c?force=1" >/dev/null || true
	done
}

# at_level LEVEL [RUNTIME]: contrib/docker/run-at-level with the probes.
docker_probe() {
	DOCKER_RUNTIME="${2:-memfd-noexec}" "$RUN_AT_LEVEL" "$1" "$IMAGE" sh -c "$PROBE"
}

# ---- configuration -----------------------------------------------------------

@test "dockerd loads contrib/docker/daemon.json: the runtime is registered" {
	run api GET /info
	assert_success
	jq -e --arg w "$RUNC_DEBUG_WRAPPER" '.Runtimes["memfd-noexec"].path == $w' \
		<<<"$output" >/dev/null
	run api GET /version
	assert_success
	jq -e '.ApiVersion == "1.41" and (.Version | startswith("20.10."))' <<<"$output" >/dev/null
}

@test "the docker 20.10 CLI can ask for no level: no --annotation, --sysctl refused" {
	[ -x "$DOCKER_CLI" ] || missing "Debian's docker CLI at $DOCKER_CLI" || return 1
	run env DOCKER_HOST="unix://$DAEMON_DIR/docker.sock" "$DOCKER_CLI" run --rm \
		--network none --runtime memfd-noexec --sysctl vm.memfd_noexec=2 "$IMAGE" true
	assert_failure 125
	assert_output --partial "sysctl 'vm.memfd_noexec=2' is not whitelisted"
	run env DOCKER_HOST="unix://$DAEMON_DIR/docker.sock" "$DOCKER_CLI" run --rm \
		--network none --annotation memfd_noexec=2 "$IMAGE" true
	assert_failure 125
	assert_output --partial "unknown flag: --annotation"
}

# ---- the Engine API --------------------------------------------------------------

@test "HostConfig.Sysctls vm.memfd_noexec 1 and 2 with the patched runc: the level inside" {
	run docker_probe 2
	assert_success
	assert_memfd_level 2
	run docker_probe 1
	assert_success
	assert_memfd_level 1
	[ "$(daemon_level dockerd)" = 0 ]
}

@test "HostConfig.Sysctls vm.memfd_noexec 3 fails with the patched runc's message" {
	# run-at-level refuses 3 itself; ask the API directly.
	local id
	# Two steps: in a pipeline the API's failure would be lost.
	id=$(api POST /containers/create -H 'Content-Type: application/json' -d "$(jq -n \
		--arg i "$IMAGE" '{Image: $i, Cmd: ["true"], HostConfig: {Runtime: "memfd-noexec",
		NetworkMode: "none", Sysctls: {"vm.memfd_noexec": "3"}}}')")
	id=$(jq -er .Id <<<"$id")
	run curl -sS --unix-socket "$DAEMON_DIR/docker.sock" -X POST -w '\n%{http_code}' \
		"http://docker/v1.41/containers/$id/start"
	assert_line 500
	assert_output --partial 'Refusing linux.sysctl[\"vm.memfd_noexec\"] = \"3\" in config.json: allowed values are'
	run "$RUN_AT_LEVEL" 3 "$IMAGE" true
	assert_failure 2
}

@test "stock runc refuses HostConfig.Sysctls vm.memfd_noexec (safe, but no level)" {
	run docker_probe 2 stock-runc
	assert_failure 125
	assert_output --partial 'sysctl "vm.memfd_noexec" is not in a separate kernel namespace'
	refute_output --partial 'memfdprobe:' # the container never ran
}

# ---- the loader ------------------------------------------------------------------

@test "the loader under dockerd: runc init runs from a sealed clone at levels 0 and 2" {
	run docker_probe 0
	assert_success
	assert_memfd_level 0
	assert_loader "$DAEMON_DIR/runc-debug.log" "$LOADER_METHODS"
	daemon_set_level dockerd 2
	: >"$DAEMON_DIR/runc-debug.log"
	run docker_probe 2
	assert_success
	assert_memfd_level 2
	assert_loader "$DAEMON_DIR/runc-debug.log" "$LOADER_METHODS_AT_2"
	daemon_set_level dockerd 0
	[ "$(daemon_level dockerd)" = 0 ]
}

# ---- last: stop ------------------------------------------------------------------

@test "stopping dockerd by PID leaves no daemon, shim, mount, cgroup or host path" {
	local id
	id=$(api POST /containers/create -H 'Content-Type: application/json' -d "$(jq -n \
		--arg i "$IMAGE" '{Image: $i, Cmd: ["sleep", "600"],
		HostConfig: {Runtime: "memfd-noexec", NetworkMode: "none"}}')")
	id=$(jq -er .Id <<<"$id")
	api POST "/containers/$id/start" >/dev/null
	pgrep -f "containerd-shim-runc-v2 .*$DAEMON_DIR" >/dev/null
	remove_all_containers
	daemon_stop dockerd
	remove_parent_cgroups "$CG_PARENT"
	# Its private paths were used, in place of /var/lib/docker,
	# /run/docker, /etc/docker/key.json and containerd's.
	assert_nothing_left dockerd "$CG_PARENT" "$DAEMON_DIR/data/volumes" \
		"$DAEMON_DIR/exec/runtime-runc" "$DAEMON_DIR/key.json" \
		"$DAEMON_DIR/containerd-root/io.containerd.metadata.v1.bolt" \
		"$DAEMON_DIR/containerd-state/io.containerd.runtime.v2.task"
}
