#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Rebuilds Debian 12's crun package with the toolkit's loader and policy:
# build/deb/bookworm/crun_VERSION+memfdtoolkit1_ARCH.deb.
#
#   contrib/crun/build-deb.sh
#
# What a Debian packager would do by hand, in build/deb/bookworm/crun-src/:
#  - `apt-get source crun` (1.8.1; a deb-src entry for bookworm is added
#    once, by contrib/install-deps.sh deb-src), and its Build-Depends;
#  - our series (contrib/crun/1.8.1/patches/) appended to
#    debian/patches/series as quilt patches, after Debian's own;
#  - crun's src/libcrun/cloned_binary.c removed, and the shim
#    (crun_loader_shim.c, crun_memfd_toolkit.h) and the toolkit's headers
#    put where contrib/crun/build.sh puts them; the toolkit's library
#    sources in memfd-toolkit/, which debian/rules builds with CMake
#    (static, position-independent) before crun, and hands to crun's
#    make as MEMFD_TOOLKIT_LIBS, as build.sh does;
#  - the Build-Depends that adds (cmake), and a changelog entry whose
#    version (Debian's + "+memfdtoolkit1") sorts above Debian's, so the
#    package installs over Debian's crun as an upgrade;
#  - dpkg-buildpackage -B (the crun binary package), nocheck (crun's own
#    tests need privileges a package build lacks; tests/bats/crun-deb.bats
#    tests the package instead).
# Nothing is written outside build/deb/bookworm/; the source tree is
# removed afterwards (KEEP=1 keeps it).
set -euo pipefail

PROG=build-deb.sh
# shellcheck source=contrib/lib.sh
. "$(dirname "$0")/../lib.sh"
SUITE=bookworm
WANT=1.8.1
OUTDIR=$TOP/build/deb/$SUITE
WORK=$OUTDIR/crun-src
SUFFIX=+memfdtoolkit1

install_deps deb deb-src

# Debian 12's crun source, named exactly: with deb-src entries for newer
# suites too (trixie, sid), a bare "crun" is the newest of them (sid's,
# whose Build-Depends bookworm cannot install).
src_version=$(apt-cache showsrc crun 2>/dev/null | sed -n "s/^Version: \($WANT-.*\)/\1/p" | sort -V | tail -1)
[ -n "$src_version" ] || die "apt-cache showsrc crun lists no crun $WANT (is bookworm's deb-src entry there?)"

# The Build-Depends of Debian's crun and ours, only when apt's simulation
# finds one missing (not grep -q on a pipe: under pipefail apt-get's
# SIGPIPE fails it).  A simulation that fails is an error, not "nothing
# missing".
sim=$(apt-get build-dep -s "crun=$src_version" 2>&1) ||
	die "apt-get build-dep -s crun=$src_version failed: $(tail -3 <<<"$sim" | tr '\n' ' ')"
if [ -n "$(sed -n '/^Inst /p' <<<"$sim")" ] || ! command -v cmake >/dev/null; then
	[ "$(id -u)" -eq 0 ] || die "missing the Build-Depends of Debian's crun or cmake: run as root, or apt-get build-dep crun=$src_version"
	echo "build-deb.sh: installing the Build-Depends of Debian's crun $src_version" >&2
	DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq --no-install-recommends "crun=$src_version" >/dev/null
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends cmake >/dev/null
fi

LOADER_VERSION=$(sed -n 's/^project(memfd-toolkit VERSION \([^ )]*\).*/\1/p' "$TOP/CMakeLists.txt")
[ -n "$LOADER_VERSION" ] || die "cannot read the version from $TOP/CMakeLists.txt"

rm -rf "$WORK"
mkdir -p "$WORK"
# apt-get source as root drops to _apt, which must be able to write here.
chmod 0777 "$WORK"
(cd "$WORK" && apt-get source -qq "crun=$src_version") \
	>"$WORK/source.log" 2>&1 || {
	cat "$WORK/source.log" >&2
	die "apt-get source crun ($WANT) failed"
}
chmod 0755 "$WORK"
src=$(find "$WORK" -mindepth 1 -maxdepth 1 -type d -name 'crun-*' | head -n1)
if [ -z "$src" ] || [ ! -f "$src/debian/rules" ]; then
	die "apt-get source crun made no source tree in $WORK"
fi
version=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
case "$version" in
"$WANT"-*) ;;
*) die "Debian's crun is $version; the series contrib/crun/$WANT/patches is for crun $WANT" ;;
esac

# The quilt series: Debian's, then ours.
for p in "$HERE/$WANT"/patches/*.patch; do
	cp "$p" "$src/debian/patches/memfd-toolkit-$(basename "$p")"
	echo "memfd-toolkit-$(basename "$p")" >>"$src/debian/patches/series"
done

# The shim and the headers where build.sh puts them.
lib=$src/src/libcrun
rm "$lib/cloned_binary.c"
for f in "$HERE/crun_loader_shim.c" "$HERE/crun_memfd_toolkit.h"; do
	[ ! -e "$lib/$(basename "$f")" ] || die "Debian's crun already has src/libcrun/$(basename "$f")"
	cp "$f" "$lib/"
done
[ ! -e "$lib/memfd-toolkit" ] || die "Debian's crun already has src/libcrun/memfd-toolkit"
mkdir "$lib/memfd-toolkit"
cp "$TOP"/{cloned_binary,common,nsexec}/*.h "$lib/memfd-toolkit/"
printf '/* Written by contrib/crun/build-deb.sh. */\n#define CRUN_MEMFD_TOOLKIT_VERSION "%s"\n' \
	"$LOADER_VERSION" >"$lib/memfd-toolkit/version.h"

# The toolkit's libraries, as sources that debian/rules builds: the folders
# the libraries are made of, and a CMakeLists.txt of their own (the
# project's top one also builds the programs, man pages and units).
[ ! -e "$src/memfd-toolkit" ] || die "Debian's crun already has memfd-toolkit/"
mkdir "$src/memfd-toolkit"
cp -r "$TOP"/{cloned_binary,common,nsexec} "$src/memfd-toolkit/"
{
	echo "# Written by contrib/crun/build-deb.sh: memfd-toolkit's libraries alone."
	sed -n '1,/^add_subdirectory(common)$/p' "$TOP/CMakeLists.txt" | sed '$d'
	echo 'add_subdirectory(common)'
	echo 'add_subdirectory(cloned_binary)'
	echo 'add_subdirectory(nsexec)'
} >"$src/memfd-toolkit/CMakeLists.txt"
tk_libs='$(CURDIR)/memfd-toolkit/build/cloned_binary/libcloned_binary.a $(CURDIR)/memfd-toolkit/build/nsexec/libnsexec.a $(CURDIR)/memfd-toolkit/build/common/libmtcommon.a'
cat >>"$src/debian/rules" <<EOF

# memfd-toolkit (contrib/crun/build-deb.sh): its libraries first, then crun
# linked against them.
execute_before_dh_auto_configure:
	cmake -S memfd-toolkit -B memfd-toolkit/build -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo
	cmake --build memfd-toolkit/build --target cloned_binary nsexec mtcommon

# Only the libraries of Debian's Build-Depends: crun's configure also
# links libgcrypt whenever its -dev package happens to be installed (it is
# no Build-Depends of Debian's crun), which added libgcrypt20 to Depends.
override_dh_auto_configure:
	dh_auto_configure -- ac_cv_search_gcry_check_version=no

override_dh_auto_build:
	dh_auto_build -- MEMFD_TOOLKIT_LIBS="$tk_libs"

execute_after_dh_auto_clean:
	rm -rf memfd-toolkit/build
EOF
sed -i 's/^ automake,$/&\n cmake,/' "$src/debian/control"
grep -q '^ cmake,$' "$src/debian/control" || die "cannot add cmake to Debian's Build-Depends"

new=$version$SUFFIX
# The toolkit's maintainer signs the rebuild (ours, from debian/control).
maintainer=$(sed -n 's/^Maintainer: //p' "$TOP/debian/control")
[ -n "$maintainer" ] || die "no Maintainer: in $TOP/debian/control"
dpkg --compare-versions "$new" gt "$version" || die "$new does not sort above $version"
{
	echo "crun ($new) $SUITE; urgency=medium"
	echo
	echo "  * Rebuilt with memfd-toolkit $LOADER_VERSION: crun re-executes itself"
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
	grep -n -m 20 -E 'error:|Error [0-9]+|undefined reference' "$WORK/build.log" >&2 || true
	tail -40 "$WORK/build.log" >&2
	die "dpkg-buildpackage failed (log: $WORK/build.log)"
}
changes=$WORK/crun_${new#*:}_$arch.changes
[ -f "$changes" ] || die "dpkg-buildpackage made no $(basename "$changes")"
made=$(sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]\{32\} [0-9]* [^ ]* [^ ]* //p' "$changes")
for f in $(basename "$changes") $made; do
	mv -f "$WORK/$f" "$OUTDIR/"
done
deb=$OUTDIR/crun_${new#*:}_$arch.deb
[ -f "$deb" ] || die "dpkg-buildpackage made no $(basename "$deb")"
[ "${KEEP:-0}" = 1 ] || rm -rf "$WORK"
echo "build-deb.sh: built $deb"
