#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Builds memfd-toolkit's Debian package from this repository's debian/,
# then runs lintian on it (fatal on an error).
#
#   contrib/build-deb.sh [--suite bookworm|trixie|sid]
#
# Without --suite, for the host: build/deb/memfd-toolkit_VERSION_ARCH.deb
# (with its .buildinfo and .changes).  With --suite SUITE, for that Debian
# release, into build/deb/SUITE/, lintian's output in
# build/deb/SUITE/lintian.log:
#  - bookworm on the host, which must be Debian 12;
#  - trixie and sid in a root of the suite (contrib/lib.sh: the mmdebstrap
#    tar cached in build/roots/, unpacked into build/roots/SUITE-toolkit/
#    and removed afterwards), with that suite's debhelper, compiler,
#    libraries and lintian: apt-get build-dep ./ installs what the suite's
#    root lacks of debian/control's Build-Depends (cmake, scdoc,
#    systemd-dev) at each build, so the roots' recipe stays as it is.
# debian/rules puts the systemd units where the suite's systemd.pc says:
# /lib/systemd/system on Debian 12, /usr/lib/systemd/system after.
#
# dpkg-buildpackage writes its results into the parent of the tree it
# builds, so it builds a copy: the tracked files of the working tree (what
# a clean clone of this commit plus the edits would hold), in
# build/deb/stage/memfd-toolkit-VERSION/ (in a root: its /src), removed
# afterwards (KEEP=1 keeps it, and the root).  Nothing is written outside
# build/deb/ and build/roots/.  DEB_BUILD_OPTIONS passes through (e.g.
# parallel=2).
set -euo pipefail

PROG=build-deb.sh
# shellcheck source=contrib/lib.sh
. "$(dirname "$0")/lib.sh"

usage() {
	echo "usage: contrib/build-deb.sh [--suite bookworm|trixie|sid]"
}
suite=
while [ $# -gt 0 ]; do
	case "$1" in
	--suite)
		[ $# -ge 2 ] || { usage >&2 && die "--suite needs a value; allowed: ${SUITES// /, }"; }
		suite=$2
		shift 2
		;;
	--suite=*) suite=${1#*=} && shift ;;
	-h | --help) usage && exit 0 ;;
	*) usage >&2 && die "unknown argument '$1'; allowed: --suite ${SUITES// /|}, --help" ;;
	esac
done
[ -z "$suite" ] || suite_check "$suite"

OUTDIR=$TOP/build/deb
[ -z "$suite" ] || OUTDIR=$OUTDIR/$suite
STAGE=$TOP/build/deb/stage${suite:+-$suite}

if [ "$suite" = bookworm ]; then
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ "$codename" = bookworm ] ||
		die "--suite bookworm builds on the host, which is '${codename:-unknown}', not Debian 12 (bookworm); the roots are for trixie and sid"
fi

install_deps deb

git -C "$TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	die "$TOP is not a git checkout: the package is built from its tracked files"

# The version: CMakeLists.txt's, which debian/changelog must repeat
# (debian/rules checks it again against the configured project).
version=$(sed -n 's/^project(memfd-toolkit VERSION \([^ )]*\).*/\1/p' "$TOP/CMakeLists.txt")
[ -n "$version" ] || die "cannot read the version from $TOP/CMakeLists.txt"
deb_version=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)
[ "$deb_version" = "$version" ] || [ "${deb_version%-*}" = "$version" ] ||
	die "CMakeLists.txt says version $version, debian/changelog $deb_version: add a debian/changelog entry for $version"
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
changes=memfd-toolkit_${version}_$arch.changes
deb=memfd-toolkit_${version}_$arch.deb

ROOT=
if [ "$suite" = trixie ] || [ "$suite" = sid ]; then
	# In a root of the suite, entered by suite_run (contrib/lib.sh), where
	# the stage is /src.
	[ "$(id -u)" -eq 0 ] || die "building for $suite needs root (its root is entered with mounts)"
	ROOT=$TOP/build/roots/$suite-toolkit
	suite_unpack "$suite" "$ROOT"
	STAGE=$ROOT/src
	in_stage() { suite_run "$ROOT" "${BUILD_TIMEOUT:-1200}" env -C /src DEBIAN_FRONTEND=noninteractive "$@"; }
else
	in_stage() { (cd "$STAGE" && "$@"); }
fi
cleanup() {
	[ "${KEEP:-0}" = 1 ] && return 0
	if [ -n "$ROOT" ]; then
		suite_remove "$ROOT"
	else
		rm -rf "$STAGE"
	fi
}
trap cleanup EXIT

rm -rf "$STAGE"
src=$STAGE/memfd-toolkit-$version
mkdir -p "$src" "$OUTDIR"
# An earlier build's package goes first: a failed build leaves none to test.
rm -f "$OUTDIR"/memfd-toolkit_* "$OUTDIR"/memfd-toolkit-dbgsym_* "$OUTDIR/lintian.log"
# Tracked files as they are in the working tree; a deleted one is skipped.
(cd "$TOP" && git ls-files -z | while IFS= read -r -d '' f; do
	[ -e "$f" ] || [ -L "$f" ] || continue
	printf '%s\0' "$f"
done | tar --null -T - -cf -) | tar -C "$src" -xf -

tree=memfd-toolkit-$version
if [ -n "$ROOT" ]; then
	# The suite's Build-Depends of debian/control that its root lacks.
	in_stage apt-get build-dep -y -qq --no-install-recommends "./$tree" >"$STAGE/deps.log" 2>&1 || {
		tail -20 "$STAGE/deps.log" >&2
		die "apt-get build-dep ./$tree failed in the $suite root"
	}
	echo "build-deb.sh: building memfd-toolkit $version in the $suite root" >&2
fi
in_stage env -C "$tree" DEB_BUILD_OPTIONS="${DEB_BUILD_OPTIONS:-}" \
	dpkg-buildpackage -us -uc -b >"$STAGE/build.log" 2>&1 || {
	tail -40 "$STAGE/build.log" >&2
	die "dpkg-buildpackage failed${suite:+ for $suite} (log: $STAGE/build.log, kept with KEEP=1)"
}
[ -f "$STAGE/$changes" ] || die "dpkg-buildpackage made no $changes"
[ -f "$STAGE/$deb" ] || die "dpkg-buildpackage made no $deb"

# lintian (the suite's own, in its root): no error; its whole output in
# lintian.log (tests/bats/packaging.bats also allows no warning).
rc=0
in_stage lintian --allow-root --fail-on error --info "$changes" >"$STAGE/lintian.log" 2>&1 || rc=$?
cat "$STAGE/lintian.log"

# The .changes and every file it lists (the .deb, its -dbgsym, the
# .buildinfo) go to build/deb/[SUITE/], replacing an earlier build's.
made=$(sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]\{32\} [0-9]* [^ ]* [^ ]* //p' "$STAGE/$changes")
[ -n "$made" ] || die "no Files: in $STAGE/$changes"
for f in $changes $made; do
	mv -f "$STAGE/$f" "$OUTDIR/"
done
[ -z "$suite" ] || mv -f "$STAGE/lintian.log" "$OUTDIR/lintian.log"
[ "$rc" -eq 0 ] || die "lintian${suite:+ of $suite} found errors in $OUTDIR/$changes"
echo "build-deb.sh: built $OUTDIR/$deb"
