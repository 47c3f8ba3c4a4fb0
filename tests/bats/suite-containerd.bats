#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The containerd of each newer Debian release, in a root of that suite
# (contrib/lib.sh), with the toolkit's package built for that suite
# (contrib/build-deb.sh --suite; built here when build/deb/SUITE/ has
# none) and containerd from the suite's archive (apt inside the root):
#  - trixie's containerd 1.7 loads contrib/containerd/config.toml (version
#    2), sid's 2.x config-v3.toml (version 3): the CRI plugin loads, and
#    the handler, as containerd decoded it, lets the pod's memfd_noexec
#    through to /usr/sbin/runc;
#  - `ctr run` of a container whose spec has the annotation and the
#    package's hook (/usr/bin/memfd-noexec hook), through the suite's
#    stock runc (trixie 1.1.15, sid 1.3.6): the container reads the level
#    asked for, and a bad value is refused with the hook's message.
# Each containerd runs inside the root's own PID and mount namespaces
# (suite_run: /run is a tmpfs there), with a private root and socket, and
# dies with them; the host's vm.memfd_noexec must not move.
#
# Not covered: our runc package and the CRI API under these containerds
# (containerd.bats runs them under Debian 12's containerd 1.6 on the host).

bats_require_minimum_version 1.5.0

load helpers

# suite_root SUITE: the root of SUITE this file uses.
suite_root() {
	echo "$REPO_ROOT/build/roots/$1-containerd"
}

# The script a test runs in a root: containerd with /config.toml in the
# background, then "$@" with A (the socket), then containerd stopped.
CTRD_SCRIPT='set -eu
containerd --config /config.toml >/tmp/containerd.log 2>&1 &
pid=$!
A=/run/mt-containerd/containerd.sock
i=0
until ctr -a "$A" version >/dev/null 2>&1; do
	i=$((i + 1))
	[ "$i" -lt 150 ] || { echo "containerd did not answer"; tail -20 /tmp/containerd.log; exit 1; }
	sleep 0.2
done
rc=0
A=$A sh -c "$1" || rc=$?
kill "$pid"
wait "$pid" || :
exit "$rc"'

setup_file() {
	[ "$(id -u)" -eq 0 ] || return 0
	PROG='suite-containerd.bats'
	# shellcheck source=contrib/lib.sh
	. "$REPO_ROOT/contrib/lib.sh"
	local suite root deb v arch
	v=$(sed -n 's/^project(memfd-toolkit VERSION \([^ )]*\).*/\1/p' "$REPO_ROOT/CMakeLists.txt")
	arch=$(dpkg-architecture -qDEB_HOST_ARCH)
	for suite in trixie sid; do
		deb=$REPO_ROOT/build/deb/$suite/memfd-toolkit_${v}_$arch.deb
		if [ ! -f "$deb" ]; then
			DEB_BUILD_OPTIONS=parallel=2 "$REPO_ROOT/contrib/build-deb.sh" --suite "$suite" >&3 2>&1 ||
				return 0
		fi
		root=$(suite_root "$suite")
		suite_unpack "$suite" "$root" >&3 2>&1
		mkdir -m 0777 "$root/pkgs"
		cp "$deb" "$root/pkgs/"
		# A busybox rootfs (the root's busybox-static), links relative.
		mkdir -p "$root/rootfs/bin" "$root/rootfs/proc" "$root/rootfs/dev" "$root/rootfs/sys" "$root/rootfs/tmp"
		cp "$root/bin/busybox" "$root/rootfs/bin/busybox"
		SUITE_BINDS='' suite_run "$root" 600 env -C /pkgs DEBIAN_FRONTEND=noninteractive DEB="$(basename "$deb")" sh -ec '
			rm -f /var/lib/man-db/auto-update
			apt-get install -y -qq --no-install-recommends containerd "./$DEB" >/tmp/apt.log 2>&1 ||
				{ tail -5 /tmp/apt.log; exit 1; }
			for a in $(busybox --list); do
				[ -e "/rootfs/bin/$a" ] || ln -s busybox "/rootfs/bin/$a"
			done
			touch /pkgs/ready' >&3 2>&1 || :
	done
}

teardown_file() {
	[ "$(id -u)" -eq 0 ] || return 0
	PROG='suite-containerd.bats'
	. "$REPO_ROOT/contrib/lib.sh"
	suite_remove "$(suite_root trixie)"
	suite_remove "$(suite_root sid)"
}

setup() {
	requires root cmd:python3 || return 1
	PROG='suite-containerd.bats'
	. "$REPO_ROOT/contrib/lib.sh"
	T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/suite-containerd-bats.XXXXXX")
	HOST_LEVEL_BEFORE=$(host_level)
}

teardown() {
	[ -z "${T:-}" ] || rm -rf "$T"
	assert_host_level_unchanged "${HOST_LEVEL_BEFORE:-}"
}

# in_root SUITE CONFIG SCRIPT: SCRIPT (sh, with $A the socket) in SUITE's
# root while its containerd runs with CONFIG: contrib/containerd/CONFIG,
# or "plain", below a private root, state and socket.
in_root() {
	local suite="$1" config="$2" script="$3" root
	root=$(suite_root "$suite")
	[ -f "$root/pkgs/ready" ] || missing "the $suite root with containerd and the toolkit's package (setup_file)" || return 1
	{
		if [ "$config" = plain ]; then
			echo "version = 2"
		else
			sed -n '/^version = /p' "$REPO_ROOT/contrib/containerd/$config"
		fi
		cat <<-'EOF'
			root = "/var/lib/mt-containerd"
			state = "/run/mt-containerd"
			[grpc]
			  address = "/run/mt-containerd/containerd.sock"
			[ttrpc]
			  address = ""
		EOF
		[ "$config" = plain ] || grep -v '^version' "$REPO_ROOT/contrib/containerd/$config"
	} >"$root/config.toml"
	SUITE_BINDS='' suite_run "$root" 300 bash -c "$CTRD_SCRIPT" ctrd "$script"
}

# check_recipe SUITE CONFIG PLUGIN VERSION-REGEX: containerd (VERSION)
# loads CONFIG; the CRI plugin is ok; the handler under PLUGIN.
check_recipe() {
	local suite="$1" config="$2" plugin="$3" version="$4"
	run in_root "$suite" "$config" '
		containerd --version
		ctr -a "$A" plugins ls | grep -E "^io\.containerd\.grpc\.v1 +cri "
		echo "---- dump"
		containerd --config /config.toml config dump'
	echo "$output" | sed -n '1,/^---- dump$/p'
	assert_success
	assert_line --regexp "^containerd .* $version"
	assert_line --regexp '^io\.containerd\.grpc\.v1 +cri +.* ok *$'
	sed '1,/^---- dump$/d' <<<"$output" >"$T/dump.toml"
	run python3 -c '
import sys, tomllib
cfg = tomllib.load(open(sys.argv[1], "rb"))
rts = cfg["plugins"][sys.argv[2]]["containerd"]["runtimes"]
rt = rts["memfd-noexec"]
assert rt["runtime_type"] == "io.containerd.runc.v2", rt
assert rt["pod_annotations"] == ["memfd_noexec"], rt
assert not rt.get("container_annotations"), rt
assert rt["options"]["BinaryName"] == "/usr/sbin/runc", rt
assert "runc" in rts, rts.keys()
print("handler ok")' "$T/dump.toml" "$plugin"
	assert_success
	assert_output "handler ok"
}

# check_hook SUITE: ctr run, through the suite's stock runc, of a
# container whose spec has the annotation and the package's hook, at
# "2", "1" and "3".
check_hook() {
	run in_root "$1" plain '
		runc --version | head -1
		for lvl in 2 1 3; do
			ctr oci spec | jq --arg lvl "$lvl" '"'"'
				.root.path = "/rootfs" | .root.readonly = false |
				.process.terminal = false | .process.env = ["PATH=/bin"] |
				.process.args = ["cat", "/proc/sys/vm/memfd_noexec"] |
				.annotations.memfd_noexec = $lvl |
				.hooks.prestart = [{path: "/usr/bin/memfd-noexec", args: ["memfd-noexec", "hook"]}]'"'"' >/spec.json
			rc=0
			out=$(ctr -a "$A" run --rm --config /spec.json --runc-binary /usr/sbin/runc --fifo-dir /tmp/fifo "t$lvl" 2>&1) || rc=$?
			echo "asked $lvl: rc=$rc: $out"
		done'
	echo "$output"
	assert_success
	assert_line "asked 2: rc=0: 2"
	assert_line "asked 1: rc=0: 1"
	assert_line --regexp '^asked 3: rc=1: .*memfd-noexec hook: Refusing annotations\["memfd_noexec"\] = "3"'
}

@test "trixie's containerd 1.7 loads contrib/containerd/config.toml: CRI ok, the handler with pod_annotations and /usr/sbin/runc" {
	check_recipe trixie config.toml io.containerd.grpc.v1.cri '1\.7\.'
}

@test "sid's containerd 2.x loads contrib/containerd/config-v3.toml: CRI ok, the handler with pod_annotations and /usr/sbin/runc" {
	check_recipe sid config-v3.toml io.containerd.cri.v1.runtime '2\.'
}

@test "trixie: ctr run under containerd 1.7 with stock runc 1.1.15 and the trixie package's hook gives the annotation's level, refuses \"3\"" {
	check_hook trixie
	assert_line --regexp '^runc version 1\.1\.'
}

@test "sid: ctr run under containerd 2.x with stock runc 1.3 and the sid package's hook gives the annotation's level, refuses \"3\"" {
	check_hook sid
	assert_line --regexp '^runc version 1\.3\.'
}
