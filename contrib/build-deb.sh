#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Builds memfd-toolkit's Debian package from this repository's debian/:
# build/deb/memfd-toolkit_VERSION_ARCH.deb (with its .buildinfo and
# .changes), then runs lintian on it (fatal on an error).
#
# dpkg-buildpackage writes its results into the parent of the tree it
# builds, so it builds a copy: the tracked files of the working tree (what
# a clean clone of this commit plus the edits would hold), in
# build/deb/stage/memfd-toolkit-VERSION/, removed afterwards (KEEP=1 keeps
# it).  Nothing is written outside build/deb/.  DEB_BUILD_OPTIONS passes
# through (e.g. parallel=2).
set -euo pipefail

die() {
	echo "build-deb.sh: $*" >&2
	exit 1
}

TOP=$(cd "$(dirname "$0")/.." && pwd)
OUTDIR=$TOP/build/deb
STAGE=$OUTDIR/stage

"$TOP/contrib/install-deps.sh" deb || die "cannot install what the package build needs"

git -C "$TOP" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
	die "$TOP is not a git checkout: the package is built from its tracked files"

# The version: CMakeLists.txt's, which debian/changelog must repeat
# (debian/rules checks it again against the configured project).
version=$(sed -n 's/^project(memfd-toolkit VERSION \([^ )]*\).*/\1/p' "$TOP/CMakeLists.txt")
[ -n "$version" ] || die "cannot read the version from $TOP/CMakeLists.txt"
deb_version=$(dpkg-parsechangelog -l "$TOP/debian/changelog" -S Version)
[ "$deb_version" = "$version" ] || [ "${deb_version%-*}" = "$version" ] ||
	die "CMakeLists.txt says version $version, debian/changelog $deb_version: add a debian/changelog entry for $version"

rm -rf "$STAGE"
src=$STAGE/memfd-toolkit-$version
mkdir -p "$src"
# Tracked files as they are in the working tree; a deleted one is skipped.
(cd "$TOP" && git ls-files -z | while IFS= read -r -d '' f; do
	[ -e "$f" ] || [ -L "$f" ] || continue
	printf '%s\0' "$f"
done | tar --null -T - -cf -) | tar -C "$src" -xf -

arch=$(dpkg-architecture -qDEB_HOST_ARCH)
changes=memfd-toolkit_${version}_$arch.changes
(cd "$src" && dpkg-buildpackage -us -uc -b) >"$STAGE/build.log" 2>&1 || {
	tail -40 "$STAGE/build.log" >&2
	die "dpkg-buildpackage failed (log: $STAGE/build.log)"
}
[ -f "$STAGE/$changes" ] || die "dpkg-buildpackage made no $changes"
# The .changes and every file it lists (the .deb, its -dbgsym, the
# .buildinfo) go to build/deb/, replacing an earlier build's.
files=$(sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]\{32\} [0-9]* [^ ]* [^ ]* //p' "$STAGE/$changes")
[ -n "$files" ] || die "no Files: in $STAGE/$changes"
for f in $changes $files; do
	mv -f "$STAGE/$f" "$OUTDIR/"
done
deb=$OUTDIR/memfd-toolkit_${version}_$arch.deb
[ -f "$deb" ] || die "dpkg-buildpackage made no $(basename "$deb")"
if [ "${KEEP:-0}" != 1 ]; then
	rm -rf "$STAGE"
fi
echo "build-deb.sh: built $deb"

# lintian: no error (tests/bats/packaging.bats also allows no warning).
lintian --fail-on error --info "$OUTDIR/$changes" || die "lintian found errors in $OUTDIR/$changes"
