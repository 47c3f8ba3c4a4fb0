#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Runs bats suites of this repository inside a root of a Debian suite
# (trixie, sid), against that suite's runc as contrib/runc/build-deb.sh
# --suite SUITE built it: the runtime people run there, on its own glibc.
#
#   tests/roots/run.sh SUITE BATS-ARGS [--and BATS-ARGS]...   (as root)
#   e.g. tests/roots/run.sh trixie tests/bats/runc-memfd-noexec.bats \
#            --and --filter 'runc --version' tests/bats/runc.bats
#
# Each BATS-ARGS is one `bats --tap` run, in the same root, one after the
# other; their TAP goes to stdout.
#
# The root (contrib/lib.sh: the suite's mmdebstrap tar, cached in
# build/roots/, unpacked fresh into build/roots/SUITE-test.PID/, a name
# of this run's own: build/roots may be a cache that other runs share) gets:
#  - build/deb/SUITE/runc_*+memfdtoolkit1_*.deb, installed with apt from
#    the file, as a user installs it; /usr/sbin/runc is then ours (RUNC);
#  - the suite's stock runc of the same Debian version, unpacked into
#    /opt/stock-runc (STOCK_RUNC), for the suites' stock and hook cases;
#  - bats, bats-support, bats-assert, busybox-static, uidmap, jq and the
#    compiler from the suite itself (in the tar), and what one suite's
#    root alone holds (contrib/lib.sh suite_include: trixie's own crun
#    1.21 and strace, for crun.bats);
#  - the rootless test user (TEST_USER, cbtest), created there;
#  - this repository, bound read-only at its own path, with BUILD_DIR:
#    the test helpers (memfd-noexec, fakekernel, ...) are the host's
#    build.  A bookworm binary runs on the newer glibc of trixie and sid,
#    the helpers are test equipment, not what is tested, and CI has built
#    them already; building them again in each root would cost minutes.
#    setup_file still compiles the container's static probe in the root.
# The whole run is bounded (ROOT_TIMEOUT seconds, default 1800: the root's
# PID namespace is killed and the run fails) and leaves nothing mounted:
# every mount lives in the root's own mount namespace.  The root is
# removed afterwards (KEEP=1 keeps it).  The host's vm.memfd_noexec must
# read the same after the run.  With CI=true, a missing package or tool
# is a failed run, not a skipped one.
set -euo pipefail

PROG=roots/run.sh
# shellcheck source=contrib/lib.sh
. "$(dirname "$0")/../../contrib/lib.sh"

[ $# -ge 2 ] || die "usage: tests/roots/run.sh SUITE BATS-ARGS [--and BATS-ARGS]..."
suite=$1
shift
suite_check "$suite"
[ "$suite" != bookworm ] || die "bookworm is the host: run bats there"
[ "$(id -u)" -eq 0 ] || die "run as root (it mounts, and the suites need root)"
BUILD_DIR=${BUILD_DIR:-$TOP/build}
BUILD_DIR=$(realpath "$BUILD_DIR")

# Anything missing fails under CI=true, as a TAP failure that run-all counts.
missing() {
	if [ "${CI:-}" = true ]; then
		echo "1..1"
		echo "not ok 1 - $suite root: $*"
		exit 1
	fi
	echo "1..0 # skip $suite root: $*"
	exit 0
}

mapfile -t debs < <(find "$TOP/build/deb/$suite" -maxdepth 1 -name "runc_*+memfdtoolkit1_*.deb" 2>/dev/null)
[ "${#debs[@]}" -eq 1 ] ||
	missing "want one runc .deb in build/deb/$suite/, found ${#debs[@]} (contrib/runc/build-deb.sh --suite $suite)"
deb=${debs[0]}
version=$(dpkg-deb -f "$deb" Version)
stock_version=${version%+memfdtoolkit1}
[ -x "$BUILD_DIR/memfd-noexec/memfd-noexec" ] ||
	missing "the host's build in $BUILD_DIR (cmake -S . -B build && cmake --build build)"

ROOT=$TOP/build/roots/$suite-test.$$
cleanup() {
	[ "${KEEP:-0}" = 1 ] || suite_remove "$ROOT"
}
trap cleanup EXIT
suite_unpack "$suite" "$ROOT" >&2
mkdir -p "$ROOT/var/cache/memfd-toolkit"
cp "$deb" "$ROOT/var/cache/memfd-toolkit/"
chmod 0777 "$ROOT/var/cache/memfd-toolkit" # apt-get download drops to _apt

level_before=$(cat /proc/sys/vm/memfd_noexec 2>/dev/null || echo absent)
binds=$TOP
[ "$BUILD_DIR" = "$TOP/build" ] || binds="$binds $BUILD_DIR"
rc=0
SUITE_BINDS=$binds suite_run "$ROOT" "${ROOT_TIMEOUT:-1800}" \
	env -C /var/cache/memfd-toolkit DEBIAN_FRONTEND=noninteractive \
	CI="${CI:-}" BUILD_DIR="$BUILD_DIR" TEST_USER="${TEST_USER:-cbtest}" \
	BATS_TEST_TIMEOUT="${BATS_TEST_TIMEOUT:-900}" \
	DEB="$(basename "$deb")" STOCK_VERSION="$stock_version" TOP="$TOP" SUITE="$suite" \
	bash -c '
	set -eu
	fail() { echo "1..1"; echo "not ok 1 - in the root: $*"; exit 1; }
	# The stock runc: the suite'"'"'s binary package (a binNMU may add +bN to
	# the source version our package carries).
	mkdir -m 0777 stock
	(cd stock && apt-get download -qq "runc/$SUITE") >apt.log 2>&1 ||
		fail "apt-get download runc/$SUITE (the stock runc) failed: $(tail -3 apt.log | tr "\n" " ")"
	stock=$(echo stock/runc_*.deb)
	case "$(dpkg-deb -f "$stock" Version)" in
	"$STOCK_VERSION" | "$STOCK_VERSION"+b[0-9]*) ;;
	*) fail "the stock runc of $SUITE is $(dpkg-deb -f "$stock" Version), not Debian'"'"'s $STOCK_VERSION that our package rebuilds" ;;
	esac
	dpkg-deb -x "$stock" /opt/stock-runc
	rm -f /var/lib/man-db/auto-update # (man-db'"'"'s trigger takes a minute)
	apt-get install -y -qq --no-install-recommends "./$DEB" >>apt.log 2>&1 ||
		fail "apt-get install ./$DEB failed: $(tail -5 apt.log | tr "\n" " ")"
	id -u "$TEST_USER" >/dev/null 2>&1 ||
		useradd --system --create-home --home-dir "/var/lib/$TEST_USER" --shell /bin/sh "$TEST_USER"
	/usr/sbin/runc --version >&2
	cd "$TOP"
	export RUNC=/usr/sbin/runc STOCK_RUNC=/opt/stock-runc/usr/sbin/runc
	rc=0 args=()
	for a in "$@" --and; do
		if [ "$a" != --and ]; then
			args+=("$a")
			continue
		fi
		bats --tap "${args[@]}" || rc=1
		args=()
	done
	exit "$rc"' run-in-root "$@" || rc=$?
level_after=$(cat /proc/sys/vm/memfd_noexec 2>/dev/null || echo absent)
if [ "$level_after" != "$level_before" ]; then
	echo "not ok - $suite root: the host's vm.memfd_noexec changed during the run: $level_before -> $level_after"
	rc=1
fi
[ "$rc" -ne 137 ] || echo "not ok - $suite root: killed after ${ROOT_TIMEOUT:-1800} s"
exit "$rc"
