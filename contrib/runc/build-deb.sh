#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Rebuilds Debian's runc package with the toolkit's loader and policy:
# build/deb/runc_VERSION+memfdtoolkitN_ARCH.deb.
#
#   contrib/runc/build-deb.sh
#
# What a Debian packager would do by hand, in build/deb/runc-src/:
#  - `apt-get source runc` (a deb-src entry for bookworm is added once, by
#    contrib/install-deps.sh deb-src), and its Build-Depends;
#  - our patches (contrib/runc/1.1/patches/) appended to debian/patches/series
#    as a quilt series, after Debian's own;
#  - the loader's C sources and our Go files copied where debian/rules
#    builds them (libcontainer/nsenter/ and the tree), runc's own
#    cloned_binary.c removed, as contrib/runc/README.md's recipe does;
#  - the Build-Depends the loader adds (libyajl-dev, libcap-dev, pkgconf),
#    `runc --version` naming the loader, and a changelog entry whose
#    version (Debian's + "+memfdtoolkit1") sorts above Debian's, so that
#    the package installs over Debian's runc as an upgrade;
#  - dpkg-buildpackage -B (the runc binary package only), without runc's
#    own test suite (nocheck: it needs privileges a package build lacks;
#    tests/bats/packaging.bats tests the package instead).
# Nothing is written outside build/deb/; the source tree is removed
# afterwards (KEEP=1 keeps it).
set -euo pipefail

die() {
	echo "build-deb.sh: $*" >&2
	exit 1
}

HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
OUTDIR=$TOP/build/deb
WORK=$OUTDIR/runc-src
SUFFIX=+memfdtoolkit1

"$TOP/contrib/install-deps.sh" deb || die "cannot install what the package build needs"
"$TOP/contrib/install-deps.sh" deb-src || die "cannot add a deb-src entry for Debian's runc"

# The Build-Depends of Debian's runc, only when apt's simulation finds one
# missing (not grep -q on a pipe: under pipefail apt-get's SIGPIPE fails it).
if [ -n "$(apt-get build-dep -s runc 2>/dev/null | sed -n '/^Inst /p')" ]; then
	[ "$(id -u)" -eq 0 ] || die "missing the Build-Depends of Debian's runc: run as root, or apt-get build-dep runc"
	echo "build-deb.sh: installing the Build-Depends of Debian's runc" >&2
	DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq --no-install-recommends runc >/dev/null
fi

LOADER_VERSION=$(sed -n 's/^project(memfd-toolkit VERSION \([^ )]*\).*/\1/p' "$TOP/CMakeLists.txt")
[ -n "$LOADER_VERSION" ] || die "cannot read the version from $TOP/CMakeLists.txt"

rm -rf "$WORK"
mkdir -p "$WORK"
# apt-get source as root drops to _apt, which must be able to write here.
chmod 0777 "$WORK"
(cd "$WORK" && apt-get source -qq runc) >"$WORK/source.log" 2>&1 || {
	cat "$WORK/source.log" >&2
	die "apt-get source runc failed"
}
chmod 0755 "$WORK"
src=$(find "$WORK" -mindepth 1 -maxdepth 1 -type d -name 'runc-*' | head -n1)
if [ -z "$src" ] || [ ! -f "$src/debian/rules" ]; then
	die "apt-get source runc made no source tree in $WORK"
fi
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
case "$version" in
1.1.*) ;;
*) die "Debian's runc is $version; the patches are for runc 1.1.x" ;;
esac

# The quilt series: Debian's, then ours.
for p in "$HERE"/1.1/patches/*.patch; do
	cp "$p" "$src/debian/patches/memfd-toolkit-$(basename "$p")"
	echo "memfd-toolkit-$(basename "$p")" >>"$src/debian/patches/series"
done

# The sources our patches call, where debian/rules builds them.
rm "$src/libcontainer/nsenter/cloned_binary.c"
for f in "$TOP"/{cloned_binary,common,nsexec,policy}/*.[ch] "$HERE"/runc_loader_shim.c "$HERE"/runc_memfd_toolkit.h; do
	[ ! -e "$src/libcontainer/nsenter/$(basename "$f")" ] ||
		die "Debian's runc already has libcontainer/nsenter/$(basename "$f")"
	cp "$f" "$src/libcontainer/nsenter/"
done
cp -r "$HERE"/1.1/go/. "$src"/

# What the loader adds to the build, and the loader in --version.
sed -i 's/^Build-Depends: debhelper-compat (= 13),$/&\n               libcap-dev,\n               libseccomp-dev,\n               libyajl-dev,\n               pkgconf,/' \
	"$src/debian/control"
grep -q '^               libyajl-dev,$' "$src/debian/control" ||
	die "cannot add the loader's Build-Depends to Debian's debian/control"
loader="loader: sealed W^X (memfd-toolkit $LOADER_VERSION)"
sed -i "s|^LDFLAGS := -X main.version=\$(DEB_VERSION_UPSTREAM) -X main.gitCommit=\$(DEB_VERSION)\$|LDFLAGS := -X main.version=\$(DEB_VERSION_UPSTREAM) -X 'main.gitCommit=\$(DEB_VERSION), $loader'|" \
	"$src/debian/rules"
grep -qF "$loader" "$src/debian/rules" || die "cannot name the loader in Debian's debian/rules LDFLAGS"

new=$version$SUFFIX
# The toolkit's maintainer signs the rebuild (ours, from debian/control).
maintainer=$(sed -n 's/^Maintainer: //p' "$TOP/debian/control")
[ -n "$maintainer" ] || die "no Maintainer: in $TOP/debian/control"
dpkg --compare-versions "$new" gt "$version" || die "$new does not sort above $version"
{
	echo "runc ($new) bookworm; urgency=medium"
	echo
	echo "  * Rebuilt with memfd-toolkit $LOADER_VERSION: runc re-executes itself"
	echo "    from a detached read-only overlay (or a sealed W^X memfd), and the"
	echo "    memfd_noexec annotation sets vm.memfd_noexec in the container's"
	echo "    PID namespace."
	echo
	echo " -- $maintainer  $(date -R)"
	echo
	cat "$src/debian/changelog"
} >"$src/debian/changelog.new"
mv "$src/debian/changelog.new" "$src/debian/changelog"

arch=$(dpkg-architecture -qDEB_HOST_ARCH)
export DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-parallel=2}"
(cd "$src" && dpkg-buildpackage -us -uc -B) >"$WORK/build.log" 2>&1 || {
	tail -40 "$WORK/build.log" >&2
	die "dpkg-buildpackage failed (log: $WORK/build.log)"
}
changes=$WORK/runc_${new#*:}_$arch.changes
[ -f "$changes" ] || die "dpkg-buildpackage made no $(basename "$changes")"
files=$(sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]\{32\} [0-9]* [^ ]* [^ ]* //p' "$changes")
for f in $(basename "$changes") $files; do
	mv -f "$WORK/$f" "$OUTDIR/"
done
deb=$OUTDIR/runc_${new#*:}_$arch.deb
[ -f "$deb" ] || die "dpkg-buildpackage made no $(basename "$deb")"
[ "${KEEP:-0}" = 1 ] || rm -rf "$WORK"
echo "build-deb.sh: built $deb"
