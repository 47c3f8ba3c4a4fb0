# SPDX-License-Identifier: Apache-2.0
# Shared helpers for the bats suites.  Load with `load helpers`.
#
# Binaries come from BUILD_DIR (default: <repo>/build).  `requires` guards
# skip a test whose requirement is missing, except when CI=true: then the
# test fails, so that CI never passes by skipping (bubblewrap's
# BWRAP_MUST_WORK).

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BUILD_DIR="${BUILD_DIR:-$REPO_ROOT/build}"
BUILD_DIR="$(cd "$BUILD_DIR" 2>/dev/null && pwd || echo "$BUILD_DIR")"
SEALEXEC="$BUILD_DIR/sealexec/sealexec"
SELFCHECK="$BUILD_DIR/tests/helpers/selfcheck"
ATTACK="$BUILD_DIR/tests/helpers/cbtest-attack"
ENSURE_HELPER="$BUILD_DIR/tests/helpers/ensure-helper"
FAKEKERNEL="$BUILD_DIR/tests/fakekernel/fakekernel"
# Debian's bats-support and bats-assert (assert_success, assert_output,
# refute_output, assert_line, fail, ...): contrib/install-deps.sh test.
BATS_LIB_DIR="${BATS_LIB_DIR:-/usr/lib/bats}"
load "$BATS_LIB_DIR/bats-support/load"
load "$BATS_LIB_DIR/bats-assert/load"
# The unprivileged user the rootless tests run as (created on demand).
TEST_USER="${TEST_USER:-cbtest}"

# missing REQUIREMENT: skip, or fail when CI=true.
missing() {
	if [ "${CI:-}" = true ]; then
		echo "requirement missing in CI: $*" >&2
		return 1
	fi
	skip "requires $*"
}

# requires root|userns|seccomp|memfd_noexec|fakekernel|user|runc|cmd:NAME ...
# (cmd:NAME: a program the README's install command provides; tests never
# install packages themselves.)
requires() {
	local r
	for r in "$@"; do
		case "$r" in
		root)
			[ "$(id -u)" -eq 0 ] || missing root || return 1 ;;
		userns)
			unshare --user true 2>/dev/null || missing "unprivileged user namespaces" || return 1 ;;
		seccomp)
			grep -q '^Seccomp:' /proc/self/status || missing seccomp || return 1 ;;
		memfd_noexec)
			[ -e /proc/sys/vm/memfd_noexec ] || missing "vm.memfd_noexec (Linux 6.3+)" || return 1 ;;
		fakekernel)
			[ -x "$FAKEKERNEL" ] || missing "fakekernel at $FAKEKERNEL" || return 1 ;;
		user)
			ensure_test_user || missing "an unprivileged user $TEST_USER" || return 1 ;;
		runc)
			[ -x "$RUNC" ] || missing "runc at $RUNC (contrib/runc/build.sh)" || return 1 ;;
		cmd:*)
			command -v "${r#cmd:}" >/dev/null ||
				missing "${r#cmd:} (contrib/install-deps.sh test)" || return 1 ;;
		*)
			echo "requires: unknown requirement '$r'" >&2
			return 1 ;;
		esac
	done
}

# Creates the unprivileged test user once; idempotent.
ensure_test_user() {
	id -u "$TEST_USER" >/dev/null 2>&1 && return 0
	[ "$(id -u)" -eq 0 ] || return 1
	useradd --system --create-home --home-dir "/var/lib/$TEST_USER" \
		--shell /bin/sh "$TEST_USER" >/dev/null 2>&1 || id -u "$TEST_USER" >/dev/null 2>&1
}

# stage_user_binaries: copies the test binaries into a fresh world-readable
# directory, since the build tree may sit below a directory the test user
# cannot traverse (a CI clone under /root).  Sets U_SEALEXEC, U_SELFCHECK,
# U_ATTACK, U_FAKEKERNEL, U_MEMFD_NOEXEC and USER_BIN; unstage_user_binaries removes it.
stage_user_binaries() {
	USER_BIN="$(mktemp -d /tmp/cbtest-bin.XXXXXX)"
	chmod 0755 "$USER_BIN"
	local b
	for b in "$SEALEXEC" "$SELFCHECK" "$ATTACK" "$FAKEKERNEL" "$ENSURE_HELPER" \
		"$BUILD_DIR/memfd-noexec/memfd-noexec" "$BUILD_DIR/tests/helpers/memfdprobe"; do
		[ -e "$b" ] && install -m 0755 "$b" "$USER_BIN/"
	done
	U_SEALEXEC="$USER_BIN/sealexec"
	U_SELFCHECK="$USER_BIN/selfcheck"
	U_ATTACK="$USER_BIN/cbtest-attack"
	U_FAKEKERNEL="$USER_BIN/fakekernel"
	U_MEMFD_NOEXEC="$USER_BIN/memfd-noexec"
	export USER_BIN U_SEALEXEC U_SELFCHECK U_ATTACK U_FAKEKERNEL U_MEMFD_NOEXEC
}

unstage_user_binaries() {
	case "${USER_BIN:-}" in
	/tmp/cbtest-bin.*) rm -rf -- "$USER_BIN" ;;
	esac
}

# as_user CMD...: run CMD as the unprivileged test user (from root).
as_user() {
	setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups \
		--inh-caps=-all -- "$@"
}

# kill_after S CMD...: CMD, killed with SIGKILL after S seconds (status
# 137).  For a CMD that starts a child PID namespace, this bounds the
# whole namespace only if CMD is unshare --fork --kill-child and the
# namespace's init stays a root process that does not exec into setpriv
# or a setuid binary: unshare's --kill-child is a parent-death signal,
# which the kernel clears when the process changes its uid or gid.  The
# init then runs the real command as a child ("$@"; exit "$?", since sh
# may exec its last command).  Without a bound, a hung command's
# processes keep `run`'s output pipe open and bats waits for good:
# BATS_TEST_TIMEOUT signals only the test's own children, and unshare
# blocks SIGTERM and SIGINT.
kill_after() {
	local s="$1"
	shift
	timeout --foreground --signal=KILL "$s" "$@"
}

# at_level [--proc] [--timeout S] N CMD...: run CMD as root in a new child
# PID namespace whose vm.memfd_noexec was set to N there (never in the
# initial namespace).  --proc also gives it a mount namespace with its own
# /proc, which runc needs to find its children; without it /proc stays the
# host's.  N "host": CMD runs as it is, in the current namespaces.
#
# With --proc the namespace lives AT_LEVEL_TIMEOUT seconds at most (300;
# --timeout S sets another bound, and also applies without --proc), then
# it is killed and CMD fails with 137 (see kill_after): a hung runtime
# fails its test instead of holding CI.  Bounded, the namespace's init is
# at_level's root sh and CMD its child.  Unbounded (no --proc, no
# --timeout: for callers that start the namespace in the background and
# walk its process tree from $!), CMD is the init.
at_level() {
	local -a ns=(--pid --fork --kill-child)
	local limit=''
	while :; do
		case "$1" in
		--proc)
			ns+=(--mount-proc)
			limit="${limit:-${AT_LEVEL_TIMEOUT:-300}}"
			shift
			;;
		--timeout)
			limit="$2"
			shift 2
			;;
		*) break ;;
		esac
	done
	local level="$1"
	shift
	if [ "$level" = host ]; then
		"$@"
		return
	fi
	if [ -z "$limit" ]; then
		unshare "${ns[@]}" -- sh -c \
			'echo "$0" > /proc/sys/vm/memfd_noexec || exit 125; exec "$@"' \
			"$level" "$@"
		return
	fi
	kill_after "$limit" unshare "${ns[@]}" -- sh -c \
		'echo "$0" > /proc/sys/vm/memfd_noexec || exit 125; "$@"; exit "$?"' \
		"$level" "$@"
}

# host_level: the initial namespace's value, for "host unchanged" checks.
host_level() {
	cat /proc/sys/vm/memfd_noexec 2>/dev/null || echo absent
}

# assert_host_level_unchanged BEFORE: for teardown; the initial
# namespace's vm.memfd_noexec still reads BEFORE, what setup saw (empty:
# setup did not get that far, nothing to compare).  Teardown runs with
# errexit off, so a teardown must return this status (or fold it into its
# own).
assert_host_level_unchanged() {
	local now
	[ -n "$1" ] || return 0
	now=$(host_level)
	[ "$now" = "$1" ] || fail "the host's vm.memfd_noexec changed during the test: $1 -> $now"
}

# The host's shared device nodes, whose owner and mode no test may change
# (stock crun chowns a container's standard streams to its root, devices
# included: README, "Runtimes and Debian releases").
HOST_DEVICES=(/dev/null /dev/zero /dev/full /dev/random /dev/urandom /dev/tty)

# host_devices: for setup, a line per node of HOST_DEVICES that exists:
# path, uid, gid, mode (octal) and major:minor.
host_devices() {
	local d
	for d in "${HOST_DEVICES[@]}"; do
		[ ! -e "$d" ] || stat -c '%n %u %g %a %t:%T' "$d"
	done
}

# assert_host_devices_unchanged BEFORE: for teardown (see
# assert_host_level_unchanged), with BEFORE what host_devices printed in
# setup (empty: nothing to compare).  A node whose owner or mode moved
# fails the test and, if root owned it before, is put back, so that the
# host and the next tests do not inherit it.  A node that was not root's
# (something else changed it earlier: never restored to that) or that is
# no longer the same device is only reported.
assert_host_devices_unchanged() {
	local now path uid gid mode dev
	[ -n "$1" ] || return 0
	now=$(host_devices)
	[ "$now" != "$1" ] || return 0
	while read -r path uid gid mode dev; do
		if [ "$uid" = 0 ] && [ -c "$path" ] && [ ! -L "$path" ] &&
			[ "$(stat -c %t:%T "$path")" = "$dev" ]; then
			chown "$uid:$gid" "$path" && chmod "$mode" "$path" ||
				echo "could not put $path back to $uid:$gid $mode" >&2
		fi
	done <<<"$1"
	fail "$(printf 'a host device changed during the test (put back where possible)\nbefore:\n%s\nafter:\n%s' "$1" "$now")"
}

# with_output TEXT ASSERTION [ARGS...]: bats-assert's ASSERTION
# (assert_line, refute_line, assert_output, refute_output) on TEXT, a log
# file's content or a part of $output, instead of $output; $output and
# $lines stay as they are.
with_output() {
	local output="$1"
	local -a lines=()
	shift
	# As bats' run splits $output (empty lines dropped).
	# shellcheck disable=SC2034 # bats-assert's assert_line/refute_line read it
	IFS=$'\n' read -d '' -r -a lines <<<"$output" || true
	"$@"
}

# assert_marker METHOD: exactly the line "cloned_binary: using METHOD".
assert_marker() {
	assert_line "cloned_binary: using $1"
}

# assert_memfd_level LEVEL [TEXT]: memfdprobe's lines in TEXT (else
# $output; an empty TEXT fails) show a PID namespace at
# vm.memfd_noexec=LEVEL: the level it reads, and what memfd_create()
# without a flag, with MFD_EXEC, and an exec of that gives there.
assert_memfd_level() {
	local text="${2-$output}" want seals='seals=0x[0-9a-f]+'
	local -a wants
	text=$(tr -d '\r' <<<"$text") # a terminal's lines (docker attach)
	case "$1" in
	2) wants=("memfdprobe: level=2"
		"memfdprobe: flags=none result=ok mode=0666 $seals exec_seal=yes"
		"memfdprobe: flags=exec result=EACCES"
		"memfdprobe: flags=exec-run result=EACCES") ;;
	1) wants=("memfdprobe: level=1"
		"memfdprobe: flags=none result=ok mode=0666 $seals exec_seal=yes"
		"memfdprobe: flags=exec result=ok mode=0777 $seals exec_seal=no"
		"memfdprobe: flags=exec-run result=ok exec=ok") ;;
	0) wants=("memfdprobe: level=0"
		"memfdprobe: flags=none result=ok mode=0777 $seals exec_seal=no"
		"memfdprobe: flags=exec result=ok mode=0777 $seals exec_seal=no"
		"memfdprobe: flags=exec-run result=ok exec=ok") ;;
	*) fail "assert_memfd_level: bad level '$1' (allowed: 0, 1, 2)"; return ;;
	esac
	for want in "${wants[@]}"; do
		grep -qxE -- "$want" <<<"$text" && continue
		batslib_print_kv_single_or_multi 8 'line' "$want" 'output' "$text" |
			batslib_decorate "no line from inside the container shows vm.memfd_noexec=$1 (an ERE, whole line)" |
			fail
		return
	done
}

# cgroup_search_roots: where the cgroups of this process's containers go,
# one directory a line: the root of each hierarchy this process is in (an
# absolute cgroupsPath, a cgroup parent such as /<namespace>), its own
# cgroup there (runc's default without cgroupsPath, a relative parent) and,
# on cgroup v2, that cgroup's parent (runc's v2 default).  Never another
# session's cgroup: others' leftovers may carry the same names, since PIDs
# are reused.
cgroup_search_roots() {
	local ctrl path mnt parent
	while IFS=: read -r _ ctrl path; do
		# The hierarchy's mount point: cgroup2, or the cgroup mount
		# whose super options name the (first) controller.
		mnt=$(awk -v c="${ctrl%%,*}" '{
			for (i = 7; $i != "-"; i++) ;
			if (c == "" && $(i + 1) == "cgroup2") { print $5; exit }
			if (c != "" && $(i + 1) == "cgroup") {
				n = split($(i + 3), o, ",")
				for (j = 1; j <= n; j++) if (o[j] == c) { print $5; exit }
			}
		}' /proc/self/mountinfo)
		[ -n "$mnt" ] || continue
		echo "$mnt"
		echo "$mnt${path%/}"
		parent=$(dirname "$path")
		[ -n "$ctrl" ] || echo "$mnt${parent%/}"
	done </proc/self/cgroup | LC_ALL=C sort -u
}

# cgroups_named NAME: the cgroup directories called NAME (a name that only
# the calling test uses) in the places of cgroup_search_roots, as a child
# or a grandchild.  Others create and remove cgroups meanwhile: a
# directory that vanishes during the walk is no error, and nothing but
# NAME is looked at.
cgroups_named() {
	local root
	cgroup_search_roots | while read -r root; do
		find "$root" -mindepth 1 -maxdepth 2 -type d -name "$1" -print 2>/dev/null || :
	done | LC_ALL=C sort -u
}

# ---- runc (tests/bats/runc.bats) -------------------------------------------
# The patched runc that contrib/runc/build.sh builds; RUNC=path overrides.
RUNC="${RUNC:-$REPO_ROOT/build/runc}"

# ---- shared by the runc suites ------------------------------------------------

# write_runc RUNC [PREFIX...]: writes $T/runc, the runc command of a test
# for MODE (rootful or rootless): PREFIX (a fakekernel wrapper, say), then
# for rootless setpriv to $TEST_USER with $T/xdg, then RUNC --root $STATE.
write_runc() {
	local runc="$1"
	shift
	local -a cmd=("$@")
	if [ "$MODE" = rootless ]; then
		chown "$TEST_USER:" "$STATE" "$T/xdg"
		cmd+=(setpriv "--reuid=$TEST_USER" "--regid=$TEST_USER"
			--init-groups --inh-caps=-all --
			env "XDG_RUNTIME_DIR=$T/xdg" "HOME=$T/xdg")
	fi
	cmd+=("$runc" --root "$STATE")
	{
		echo '#!/bin/bash'
		printf 'exec'
		printf ' %q' "${cmd[@]}"
		printf ' "$@"\n'
	} >"$T/runc"
	chmod 755 "$T/runc"
}

# plain_runc ARGS...: $RUNC with the test's state dir ($STATE) for MODE
# (rootful, or rootless as $TEST_USER with $T/xdg), without fakekernel;
# for teardown and the leftover checks of the runc suites.
plain_runc() {
	if [ "${MODE:-rootful}" = rootless ]; then
		setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups -- \
			env XDG_RUNTIME_DIR="$T/xdg" "$RUNC" --root "$STATE" "$@"
	else
		"$RUNC" --root "$STATE" "$@"
	fi
}

# runc_bundle [--probe] APPLET...: what the runc suites run, made afresh in
# $BUNDLE_DIR (world-readable: the rootless user runs runc from there): a
# busybox rootfs at $ROOTFS with the APPLETs linked, with --probe a static
# memfdprobe too (tests/helpers/memfdprobe.c; its CMake target is
# dynamic), and $RUNC's two base configs, rootful.json and, when the test
# user exists, rootless.json (`runc spec --rootless` maps the calling
# user, so that user runs it, in /tmp/$RUNC_TMP-spec.*).
runc_bundle() {
	local probe=0 a d
	if [ "${1:-}" = --probe ]; then
		probe=1
		shift
	fi
	rm -rf "$BUNDLE_DIR"
	mkdir -p "$ROOTFS/bin" "$ROOTFS/proc" "$ROOTFS/dev" "$ROOTFS/sys" \
		"$ROOTFS/tmp" "$ROOTFS/etc"
	cp /bin/busybox "$ROOTFS/bin/busybox"
	for a in "$@"; do
		ln -s busybox "$ROOTFS/bin/$a"
	done
	if [ "$probe" = 1 ]; then
		"${CC:-cc}" -static -O2 -D_GNU_SOURCE -I "$REPO_ROOT/common" \
			-o "$ROOTFS/bin/memfdprobe" "$REPO_ROOT/tests/helpers/memfdprobe.c"
	fi
	chmod -R a+rX "$BUNDLE_DIR"
	(cd "$BUNDLE_DIR" && "$RUNC" spec && mv config.json rootful.json)
	if ensure_test_user; then
		d=$(mktemp -d "/tmp/$RUNC_TMP-spec.XXXXXX")
		chown "$TEST_USER:" "$d"
		(cd "$d" && setpriv --reuid="$TEST_USER" --regid="$TEST_USER" \
			--init-groups -- "$RUNC" spec --rootless)
		mv "$d/config.json" "$BUNDLE_DIR/rootless.json"
		rm -rf "$d"
	fi
	chmod a+r "$BUNDLE_DIR"/*.json
}

# runc_dirs: a test's directories, exported: T, new in /tmp and named
# after the suite ($RUNC_TMP), searchable by the rootless user; STATE,
# runc's --root (0700), and T/xdg (XDG_RUNTIME_DIR when rootless).
runc_dirs() {
	T=$(mktemp -d "/tmp/$RUNC_TMP.XXXXXX")
	chmod 755 "$T"
	STATE="$T/state"
	mkdir -m 700 "$STATE" "$T/xdg"
	export T STATE
}

# ---- the memfd-noexec service on its default socket --------------------------
# The clients (the patched runc's nsexec, the hook) ask the service at
# /run/memfd-noexec.sock, the path the systemd unit uses; a test that needs
# it starts it there as the administrator's unit would, in the initial PID
# namespace, and stops it in its teardown.  A socket that is already there
# belongs to the host: never replaced.
SERVICE_SOCKET=/run/memfd-noexec.sock

# no_default_service: nothing listens on the default socket (the tests of
# the rootless refusal need it absent, those of the service start it).
no_default_service() {
	[ ! -e "$SERVICE_SOCKET" ] ||
		missing "$SERVICE_SOCKET free (a memfd-noexec service of this host runs there)"
}

# start_default_service LOG: memfd-noexec serve on the default socket,
# logging to LOG; sets DEFAULT_SERVE_PID.
start_default_service() {
	no_default_service || return 1
	"$BUILD_DIR/memfd-noexec/memfd-noexec" serve 2>"$1" 3>&- &
	DEFAULT_SERVE_PID=$!
	for _ in $(seq 100); do
		[ -S "$SERVICE_SOCKET" ] && grep -q "listening on" "$1" && return 0
		kill -0 "$DEFAULT_SERVE_PID" 2>/dev/null || break
		sleep 0.05
	done
	echo "the memfd-noexec service did not start; its log:" >&2
	cat "$1" >&2
	return 1
}

# stop_default_service: stops it (TERM); it must exit 0 and take its
# socket with it.
stop_default_service() {
	local rc=0
	[ -n "${DEFAULT_SERVE_PID:-}" ] || return 0
	kill -TERM "$DEFAULT_SERVE_PID" 2>/dev/null || true
	wait "$DEFAULT_SERVE_PID" || rc=$?
	DEFAULT_SERVE_PID=
	[ "$rc" -eq 0 ] || { fail "the memfd-noexec service exited $rc"; return; }
	[ ! -e "$SERVICE_SOCKET" ] || fail "the memfd-noexec service left $SERVICE_SOCKET behind"
}

# assert_deb_files DEB UNITDIR [LABEL]: the toolkit's package DEB holds
# exactly its set of files, the units under UNITDIR (where that suite's
# systemd.pc puts them); LABEL starts the failure's message.  For
# packaging.bats (the host's build) and packaging-suites.bats (each
# suite's), so that the set is written once.
assert_deb_files() {
	local deb="$1" unitdir="$2" label="${3:-}"
	dpkg-deb --fsys-tarfile "$deb" | tar -t | sed 's|^\./|/|' | grep -v '/$' | LC_ALL=C sort >"$T/got"
	LC_ALL=C sort >"$T/want" <<-EOF_LIST
		$unitdir/memfd-noexec.service
		$unitdir/memfd-noexec.socket
		/usr/bin/memfd-noexec
		/usr/bin/sealexec
		/usr/libexec/memfd-toolkit/crun-sealed
		/usr/share/containers/oci/hooks.d/memfd-noexec.json
		/usr/share/doc/memfd-toolkit/README.Debian
		/usr/share/doc/memfd-toolkit/README.md.gz
		/usr/share/doc/memfd-toolkit/changelog.gz
		/usr/share/doc/memfd-toolkit/copyright
		/usr/share/doc/memfd-toolkit/examples/50-crun-sealed.conf
		/usr/share/doc/memfd-toolkit/examples/50-memfd-noexec.conf
		/usr/share/man/man1/sealexec.1.gz
		/usr/share/man/man8/memfd-noexec.8.gz
		/usr/share/memfd-toolkit/seccomp/deny-hugetlb-memfd.jq
	EOF_LIST
	diff -u "$T/want" "$T/got" || fail "${label}the package's files differ (- expected, + packaged)"
}
