#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Rebuilds crun with memfd-toolkit's sealed W^X loader in place of crun's
# src/libcrun/cloned_binary.c, and memfd-toolkit's vm.memfd_noexec policy
# applied in the container's PID namespace.
#
#   contrib/crun/build.sh [VERSION]
#
#   1.8.1 (default)  Debian 12's crun (apt-get source, bookworm) into
#                    build/crun, with contrib/crun/1.8.1/patches/
#   1.21             Debian 13's crun: trixie's crun_1.21.orig.tar.gz
#                    (its debian.tar.xz is missing from the archive here,
#                    and the build needs none of it) into build/crun-1.21/crun,
#                    with contrib/crun/1.21/patches/
#
# (1.21 goes into a folder, not build/crun-1.21: crun takes a basename
# "crun-X" as the name of its handler X, and would look for "1.21".)
#
#   OUT        output binary (default: as above)
#   CRUN_SRC   an unpacked crun source tree of VERSION to use instead of
#              Debian's (it is copied, never changed)
#
# Steps: fetch the source into build/crun[-VERSION]-dl/ (kept, so a rebuild
# downloads nothing); unpack it into build/crun[-VERSION]-src/ (wiped every
# run); build the toolkit's libraries that a runtime embeds (cloned_binary,
# nsexec, mtcommon: no JSON parser, no libcap) with CMake into
# build/crun-toolkit/; delete crun's
# cloned_binary.c, put contrib/crun/crun_loader_shim.c and
# crun_memfd_toolkit.h (one shim for every version) in src/libcrun/ and the
# libraries' headers in src/libcrun/memfd-toolkit/; apply the version's
# patches in order (any patch that does not apply exactly is fatal);
# autoreconf (patch 0001 changes Makefile.am), configure with Debian's
# build flags and make crun.
set -euo pipefail

PROG=build.sh
# shellcheck source=contrib/lib.sh
. "$(dirname "$0")/../lib.sh"
WANT=${1:-1.8.1}
[ $# -le 1 ] || die "too many arguments ($*); usage: build.sh [1.8.1|1.21]"
case $WANT in
1.8.1)
	OUT=${OUT:-$TOP/build/crun}
	DL=$TOP/build/crun-dl
	DEST=$TOP/build/crun-src
	;;
1.21)
	OUT=${OUT:-$TOP/build/crun-1.21/crun}
	DL=$TOP/build/crun-1.21-dl
	DEST=$TOP/build/crun-1.21-src
	;;
*)
	die "no patch series for crun '$WANT'; allowed: 1.8.1 (Debian 12, the default) or 1.21 (Debian 13). Each version has its own series in contrib/crun/VERSION/patches/, written against that source: a series applied to another version's source would fail or, worse, apply in the wrong places"
	;;
esac
PATCHES=$HERE/$WANT/patches
TK=$TOP/build/crun-toolkit

# fetch_trixie_orig NAME: downloads NAME, a file of trixie's source package
# crun 1.21-1, into $DL through apt's own transport, checked against the
# SHA256 that trixie's Sources index gives (apt verified the index against
# trixie's signed InRelease).  The deb-src entry for trixie is the one
# contrib/install-deps.sh deb-src adds for every suite build.  apt-get
# source itself fails: the package's debian.tar.xz is missing (404).
fetch_trixie_orig() {
	local name=$1 line uri sum
	[ -f "$DL/$name" ] && [ -f "$DL/$name.sha256" ] &&
		(cd "$DL" && sha256sum --quiet -c "$name.sha256" 2>/dev/null) && return 0
	"$TOP/contrib/install-deps.sh" deb-src || die "cannot add the deb-src entries for trixie"
	mkdir -p "$DL"
	line=$(cd "$DL" && apt-get source --print-uris -qq crun=1.21-1 2>"$DL/apt.log" |
		awk -v f="$name" '$2 == f') ||
		die "apt-get source --print-uris crun=1.21-1 failed: $(tail -3 "$DL/apt.log")"
	uri=$(awk '{ gsub(/\047/, "", $1); print $1 }' <<<"$line")
	sum=$(awk '$4 ~ /^SHA256:/ { sub(/^SHA256:/, "", $4); print $4 }' <<<"$line")
	[[ "$uri" == http*://*/"$name" && "$sum" =~ ^[0-9a-f]{64}$ ]] ||
		die "trixie's Sources index has no $name with a SHA256 for crun 1.21-1 (apt said: ${line:-nothing})"
	/usr/lib/apt/apt-helper download-file "$uri" "$DL/$name.part" "SHA256:$sum" >>"$DL/apt.log" 2>&1 ||
		die "cannot download $uri (SHA256 $sum): $(tail -3 "$DL/apt.log")"
	(cd "$DL" && sha256sum --quiet -c /dev/stdin <<<"$sum  $name.part") ||
		die "$DL/$name.part does not match trixie's SHA256 $sum"
	mv -f "$DL/$name.part" "$DL/$name"
	echo "$sum  $name" >"$DL/$name.sha256"
}

install_deps crun-build

if [ -n "${CRUN_SRC:-}" ]; then
	[ -f "$CRUN_SRC/src/libcrun/cloned_binary.c" ] && [ -f "$CRUN_SRC/configure.ac" ] ||
		die "CRUN_SRC=$CRUN_SRC does not look like a crun source tree"
	rm -rf "$DEST"
	cp -a "$CRUN_SRC" "$DEST"
	CRUN_DESC="$CRUN_SRC"
elif [ "$WANT" = 1.21 ]; then
	orig=crun_1.21.orig.tar.gz
	fetch_trixie_orig "$orig"
	rm -rf "$DEST" "$DEST.tmp"
	mkdir "$DEST.tmp"
	tar -xzf "$DL/$orig" -C "$DEST.tmp" || die "cannot unpack $DL/$orig"
	[ -d "$DEST.tmp/crun-1.21" ] || die "$DL/$orig has no crun-1.21/ folder"
	mv "$DEST.tmp/crun-1.21" "$DEST"
	rmdir "$DEST.tmp"
	CRUN_DESC="Debian 13's $orig"
else
	"$TOP/contrib/install-deps.sh" deb-src || die "cannot add the deb-src entry apt-get source needs"
	mkdir -p "$DL"
	# The newest 1.8.1 Debian has, named exactly: with deb-src entries for
	# newer suites too (trixie, sid), a bare "crun" would be theirs.
	v=$(apt-cache showsrc crun 2>/dev/null | sed -n "s/^Version: \($WANT-.*\)/\1/p" | sort -V | tail -1)
	[ -n "$v" ] || die "apt-cache showsrc crun lists no crun $WANT (is bookworm's deb-src entry there?)"
	# apt-get source reuses the files already in $DL when they check out.
	(cd "$DL" && apt-get source --download-only -qq "crun=$v") >/dev/null 2>"$DL/apt.log" ||
		die "apt-get source crun=$v failed: $(tail -3 "$DL/apt.log")"
	dsc=$(find "$DL" -maxdepth 1 -name "crun_${WANT}-*.dsc" | sort -V | tail -1)
	[ -n "$dsc" ] || die "Debian's crun source in $DL is not crun $WANT: $(cd "$DL" && ls ./*.dsc 2>/dev/null); the patches are for $WANT"
	rm -rf "$DEST"
	dpkg-source --no-check -x "$dsc" "$DEST" >/dev/null || die "cannot unpack $dsc"
	CRUN_DESC="Debian $(basename "$dsc" .dsc | sed 's/^crun_//')"
fi
# (crun's configure.ac reads its version from .tarball-version.)
[ "$(cat "$DEST/.tarball-version" 2>/dev/null)" = "$WANT" ] ||
	die "$CRUN_DESC is not crun $WANT (.tarball-version); the patches are for $WANT"

# The toolkit's version, for `crun --version`.
LOADER_VERSION=$(sed -n 's/^project(memfd-toolkit VERSION \([^ )]*\).*/\1/p' "$TOP/CMakeLists.txt")
[ -n "$LOADER_VERSION" ] || die "cannot read the version from $TOP/CMakeLists.txt"
if desc=$(git -C "$TOP" describe --always --dirty 2>/dev/null); then
	LOADER_VERSION="$LOADER_VERSION ($desc)"
fi
echo "build.sh: crun $WANT from $CRUN_DESC, loader memfd-toolkit $LOADER_VERSION"

# The libraries, built on their own (no tests, no programs), position-
# independent as the project always builds them.
cmake -S "$TOP" -B "$TK" -DBUILD_TESTING=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null ||
	die "cmake could not configure $TK"
cmake --build "$TK" -j"$(nproc)" --target cloned_binary nsexec mtcommon >/dev/null ||
	die "cmake could not build the libraries in $TK"
libs=
for l in cloned_binary/libcloned_binary.a nsexec/libnsexec.a common/libmtcommon.a; do
	[ -f "$TK/$l" ] || die "no $TK/$l after the build"
	libs="$libs $TK/$l"
done

# Replace crun's loader (crun_loader_shim.c defines ensure_cloned_binary()).
# Our headers go into a folder of their own, so that no name of ours meets
# one of crun's; they include each other by bare name, which resolves in
# their own folder.  Never overwrite a file of crun's.
LIBCRUN=$DEST/src/libcrun
rm -f "$LIBCRUN/cloned_binary.c"
for f in "$HERE/crun_loader_shim.c" "$HERE/crun_memfd_toolkit.h"; do
	[ ! -e "$LIBCRUN/$(basename "$f")" ] || die "$CRUN_DESC already has src/libcrun/$(basename "$f")"
	cp "$f" "$LIBCRUN/"
done
[ ! -e "$LIBCRUN/memfd-toolkit" ] || die "$CRUN_DESC already has src/libcrun/memfd-toolkit"
mkdir "$LIBCRUN/memfd-toolkit"
cp "$TOP"/{cloned_binary,common,nsexec}/*.h "$LIBCRUN/memfd-toolkit/"
# printf %q is not C; the version holds no quote or backslash (checked).
case "$LOADER_VERSION" in *[\"\\]*) die "the version '$LOADER_VERSION' has a quote or a backslash" ;; esac
printf '/* Written by contrib/crun/build.sh. */\n#define CRUN_MEMFD_TOOLKIT_VERSION "%s"\n' \
	"$LOADER_VERSION" >"$LIBCRUN/memfd-toolkit/version.h"

for p in "$PATCHES"/*.patch; do
	[ -e "$p" ] || die "no patches in $PATCHES"
	echo "build.sh: applying $(basename "$p")"
	patch -d "$DEST" -p1 --forward --fuzz=0 --no-backup-if-mismatch -s <"$p" ||
		die "$(basename "$p") does not apply to $CRUN_DESC"
done
left=$(find "$DEST" \( -name '*.rej' -o -name '*.orig' \) -print)
[ -z "$left" ] || die "leftover .rej/.orig files in $DEST: $left"
if grep -q 'src/libcrun/cloned_binary\.c' "$DEST/Makefile.am"; then
	die "Makefile.am still builds crun's cloned_binary.c"
fi

cd "$DEST"
log=$TOP/build/crun-$WANT-build.log
# Debian's own flags (hardening=+all, as debian/rules asks), so that the
# benchmarks compare loaders, not builds; and, as Debian's build, no
# libgcrypt (configure links it whenever libgcrypt20-dev is installed,
# which Debian's crun does not Build-Depend on).
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
CFLAGS=$(dpkg-buildflags --get CFLAGS)
CPPFLAGS=$(dpkg-buildflags --get CPPFLAGS)
LDFLAGS=$(dpkg-buildflags --get LDFLAGS)
export CFLAGS CPPFLAGS LDFLAGS
# No step runs beside another that writes what it reads.  libocispec is
# built first, to the end: it regenerates the ocispec headers that crun's
# own sources include, and `make crun` alone (unlike `make all`, which
# goes through SUBDIRS first) would compile those sources while the
# headers are being replaced.  Its four generator runs (the stamps) write
# into one directory, so they run one at a time.
stamps=(src/runtime_spec_stamp src/image_spec_stamp src/image_manifest_stamp src/basic-test_stamp)
{
	autoreconf -fi &&
		./configure --prefix=/usr --disable-shared --enable-static ac_cv_search_gcry_check_version=no &&
		make -j"$(nproc)" .version git-version.h &&
		make -j1 -C libocispec "${stamps[@]}" &&
		make -j"$(nproc)" -C libocispec libocispec.la &&
		make -j"$(nproc)" MEMFD_TOOLKIT_LIBS="$libs" crun
} >"$log" 2>&1 || {
	# A parallel make's first error can be far above its last lines, and
	# the next build overwrites $log: the errors first, then the end.
	grep -n -m 20 -E 'error:|Error:|Error [0-9]+|Traceback|No such file|undefined reference' "$log" >&2 || true
	echo "build.sh: ... the end of $log:" >&2
	tail -30 "$log" >&2
	die "the crun build failed (log: $log)"
}

mkdir -p "$(dirname "$OUT")"
cp "$DEST/crun" "$OUT.tmp"
mv -f "$OUT.tmp" "$OUT"
version=$("$OUT" --version) || die "$OUT --version failed: $version"
grep -qF "loader: sealed W^X (memfd-toolkit $LOADER_VERSION)" <<<"$version" ||
	die "$OUT --version does not name the loader: $version"
echo "build.sh: built $OUT"
