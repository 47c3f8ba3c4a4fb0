#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# podman 5 of each newer Debian release, rootful, in a root of that suite
# (contrib/lib.sh), with the toolkit's package built for that suite
# (contrib/build-deb.sh --suite; built here when build/deb/SUITE/ has
# none) and podman from the suite's archive (apt inside the root):
# podman's default runtime, the suite's stock crun (trixie 1.21, sid
# 1.28), and no hooks option at all.  podman 5 reads the package's
# /usr/share/containers/oci/hooks.d/memfd-noexec.json by itself, so
# `--annotation memfd_noexec=N` gives the container level N, and "3" is
# refused with the hook's message (which crun shows only through its
# run.oci.hooks.stderr annotation).
#
# podman runs inside the root's own PID and mount namespaces (suite_run:
# /run and /tmp are tmpfs there, the hybrid host's cgroup2 mount is gone,
# so podman uses cgroup v1), with its own root, runroot and tmpdir, the
# vfs driver, and the ulimits this machine allows (no CAP_SYS_RESOURCE).
# The host's vm.memfd_noexec must not move.
#
# Not covered: rootless podman 5 (the service, pasta) and our runc
# package under podman 5; podman.bats runs those with Debian 12's 4.3.1.

bats_require_minimum_version 1.5.0

load helpers

suite_root() {
	echo "$REPO_ROOT/build/roots/$1-podman"
}

# The script a test runs in a root: the image imported, then one
# `podman run` per level in $@, each printed as "asked N: rc=RC: OUT",
# then the hook's stderr that crun kept.
PODMAN_SCRIPT='set -eu
mkdir -p /p
cat >/p/containers.conf <<EOF
[containers]
default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]
[engine]
events_logger = "file"
EOF
export CONTAINERS_CONF=/p/containers.conf PODMAN_IGNORE_CGROUPSV1_WARNING=1
p() { podman --root /p/root --runroot /p/run --tmpdir /p/tmp --storage-driver vfs "$@"; }
tar -C /rootfs -cf /p/rootfs.tar .
p import /p/rootfs.tar localhost/mt-busybox:1 >/dev/null 2>&1
echo "runtime: $(p info --format "{{.Host.OCIRuntime.Name}}") $(crun --version | head -1)"
echo "podman: $(podman --version)"
for lvl in "$@"; do
	rc=0
	out=$(p run --rm --network none --annotation "memfd_noexec=$lvl" \
		--annotation run.oci.hooks.stderr=/p/hook.err \
		localhost/mt-busybox:1 cat /proc/sys/vm/memfd_noexec 2>/p/err) || rc=$?
	echo "asked $lvl: rc=$rc: $out $(cat /p/err)"
done
echo "hook stderr: $(cat /p/hook.err 2>/dev/null || :)"'

setup_file() {
	[ "$(id -u)" -eq 0 ] || return 0
	PROG='suite-podman.bats'
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
		mkdir -p "$root/rootfs/bin" "$root/rootfs/proc" "$root/rootfs/dev" "$root/rootfs/sys" "$root/rootfs/tmp"
		cp "$root/bin/busybox" "$root/rootfs/bin/busybox"
		SUITE_BINDS='' suite_run "$root" 600 env -C /pkgs DEBIAN_FRONTEND=noninteractive DEB="$(basename "$deb")" sh -ec '
			rm -f /var/lib/man-db/auto-update
			apt-get install -y -qq --no-install-recommends podman "./$DEB" >/tmp/apt.log 2>&1 ||
				{ tail -5 /tmp/apt.log; exit 1; }
			for a in $(busybox --list); do
				[ -e "/rootfs/bin/$a" ] || ln -s busybox "/rootfs/bin/$a"
			done
			touch /pkgs/ready' >&3 2>&1 || :
	done
}

teardown_file() {
	[ "$(id -u)" -eq 0 ] || return 0
	PROG='suite-podman.bats'
	. "$REPO_ROOT/contrib/lib.sh"
	suite_remove "$(suite_root trixie)"
	suite_remove "$(suite_root sid)"
}

setup() {
	requires root || return 1
	PROG='suite-podman.bats'
	. "$REPO_ROOT/contrib/lib.sh"
	HOST_LEVEL_BEFORE=$(host_level)
}

teardown() {
	assert_host_level_unchanged "${HOST_LEVEL_BEFORE:-}"
}

# check_podman SUITE: rootful podman of SUITE, the default runtime, the
# packaged hook: 2 and 1 inside, "3" refused by the hook.
check_podman() {
	local root
	root=$(suite_root "$1")
	[ -f "$root/pkgs/ready" ] || missing "the $1 root with podman and the toolkit's package (setup_file)" || return 1
	run suite_run "$root" 300 bash -c "$PODMAN_SCRIPT" podman-levels 2 1 3
	echo "$output"
	assert_success
	assert_line --regexp '^runtime: crun crun version '
	assert_line --regexp '^podman: podman version 5\.'
	assert_line --regexp '^asked 2: rc=0: 2 *$'
	assert_line --regexp '^asked 1: rc=0: 1 *$'
	assert_line --regexp '^asked 3: rc=126: .*error executing hook `/usr/bin/memfd-noexec`'
	assert_line --regexp '^hook stderr: memfd-noexec hook: Refusing annotations\["memfd_noexec"\] = "3"'
}

@test "trixie: rootful podman 5.4 with stock crun 1.21 reads the trixie package's hook by itself: the annotation's level inside, \"3\" refused" {
	check_podman trixie
	assert_line --regexp '^runtime: crun crun version 1\.21$'
}

@test "sid: rootful podman 5.8 with stock crun 1.28 reads the sid package's hook by itself: the annotation's level inside, \"3\" refused" {
	check_podman sid
	assert_line --regexp '^runtime: crun crun version 1\.28$'
}
