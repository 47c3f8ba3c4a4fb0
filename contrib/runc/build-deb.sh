#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Rebuilds a Debian release's runc package with the toolkit's loader and
# policy: build/deb/SUITE/runc_VERSION+memfdtoolkit1_ARCH.deb.
#
#   contrib/runc/build-deb.sh [--suite bookworm|trixie|sid] [--version V] [--stock]
#
# --stock builds Debian's runc unchanged, the same way, into
# build/deb/SUITE/stock/: the package ours is compared with where the
# archive's binary was built against older libraries than the suite's
# root has now (sid's runc 1.3.6 against libseccomp 2.5; rebuilt today,
# Debian's Go binding takes libseccomp 2.6's symbols, ours or not).
#
# Each suite has one runc version, and the series made for it:
#
#   suite     runc              series
#   bookworm  1.1.5+ds1-1+deb12u1  contrib/runc/1.1/  (Debian 12; the default)
#   trixie    1.1.15+ds1-2      contrib/runc/1.1/  (Debian 13)
#   sid       1.3.6+ds1-1       contrib/runc/1.3/
#
# --version, when given, must be that version: the series are tested on
# it alone, and any other is refused.
#
# What a Debian packager would do by hand:
#  - `apt-get source runc=VERSION` and its Build-Depends; bookworm's on the
#    host (contrib/install-deps.sh deb-src adds the deb-src entry),
#    trixie's and sid's in a root of that suite (contrib/lib.sh: made with
#    mmdebstrap once, cached in build/roots/), since their runc needs
#    their newer glibc;
#  - the series' patches (contrib/runc/SERIES/patches/) appended to
#    debian/patches/series as a quilt series, after Debian's own
#    (dpkg-source applies them with fuzz 0);
#  - the loader's C sources and the series' Go files copied where
#    debian/rules builds them (runc_series_install in contrib/lib.sh);
#  - the Build-Depends the loader needs (libseccomp-dev, pkgconf: Debian's
#    runc has them already), `runc --version` naming the loader, and a
#    changelog entry whose version (Debian's + "+memfdtoolkit1") sorts
#    above Debian's, so that the package installs over Debian's runc as an
#    upgrade;
#  - dpkg-buildpackage -B (the runc binary package only: the -dev package
#    of the sources would carry our patched tree to Go programs that
#    import runc), without runc's own test suite (nocheck: it needs
#    privileges a package build lacks; tests/bats/packager.bats and the
#    suite roots' tests test the package instead);
#  - lintian on the result: any error fails the build;
#  - the package's Depends compared with Debian's runc of that version
#    (`apt-cache show runc`, on the host or in the suite's root, the
#    binary of that source version, binNMUs included): anything but
#    the same (libc6, libseccomp2, with their versions) fails the build.
# Nothing is written outside build/deb/SUITE/ (and build/roots/); the
# source tree and the suite's build root are removed afterwards (KEEP=1
# keeps them).
set -euo pipefail

PROG=build-deb.sh
# shellcheck source=contrib/lib.sh
. "$(dirname "$0")/../lib.sh"

SUFFIX=+memfdtoolkit1
suite=bookworm want='' stock=0

usage() {
	echo "usage: contrib/runc/build-deb.sh [--suite bookworm|trixie|sid] [--version VERSION]"
}
while [ $# -gt 0 ]; do
	case "$1" in
	--suite)
		[ $# -ge 2 ] || die "--suite needs a value; allowed: ${SUITES// /, }"
		suite=$2
		shift 2
		;;
	--suite=*) suite=${1#*=} && shift ;;
	--version)
		[ $# -ge 2 ] || die "--version needs a value"
		want=$2
		shift 2
		;;
	--version=*) want=${1#*=} && shift ;;
	--stock) stock=1 && shift ;;
	-h | --help) usage && exit 0 ;;
	*) usage >&2 && die "unknown argument '$1'" ;;
	esac
done
suite_check "$suite"
case "$suite" in
bookworm) version=1.1.5+ds1-1+deb12u1 series=1.1 dist=bookworm ;;
trixie) version=1.1.15+ds1-2 series=1.1 dist=trixie ;;
sid) version=1.3.6+ds1-1 series=1.3 dist=unstable ;;
esac
if [ -n "$want" ] && [ "$want" != "$version" ]; then
	die "runc $want for $suite: the series contrib/runc/$series/ was made and tested for Debian's runc $version in $suite alone; allowed: --version $version (or no --version). Suites and versions: bookworm 1.1.5+ds1-1+deb12u1, trixie 1.1.15+ds1-2, sid 1.3.6+ds1-1"
fi
[ -d "$HERE/$series/patches" ] || die "the series for $suite, contrib/runc/$series/, is not there (its patches/ is missing)"

OUTDIR=$TOP/build/deb/$suite
[ "$stock" = 0 ] || OUTDIR=$OUTDIR/stock
LOADER_VERSION=$(sed -n 's/^project(memfd-toolkit VERSION \([^ )]*\).*/\1/p' "$TOP/CMakeLists.txt")
[ -n "$LOADER_VERSION" ] || die "cannot read the version from $TOP/CMakeLists.txt"
arch=$(dpkg-architecture -qDEB_HOST_ARCH)
new=$version$SUFFIX
[ "$stock" = 0 ] || new=$version
[ "$stock" = 1 ] || dpkg --compare-versions "$new" gt "$version" || die "$new does not sort above $version"
# The toolkit's maintainer signs the rebuild (ours, from debian/control).
maintainer=$(sed -n 's/^Maintainer: //p' "$TOP/debian/control")
[ -n "$maintainer" ] || die "no Maintainer: in $TOP/debian/control"
export DEB_BUILD_OPTIONS="nocheck ${DEB_BUILD_OPTIONS:-parallel=2}"

install_deps deb deb-src
mkdir -p "$OUTDIR"
# An earlier build's package goes first: a failed build leaves none to test.
rm -f "$OUTDIR"/runc_* "$OUTDIR"/runc-dbgsym_*
if [ "$suite" = bookworm ]; then
	# On the host.  The Build-Depends of Debian's runc, only when apt's
	# simulation finds one missing (not grep -q on a pipe: under pipefail
	# apt-get's SIGPIPE fails it).
	sim=$(apt-get build-dep -s "runc=$version" 2>&1) ||
		die "apt-get build-dep runc=$version fails: $(tail -3 <<<"$sim")"
	if [ -n "$(sed -n '/^Inst /p' <<<"$sim")" ]; then
		[ "$(id -u)" -eq 0 ] || die "missing the Build-Depends of Debian's runc: run as root, or apt-get build-dep runc=$version"
		echo "build-deb.sh: installing the Build-Depends of Debian's runc" >&2
		DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq --no-install-recommends "runc=$version" >/dev/null
	fi
	ROOT=
	WORK=$OUTDIR/runc-src
	rm -rf "$WORK"
	mkdir -p "$WORK"
	in_root() { (cd "$WORK" && "$@"); }
else
	# In a root of the suite, entered by suite_run (contrib/lib.sh), where
	# the build tree is /src.
	ROOT=$TOP/build/roots/$suite-build
	[ "$stock" = 0 ] || ROOT=$ROOT-stock
	suite_unpack "$suite" "$ROOT"
	WORK=$ROOT/src
	mkdir -p "$WORK"
	in_root() { suite_run "$ROOT" "${BUILD_TIMEOUT:-2400}" env -C /src DEBIAN_FRONTEND=noninteractive "$@"; }
fi
cleanup() {
	[ "${KEEP:-0}" = 1 ] && return 0
	rm -rf "$WORK"
	[ -z "$ROOT" ] || suite_remove "$ROOT"
}
trap cleanup EXIT

# apt-get source as root drops to _apt, which must be able to write here.
chmod 0777 "$WORK"
in_root apt-get source -qq "runc=$version" >"$OUTDIR/source.log" 2>&1 || {
	cat "$OUTDIR/source.log" >&2
	die "apt-get source runc=$version failed"
}
rm -f "$OUTDIR/source.log"
chmod 0755 "$WORK"
src=$(find "$WORK" -mindepth 1 -maxdepth 1 -type d -name 'runc-*' | head -n1)
if [ -z "$src" ] || [ ! -f "$src/debian/rules" ]; then
	die "apt-get source runc=$version made no source tree in $WORK"
fi
got=$(dpkg-parsechangelog -l "$src/debian/changelog" -S Version)
[ "$got" = "$version" ] || die "apt-get source runc=$version gave $got"

if [ "$stock" = 0 ]; then
# The quilt series: Debian's, then ours.
for p in "$HERE/$series"/patches/*.patch; do
	cp "$p" "$src/debian/patches/memfd-toolkit-$(basename "$p")"
	echo "memfd-toolkit-$(basename "$p")" >>"$src/debian/patches/series"
done
# The sources our patches call, where debian/rules builds them.
runc_series_install "$series" "$src"

# What the loader needs to build (only what Debian's list lacks: a
# package named twice is an error to lintian; runc's has both), and the
# loader in --version.
add=
for p in libseccomp-dev pkgconf; do
	grep -Eq "^[[:space:]]*(Build-Depends:)?[[:space:]]*$p([[:space:],(]|$)" "$src/debian/control" || add="$add $p,"
done
[ -z "$add" ] || sed -i "0,/^Build-Depends:/s/^Build-Depends:/Build-Depends:$add/" "$src/debian/control"
grep -q 'libseccomp-dev' "$src/debian/control" ||
	die "cannot add the loader's Build-Depends to Debian's debian/control"
loader="loader: sealed W^X (memfd-toolkit $LOADER_VERSION)"
# -X main.gitCommit=$(DEB_VERSION) gains the loader, in every form of
# debian/rules seen (1.1.5, 1.1.15, 1.3.6).
sed -i "s|-X main.gitCommit=\$(DEB_VERSION)\$|-X 'main.gitCommit=\$(DEB_VERSION), $loader'|" "$src/debian/rules"
grep -qF "$loader" "$src/debian/rules" || die "cannot name the loader in Debian's debian/rules (no -X main.gitCommit=\$(DEB_VERSION) at the end of a line)"

{
	echo "runc ($new) $dist; urgency=medium"
	echo
	echo "  * Rebuilt with memfd-toolkit $LOADER_VERSION (the runc $series series):"
	echo "    runc re-executes itself from a detached read-only overlay (or a"
	echo "    sealed W^X memfd), and the memfd_noexec annotation sets"
	echo "    vm.memfd_noexec in the container's PID namespace."
	echo
	echo " -- $maintainer  $(date -R)"
	echo
	cat "$src/debian/changelog"
} >"$src/debian/changelog.new"
mv "$src/debian/changelog.new" "$src/debian/changelog"

fi

tree=${src#"$WORK"/}
if [ -n "$ROOT" ]; then
	# Debian's Build-Depends are in the root already; ours come now.
	in_root apt-get build-dep -y -qq --no-install-recommends "./$tree" >"$OUTDIR/deps.log" 2>&1 || {
		tail -20 "$OUTDIR/deps.log" >&2
		die "apt-get build-dep ./$tree failed in the $suite root (log: $OUTDIR/deps.log)"
	}
fi
echo "build-deb.sh: building runc $new ($suite, series $series)" >&2
in_root env -C "$tree" DEB_BUILD_OPTIONS="$DEB_BUILD_OPTIONS" dpkg-buildpackage -us -uc -B \
	>"$OUTDIR/build.log" 2>&1 || {
	tail -40 "$OUTDIR/build.log" >&2
	die "dpkg-buildpackage failed (log: $OUTDIR/build.log)"
}
changes=runc_${new#*:}_$arch.changes
deb=runc_${new#*:}_$arch.deb
[ -f "$WORK/$changes" ] || die "dpkg-buildpackage made no $changes"
[ -f "$WORK/$deb" ] || die "dpkg-buildpackage made no $deb"
# lintian of the suite (in its root): no error.
in_root lintian --allow-root --fail-on error "$deb" >"$OUTDIR/lintian.log" 2>&1 || {
	cat "$OUTDIR/lintian.log" >&2
	die "lintian finds errors in $deb (log: $OUTDIR/lintian.log)"
}
# Exactly the Depends of Debian's own runc of this version: the loader
# adds no library (nsexec/ links libseccomp alone, which runc links).
# Debian's package rebuilt here without the series (--stock), where it
# was; else the archive's binary of that source version (binNMUs too:
# trixie's is 1.1.15+ds1-2+b4).
ours=$(dpkg-deb -f "$WORK/$deb" Depends)
stock_deb=
[ ! -d "$TOP/build/deb/$suite/stock" ] ||
	stock_deb=$(find "$TOP/build/deb/$suite/stock" -maxdepth 1 -name "runc_${version#*:}_$arch.deb" | head -n1)
if [ "$stock" = 1 ]; then
	stock_from='' dep_stock=$ours
elif [ -n "$stock_deb" ]; then
	stock_from="Debian's runc $version rebuilt here without the series"
	dep_stock=$(dpkg-deb -f "$stock_deb" Depends)
else
	stock_from="Debian's runc $version"
	dep_stock=$(in_root apt-cache show runc 2>/dev/null | awk -v v="$version" '
		/^Version: / { ver = $2 }
		/^Depends: / { dep = substr($0, 10) }
		/^$/ { if (ver == v || index(ver, v "+b") == 1) { print dep; exit } ver = dep = "" }
		END { if (ver == v || index(ver, v "+b") == 1) print dep }' | head -n1)
fi
[ -n "$dep_stock" ] || die "cannot read the Depends of Debian's runc $version (apt-cache show runc, $suite)"
[ "$ours" = "$dep_stock" ] || die "$deb depends on '$ours', but $stock_from on '$dep_stock': the loader must add no dependency"
[ "$stock" = 1 ] || echo "build-deb.sh: Depends: $ours ($stock_from: the same)"
made=$(sed -n '/^Files:/,/^[^ ]/s/^ [0-9a-f]\{32\} [0-9]* [^ ]* [^ ]* //p' "$WORK/$changes")
for f in $changes $made; do
	mv -f "$WORK/$f" "$OUTDIR/"
done
echo "build-deb.sh: built $OUTDIR/$deb"
