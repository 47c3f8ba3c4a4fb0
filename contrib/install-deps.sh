#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Installs, idempotently, what building, the demo and the tests need, all
# from Debian 12's archive.  Runs apt-get only when something is missing.
#   contrib/install-deps.sh [build|demo|deb|crun-build|test]
#       crun-build: what contrib/crun/build.sh needs to rebuild Debian's
#       crun 1.8.1 (autotools, gperf and libsystemd-dev, as its
#       Build-Depends; the source itself comes through deb-src).
#       deb: what building the package needs (debian/,
#       contrib/build-deb.sh): the tools, and the Build-Depends of
#       debian/control (apt-get build-dep).
#   contrib/install-deps.sh deb-src
#       adds, once, deb-src entries for Debian 12 (bookworm) in
#       /etc/apt/sources.list.d/memfd-toolkit-src.sources, so that
#       `apt-get source runc|crun` and `apt-get build-dep` work, and for
#       Debian 13 (trixie) and sid in memfd-toolkit-suites.sources (source
#       entries only, never binary ones).  With those, an unpinned
#       `apt-get source runc` fetches sid's: name the version (runc=V).
set -euo pipefail

PROG=install-deps
# shellcheck source=contrib/lib.sh
. "$(dirname "$0")/lib.sh"

# deb_src: source-package entries mirroring the machine's own deb entries
# (same archives, suites and keys), written and indexed only if missing.
deb_src() {
	local f=/etc/apt/sources.list.d/memfd-toolkit-src.sources src
	# (not grep -q on a pipe: under pipefail apt-cache's SIGPIPE fails it)
	has_src() { [ -n "$(apt-cache showsrc runc 2>/dev/null | sed -n '/^Package: runc$/p')" ]; }
	has_src && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: no deb-src entry for Debian's archive; run as root to add $f" >&2
		exit 1
	fi
	{
		echo "# Written by memfd-toolkit's contrib/install-deps.sh: the source"
		echo "# packages of the archives this machine uses, for apt-get source."
		# deb822 files: each stanza of Types: deb again as deb-src.
		for src in /etc/apt/sources.list.d/*.sources; do
			if [ ! -e "$src" ] || [ "$src" = "$f" ]; then continue; fi
			awk 'BEGIN { RS = ""; ORS = "\n\n" }
				/(^|\n)Types:[^\n]*(^|[ \t])deb([ \t]|\n|$)/ && !/Enabled: *no/ {
					sub(/Types:[^\n]*/, "Types: deb-src"); print }' "$src"
		done
		# one-line lists: each deb line again as deb-src (after the deb822 part).
	} >"$f.tmp"
	sed -n 's/^deb[ \t]/deb-src /p' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
		>"${f%.sources}.list.tmp" || true
	if grep -q '^Types: deb-src' "$f.tmp"; then mv "$f.tmp" "$f"; else rm -f "$f.tmp"; fi
	if [ -s "${f%.sources}.list.tmp" ]; then
		mv "${f%.sources}.list.tmp" "${f%.sources}.list"
	else
		rm -f "${f%.sources}.list.tmp"
	fi
	apt-get update -qq
	has_src || {
		echo "install-deps: added deb-src entries, but apt-cache still has no source package runc" >&2
		exit 1
	}
}

# deb_src_suites: deb-src entries for trixie and sid, on the URI and key of
# the machine's own bookworm entry.  The archive here is a frozen snapshot
# whose Release files have expired, hence Check-Valid-Until: no, for these
# entries only.  Binary entries for newer suites never go on the host:
# their packages would replace bookworm's.
deb_src_suites() {
	local f=/etc/apt/sources.list.d/memfd-toolkit-suites.sources entry uri key
	[ -e "$f" ] && return 0
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: no deb-src entry for trixie and sid; run as root to add $f" >&2
		exit 1
	fi
	entry=$(suite_host_entry)
	uri=${entry%% *} key=${entry#* }
	[ -n "$uri" ] || {
		echo "install-deps: no bookworm deb entry in /etc/apt/sources.list{,.d} to take the URI of trixie's and sid's from" >&2
		exit 1
	}
	{
		echo "# Written by memfd-toolkit's contrib/install-deps.sh: the sources of"
		echo "# Debian 13 (trixie) and sid, for the suite builds of contrib/runc/build-deb.sh."
		echo "Types: deb-src"
		echo "URIs: $uri"
		echo "Suites: trixie sid"
		echo "Components: main"
		[ "$key" = - ] || echo "Signed-By: $key"
		echo "Check-Valid-Until: no"
	} >"$f.tmp"
	mv "$f.tmp" "$f"
	apt-get update -qq
}


build=(gcc make cmake pkg-config libc6-dev libcap-dev libseccomp-dev
	libyajl-dev util-linux scdoc)
# crun: the stock arm of the crun benchmarks (contrib/runc/compare.sh).
demo=("${build[@]}" busybox-static golang-go
	golang-github-opencontainers-runc-dev uidmap jq patch runc python3 crun)
# podman (tests/bats/podman.bats): conmon, and golang-github-containers-
# common, whose container-network-stack is containernetworking-plugins,
# are podman's Depends, named so that --no-install-recommends changes
# nothing; the suite needs none of its Recommends (catatonit, slirp4netns,
# fuse-overlayfs, buildah): no --init, --network none, the vfs driver.
# containerd and docker.io for the daemon suites (docker.io brings its
# own dependencies, e.g. tini and iptables), curl for Docker's Engine API,
# crun for `memfd-noexec check`, python3-yaml to check the manifests,
# xz-utils to unpack overlay.ko for the qemu kernel matrix.  btrfs-progs
# and xfsprogs make the loop filesystems of tests/bench/copy-time.sh
# (reflink), which tests/bats/bench.bats runs.  systemd for
# `systemd-analyze verify` of contrib/systemd (never started).
# The package (contrib/build-deb.sh): the
# tools here (man-db: lintian's and packaging.bats's man page checks), the
# rest from the Build-Depends (build_deps below).
# mmdebstrap makes the trixie and sid build roots of contrib/build-deb.sh
# --suite and contrib/runc/build-deb.sh --suite (contrib/lib.sh).
deb=("${build[@]}" dpkg-dev debhelper fakeroot quilt lintian man-db mmdebstrap)
crun_build=("${build[@]}" dpkg-dev autoconf automake libtool gperf libsystemd-dev python3 patch)
test=("${demo[@]}" "${deb[@]}" "${crun_build[@]}" bats bats-support bats-assert shellcheck cpio xz-utils qemu-system-x86 runc clang-format
	libclang-rt-14-dev clang llvm python3 libfuse3-dev fuse3 podman conmon
	golang-github-containers-common containernetworking-plugins
	containerd docker.io curl crun python3-yaml btrfs-progs xfsprogs systemd)

case "${1:-test}" in
deb-src)
	deb_src
	deb_src_suites
	exit 0
	;;
build) pkgs=("${build[@]}") ;;
demo) pkgs=("${demo[@]}") ;;
deb) pkgs=("${deb[@]}") ;;
crun-build) pkgs=("${crun_build[@]}") ;;
test) pkgs=("${test[@]}") ;;
*)
	echo "install-deps: unknown set '$1'; allowed: build, demo, deb, crun-build, test, deb-src" >&2
	exit 2
	;;
esac

missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing+=("$p")
done

if [ ${#missing[@]} -gt 0 ]; then
	if [ "$(id -u)" -ne 0 ]; then
		echo "install-deps: missing packages: ${missing[*]}; run as root or install them" >&2
		exit 1
	fi
	echo "install-deps: installing ${missing[*]}" >&2
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# build_deps: the Build-Depends of this repository's debian/control,
# installed by apt-get build-dep only when dpkg-checkbuilddeps finds one
# missing.
build_deps() {
	local top
	top=$(cd "$(dirname "$0")/.." && pwd)
	export DEBIAN_FRONTEND=noninteractive
	need_root() {
		[ "$(id -u)" -eq 0 ] && return 0
		echo "install-deps: missing the Build-Depends of $1; run as root or apt-get build-dep $1" >&2
		exit 1
	}
	if ! (cd "$top" && dpkg-checkbuilddeps) >/dev/null 2>&1; then
		need_root "$top"
		echo "install-deps: installing the Build-Depends of $top/debian/control" >&2
		apt-get build-dep -y -qq --no-install-recommends "$top" >/dev/null
		(cd "$top" && dpkg-checkbuilddeps)
	fi
}
case "${1:-test}" in
deb | test) build_deps ;;
esac
exit 0
