# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Shared by tests/bench/start.sh and memory.sh (sourced, not run).
# Benchmarks print numbers; they never pass or fail on them.
#
# The arms, each staged as a copy in one world-readable directory on the
# same filesystem, so that the unprivileged user can run them and no arm
# gets another filesystem or page-cache state:
#   stock    Debian's runc 1.1.5 ($STOCK, default /usr/sbin/runc)
#   ours     runc with the loader, default build (method overlay)
#   memfd    ours built with LOADER_REQUEST=memfd (the copy fallback)
#   noclone  ours built with LOADER_REQUEST=none: never re-executes, the
#            physical limit; unprotected, only ever used here
#   x1, x2.. only with EXTRA_RUNC="/path ...": other runcs to compare, e.g.
#            prototypes (paths without spaces)
# The three builds come from this tree's contrib/runc/build.sh, into
# build/bench/ (BENCH_NO_BUILD=1 reuses what is there).

BENCH_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
STOCK=${STOCK:-/usr/sbin/runc}
TEST_USER=${TEST_USER:-cbtest}
BENCH_ARMS=(stock ours memfd noclone)
# shellcheck disable=SC2206 # split on purpose
BENCH_EXTRA=(${EXTRA_RUNC:-})
for ((i = 1; i <= ${#BENCH_EXTRA[@]}; i++)); do
	BENCH_ARMS+=("x$i")
done

bench_die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

# bench_check_host: what every benchmark needs, or a message saying how
# to get it.  Packages come from contrib/install-deps.sh test.
bench_check_host() {
	local c
	[ "$(id -u)" -eq 0 ] || bench_die "run as root (PID namespaces, a test user)"
	[ -e /proc/sys/vm/memfd_noexec ] ||
		bench_die "no vm.memfd_noexec here (Linux 6.3+ needed)"
	[ -x "$STOCK" ] || bench_die "no stock runc at $STOCK (apt-get install runc)"
	for c in jq busybox python3 unshare setpriv go; do
		command -v "$c" >/dev/null ||
			bench_die "$c is missing (contrib/install-deps.sh test)"
	done
	# Created as tests/bats/helpers.bash's ensure_test_user does.
	id -u "$TEST_USER" >/dev/null 2>&1 ||
		useradd --system --create-home --home-dir "/var/lib/$TEST_USER" \
			--shell /bin/sh "$TEST_USER" ||
		bench_die "cannot create the test user $TEST_USER"
}

# bench_build: the three builds of ours, from this tree, into build/bench/.
bench_build() {
	local arm req
	mkdir -p "$BENCH_TOP/build/bench"
	for arm in ours memfd noclone; do
		case $arm in
		ours) req=auto ;;
		memfd) req=memfd ;;
		noclone) req=none ;;
		esac
		[ "${BENCH_NO_BUILD:-0}" = 1 ] && [ -x "$BENCH_TOP/build/bench/runc-$arm" ] &&
			continue
		LOADER_REQUEST=$req OUT=$BENCH_TOP/build/bench/runc-$arm \
			"$BENCH_TOP/contrib/runc/build.sh" >"$BENCH_TOP/build/bench/build-$arm.log" 2>&1 ||
			bench_die "contrib/runc/build.sh (LOADER_REQUEST=$req) failed; see build/bench/build-$arm.log"
	done
}

# bench_stage: makes $WORK (world-readable) with bin/runc-ARM for every
# arm, a busybox bundle per mode (rootful, rootless) running PROGRAM
# ARGS..., state directories and an XDG_RUNTIME_DIR for the test user.
# Sets WORK; bench_cleanup removes it.
bench_stage() {
	local arm m d
	WORK=$(mktemp -d /tmp/runc-bench.XXXXXX)
	chmod 755 "$WORK"
	mkdir -p "$WORK/bin"
	install -m 0755 "$STOCK" "$WORK/bin/runc-stock"
	for arm in ours memfd noclone; do
		install -m 0755 "$BENCH_TOP/build/bench/runc-$arm" "$WORK/bin/runc-$arm"
	done
	for ((i = 1; i <= ${#BENCH_EXTRA[@]}; i++)); do
		[ -x "${BENCH_EXTRA[i - 1]}" ] ||
			bench_die "EXTRA_RUNC: ${BENCH_EXTRA[i - 1]} is not an executable"
		install -m 0755 "${BENCH_EXTRA[i - 1]}" "$WORK/bin/runc-x$i"
	done
	mkdir -p "$WORK/rootfs/bin" "$WORK/rootfs/proc" "$WORK/rootfs/dev" \
		"$WORK/rootfs/sys" "$WORK/rootfs/tmp"
	cp "$(command -v busybox)" "$WORK/rootfs/bin/busybox"
	for d in true sh sleep; do
		ln -s busybox "$WORK/rootfs/bin/$d"
	done
	(cd "$WORK" && "$STOCK" spec && mv config.json rootful.json)
	d=$WORK/spec-rootless
	mkdir "$d"
	chown "$TEST_USER:" "$d"
	(cd "$d" && setpriv --reuid="$TEST_USER" --regid="$TEST_USER" \
		--init-groups -- "$STOCK" spec --rootless)
	mv "$d/config.json" "$WORK/rootless.json"
	rmdir "$d"
	for m in rootful rootless; do
		mkdir -p "$WORK/bundle-$m"
		jq --arg root "$WORK/rootfs" --argjson args "$(printf '%s\n' "$@" | jq -R . | jq -s .)" \
			'.root.path = $root | .root.readonly = true |
			.process.terminal = false | .process.args = $args' \
			"$WORK/$m.json" >"$WORK/bundle-$m/config.json"
	done
	chmod -R a+rX "$WORK"
	mkdir -m 700 "$WORK/state-rootful" "$WORK/state-rootless" "$WORK/xdg"
	mkdir -m 1777 "$WORK/logs"
	chown "$TEST_USER:" "$WORK/state-rootless" "$WORK/xdg"
}

# bench_runc MODE ARM ARGS...: that arm's runc with MODE's state dir; as
# the test user (no capabilities, its own XDG_RUNTIME_DIR) for rootless.
bench_runc() {
	local mode=$1 arm=$2
	shift 2
	if [ "$mode" = rootless ]; then
		setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups \
			--inh-caps=-all -- env XDG_RUNTIME_DIR="$WORK/xdg" \
			"$WORK/bin/runc-$arm" --root "$WORK/state-rootless" "$@"
	else
		"$WORK/bin/runc-$arm" --root "$WORK/state-rootful" "$@"
	fi
}

# bench_in_pidns CMD...: CMD as root in a new PID namespace with its own
# /proc, at vm.memfd_noexec 0 set there (never in the initial namespace).
bench_in_pidns() {
	"$BENCH_TOP/build/memfd-noexec/memfd-noexec" run --level 0 --proc -- "$@"
}

# bench_method MODE ARM: the loader's marker from one `runc --debug
# create` (then delete -f), read from runc's --log file; "-" for stock,
# which logs none.
bench_method() {
	local log=$WORK/logs/method-$1-$2 out
	# shellcheck disable=SC2016 # expanded by the inner bash
	out=$(bench_in_pidns bash -c "$(declare -f bench_runc)"'
		WORK=$1 TEST_USER=$2 log=$3; shift 3
		bench_runc "$1" "$2" --debug --log "$log" create \
			-b "$WORK/bundle-$1" "method-$2" </dev/null >/dev/null 2>&1 || exit
		bench_runc "$1" "$2" delete -f "method-$2"' \
		_ "$WORK" "$TEST_USER" "$log" "$1" "$2" 2>&1) ||
		bench_die "runc-$2 ($1) cannot create a container: $out $(tail -3 "$log" 2>/dev/null)"
	sed -n 's/.*cloned_binary: using \([a-z-]*\).*/\1/p' "$log" | head -1 |
		grep . || echo -
}

# bench_leftovers MODE: any container still listed by MODE's state dir.
bench_leftovers() {
	bench_runc "$1" stock list -q 2>/dev/null || true
}

bench_cleanup() {
	local m id
	[ -n "${WORK:-}" ] && [ -d "$WORK" ] || return 0
	for m in rootful rootless; do
		for id in $(bench_leftovers "$m"); do
			bench_runc "$m" stock delete -f "$id" >/dev/null 2>&1 || true
		done
	done
	case "$WORK" in
	/tmp/runc-bench.*) rm -rf -- "$WORK" ;;
	esac
}

bench_versions() {
	local arm
	echo "host vm.memfd_noexec: $(cat /proc/sys/vm/memfd_noexec) (never written; each mode runs in a child PID namespace at 0)"
	echo "kernel: $(uname -r), $(nproc) CPUs, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
	for arm in "${BENCH_ARMS[@]}"; do
		printf '  %-8s %s\n' "$arm" \
			"$("$WORK/bin/runc-$arm" --version | sed -n 's/^commit: //p')"
	done
	for ((i = 1; i <= ${#BENCH_EXTRA[@]}; i++)); do
		printf '  x%-7s %s\n' "$i" "${BENCH_EXTRA[i - 1]}"
	done
}
