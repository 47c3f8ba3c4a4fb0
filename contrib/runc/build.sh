#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Builds runc with memfd-toolkit's sealed W^X loader in place of runc's own
# libcontainer/nsenter/cloned_binary.c.  Output: build/runc (repo root).
#
#   RUNC_SRC   runc 1.1.x or 1.3.x source tree to build (its VERSION file
#              picks the series, contrib/runc/1.1/ or 1.3/; default:
#              Debian's, /usr/share/gocode/src/github.com/opencontainers/runc)
#   MEMFD_TOOLKIT_NO_DEPS=1  installs nothing (inside a suite's root, where
#              the Build-Depends of that suite's runc are installed)
#   OUT        output binary (default: <repo>/build/runc)
#   LOADER_REQUEST  auto (default), overlay, memfd, tmpfile or none: the
#              loader method compiled into runc_loader_shim.c, for the
#              benchmarks in tests/bench/.  Anything but auto names itself
#              in `runc --version`.  `none` builds a NO-CLONE runc: runc
#              init runs from the host's binary, open to CVE-2019-5736.  It
#              is the physical limit the benchmarks measure against, and
#              must never be installed or shipped.
#
# Steps: copy RUNC_SRC into a private GOPATH under build/runc-src/ (wiped
# every run), delete runc's cloned_binary.c there, copy the library
# folders cloned_binary/, common/ and nsexec/ whole, with
# contrib/runc/runc_loader_shim.c, into libcontainer/nsenter/, copy our new
# Go files (contrib/runc/SERIES/go/) to their places, apply
# contrib/runc/SERIES/patches/*.patch in order (any patch that does not apply
# exactly is fatal), then go build in GOPATH mode against Debian's
# packaged Go dependencies.
set -euo pipefail

PROG=build.sh
# shellcheck source=contrib/lib.sh
. "$(dirname "$0")/../lib.sh"
# Go needs a build cache; CI may run with neither HOME nor XDG_CACHE_HOME.
if [ -z "${GOCACHE:-}" ] && [ -z "${HOME:-}" ] && [ -z "${XDG_CACHE_HOME:-}" ]; then
	export GOCACHE="$TOP/build/go-cache"
fi
RUNC_SRC=${RUNC_SRC:-/usr/share/gocode/src/github.com/opencontainers/runc}
OUT=${OUT:-$TOP/build/runc}
LOADER_REQUEST=${LOADER_REQUEST:-auto}
# The shim's -D define for LOADER_REQUEST, and what --version says of it.
case "$LOADER_REQUEST" in
auto) loader_def='' loader_name="sealed W^X" ;;
overlay | memfd | tmpfile)
	loader_def="-DRUNC_LOADER_REQUEST=CLONED_BINARY_REQUEST_${LOADER_REQUEST^^}"
	loader_name="sealed W^X, forced $LOADER_REQUEST"
	;;
none)
	loader_def="-DRUNC_LOADER_NO_CLONE=1"
	loader_name="NONE, no clone: benchmark build, unprotected, never install"
	;;
*) die "LOADER_REQUEST=$LOADER_REQUEST: allowed values are auto, overlay, memfd, tmpfile and none (default auto)" ;;
esac
GOPRIV=$TOP/build/runc-src
DEST=$GOPRIV/src/github.com/opencontainers/runc

# Debian's runc source and the Go packages it imports, for GOPATH mode (an
# upstream tree's vendor/ directory takes precedence over them).
[ "${MEMFD_TOOLKIT_NO_DEPS:-0}" = 1 ] || install_deps demo

if [ ! -f "$RUNC_SRC/main.go" ] || [ ! -f "$RUNC_SRC/libcontainer/nsenter/nsexec.c" ]; then
	die "RUNC_SRC=$RUNC_SRC does not look like a runc source tree"
fi
# The series: 1.1 where runc init clones itself (nsexec.c calls
# ensure_cloned_binary()), 1.3 where the parent does (exeseal).
if grep -q 'ensure_cloned_binary()' "$RUNC_SRC/libcontainer/nsenter/nsexec.c"; then
	SERIES=1.1
elif grep -q '^1\.3\.' "$RUNC_SRC/VERSION" 2>/dev/null &&
	grep -q 'exeseal.CloneSelfExe(c.stateDir)' "$RUNC_SRC/libcontainer/container_linux.go"; then
	SERIES=1.3
else
	die "RUNC_SRC=$RUNC_SRC: neither runc 1.1.x (nsexec.c calls ensure_cloned_binary()) nor runc 1.3.x (VERSION, exeseal.CloneSelfExe); the series in $HERE are made for those"
fi

# The toolkit's version, for `runc --version`.
LOADER_VERSION=$(sed -n 's/^project(memfd-toolkit VERSION \([^ )]*\).*/\1/p' "$TOP/CMakeLists.txt")
[ -n "$LOADER_VERSION" ] || die "cannot read the version from $TOP/CMakeLists.txt"
if desc=$(git -C "$TOP" describe --always --dirty 2>/dev/null); then
	LOADER_VERSION="$LOADER_VERSION ($desc)"
fi
# runc's own version: its VERSION file (upstream tarballs); for Debian's
# tree, what Debian's runc package prints (version without the Debian
# revision, and the full package version as the "commit").
RUNC_COMMIT=
if [ -f "$RUNC_SRC/VERSION" ]; then
	RUNC_VERSION=$(cat "$RUNC_SRC/VERSION")
	RUNC_COMMIT=$(git -C "$RUNC_SRC" rev-parse --short HEAD 2>/dev/null || true)
elif [ "$RUNC_SRC" = /usr/share/gocode/src/github.com/opencontainers/runc ]; then
	RUNC_COMMIT=$(dpkg-query -W -f '${Version}' golang-github-opencontainers-runc-dev)
	RUNC_VERSION=${RUNC_COMMIT%-*}
else
	RUNC_VERSION=unknown
fi

echo "build.sh: runc $RUNC_VERSION from $RUNC_SRC, loader memfd-toolkit $LOADER_VERSION ($loader_name)"

rm -rf "$GOPRIV"
mkdir -p "$(dirname "$DEST")"
cp -a "$RUNC_SRC" "$DEST"
# Drop any stale binary that came with the copy.
rm -f "$DEST/runc"

# Replace runc's loader.  Nothing else in runc uses the symbols it defined
# (ensure_cloned_binary, memfd_create) or its _LIBCONTAINER_CLONED_BINARY
# variable; runc_loader_shim.c provides ensure_cloned_binary().  cgo
# compiles every .c file of the package, so the library folders go flat
# into libcontainer/nsenter/, whole: the loader (cloned_binary/), common/
# and nsexec/ (the runtime interface: the vm.memfd_noexec rules, the
# MFD_HUGETLB seccomp rule and the service client; runc parses its own
# config.json, so policy/ and its yajl and libcap stay out), and our new Go files go to
# their places in runc's tree (contrib/runc/SERIES/go/): the patches only
# call them.  The programs live in folders of their own and are never
# copied.  runc_series_install (contrib/lib.sh) never overwrites a file of
# runc's, nor one of ours with another of the same name.
runc_series_install "$SERIES" "$DEST"
if [ "$SERIES" = 1.1 ] && grep -rq '_LIBCONTAINER_CLONED_BINARY\|runc_cloned:' \
	--include='*.go' --include='*.c' --include='*.h' "$DEST/libcontainer" "$DEST"/*.go; then
	die "something in $RUNC_SRC still refers to runc's old cloned_binary.c"
fi

for p in "$HERE/$SERIES"/patches/*.patch; do
	[ -e "$p" ] || die "no patches in $HERE/$SERIES/patches"
	echo "build.sh: applying $(basename "$p")"
	patch -d "$DEST" -p1 --forward --fuzz=0 --no-backup-if-mismatch -s <"$p" ||
		die "$(basename "$p") does not apply to $RUNC_SRC"
done
# patch(1) leaves .rej/.orig files behind on partial failure; never build one.
# (Not find | grep -q: under pipefail, find's SIGPIPE after grep's first
# match would make the test false.)
left=$(find "$DEST" \( -name '*.rej' -o -name '*.orig' \) -print)
[ -z "$left" ] || die "leftover .rej/.orig files in $DEST: $left"

mkdir -p "$(dirname "$OUT")"
cd "$DEST"
# Flags as in Debian's runc 1.1.5 package (go version -m /usr/sbin/runc),
# so that compare.sh compares loaders, not builds.
# runc --version names the loader in its "commit:" line, which needs no
# patch.  -trimpath: the binary does not embed build/runc-src paths.  -s -w: no
# symbol table or DWARF, like Debian's stripped /usr/sbin/runc; where runc
# init must copy itself, it copies the whole binary, and every start maps
# it (RUNC_KEEP_SYMBOLS=1 keeps them, for debugging).
strip="-s -w"
[ "${RUNC_KEEP_SYMBOLS:-0}" = 1 ] && strip=
# LOADER_REQUEST's define goes after go's own default C flags (-O2 -g).
cflags=$(go env CGO_CFLAGS)
GO111MODULE=off GOPATH="$GOPRIV:/usr/share/gocode" GOFLAGS='' \
	CGO_ENABLED=1 CGO_CFLAGS="$cflags${loader_def:+ }$loader_def" \
	go build -trimpath -tags "seccomp urfave_cli_no_docs" \
	-ldflags "$strip -X main.version=$RUNC_VERSION -X 'main.gitCommit=$RUNC_COMMIT${RUNC_COMMIT:+, }loader: $loader_name (memfd-toolkit $LOADER_VERSION)'" \
	-o "$OUT.tmp" .
mv -f "$OUT.tmp" "$OUT"
version=$("$OUT" --version)
grep -qF "loader: $loader_name (memfd-toolkit " <<<"$version" ||
	die "$OUT --version does not name the loader ($loader_name): $version"
echo "build.sh: built $OUT"
