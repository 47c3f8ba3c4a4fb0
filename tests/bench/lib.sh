# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
# Shared by tests/bench/start.sh and memory.sh (sourced, not run).
# Benchmarks print numbers; they never pass or fail on them.
#
# Two families of arms, runc and crun, each measured on its own: its own
# staging directory, loop and table, so that arms are only ever compared
# within a family, and the runc arms run exactly as they always have.
# BENCH_FAMILIES (default "runc crun") says which run, in that order;
# bench_family selects one.  Within a family, every arm is staged as a
# copy in one world-readable directory on the same filesystem, so that
# the unprivileged user can run them and no arm gets another filesystem or
# page-cache state.
#
# runc:
#   stock    Debian's runc 1.1.5 ($STOCK, default /usr/sbin/runc)
#   ours     runc with the loader, default build (method overlay)
#   memfd    ours built with LOADER_REQUEST=memfd (the copy fallback)
#   noclone  ours built with LOADER_REQUEST=none: never re-executes, the
#            physical limit; unprotected, only ever used here
#   x1, x2.. only with EXTRA_RUNC="/path ...": other runcs to compare, e.g.
#            prototypes (paths without spaces)
#   The three builds come from this tree's contrib/runc/build.sh, into
#   build/bench/runc-ARM.
# crun:
#   stock    Debian's crun 1.8.1 ($STOCK_CRUN, default /usr/bin/crun), which
#            clones itself on every call: a memfd copy rootless, a
#            read-only bind mount of itself rootful
#   sealed   crun-sealed (this tree's build/crun-sealed/crun-sealed)
#            running another copy of that stock crun from a detached
#            read-only overlay
#   ours     crun 1.8.1 rebuilt with the loader (contrib/crun/build.sh,
#            into build/bench/crun-ours)
#   ours121  crun 1.21 (Debian 13) rebuilt the same way
#            (contrib/crun/build.sh 1.21, into build/bench/crun-ours121)
#   crun refuses this kind of machine's hybrid cgroup layout ("cgroups in
#   hybrid mode not supported"), so the crun family's namespaces unmount
#   the cgroup2 hierarchy at /sys/fs/cgroup/unified (in their own, private
#   mount namespace) and crun uses cgroup v1.
# runc13 (inside a Debian sid root, where runc 1.3 runs: glibc 2.38):
#   stock    sid's runc 1.3.6 ($STOCK13, default /usr/sbin/runc), which
#            clones itself with exeseal: a detached overlay rootful, a
#            memfd copy rootless, an unsealed O_TMPFILE copy at level 2
#   ours     runc 1.3.6 from $RUNC13_SRC (Debian's source, its patches
#            applied) with the 1.3 series, default build
#   noclone  the same built with LOADER_REQUEST=none: runc init starts from
#            runc's own binary (CloneSelfExe bypassed), the lower bound
#   The two builds come from contrib/runc/build.sh with the suite's own
#   Build-Depends (MEMFD_TOOLKIT_NO_DEPS=1), into build/bench/runc13-ARM.
# BENCH_LEVEL=N (runc13 and crun; default 0): the level of the child PID
#   namespaces the family's containers are made in (runc is always at 0).
#   Above 0 an arm may fail to make a container (stock crun run by a user:
#   its memfd copy cannot execute); bench_method then says "fails", and
#   memory.sh's table shows the arm's error instead of its numbers.
#   What only prepares or cleans up (the bundles' `spec`, --version,
#   leftovers) runs at 0, where every arm works.
# BENCH_NO_BUILD=1 reuses the builds already in build/bench/.

BENCH_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
STOCK=${STOCK:-/usr/sbin/runc}
STOCK_CRUN=${STOCK_CRUN:-/usr/bin/crun}
STOCK13=${STOCK13:-/usr/sbin/runc}
RUNC13_SRC=${RUNC13_SRC:-}
export BENCH_LEVEL=${BENCH_LEVEL:-0}
TEST_USER=${TEST_USER:-cbtest}
BENCH_CRUN_SEALED=$BENCH_TOP/build/crun-sealed/crun-sealed
BENCH_MEMFD_NOEXEC=${BENCH_MEMFD_NOEXEC:-$BENCH_TOP/build/memfd-noexec/memfd-noexec}
# shellcheck disable=SC2206 # split on purpose
BENCH_FAMILIES=(${BENCH_FAMILIES:-runc crun})
# shellcheck disable=SC2206 # split on purpose
BENCH_EXTRA=(${EXTRA_RUNC:-})

bench_die() {
	echo "${0##*/}: $*" >&2
	exit 1
}

[[ "$BENCH_LEVEL" =~ ^[012]$ ]] ||
	bench_die "BENCH_LEVEL must be 0, 1 or 2 (vm.memfd_noexec in the benchmark's PID namespaces), not '$BENCH_LEVEL'"

for f in "${BENCH_FAMILIES[@]}"; do
	case $f in
	runc | runc13 | crun) ;;
	*) bench_die "BENCH_FAMILIES: unknown family '$f' (runc, runc13, crun)" ;;
	esac
done
unset f

# bench_family runc|crun: selects the family the other functions work on:
# BENCH_FAMILY, BENCH_ARMS and BENCH_STOCK (its stock binary).
bench_family() {
	BENCH_FAMILY=$1
	case $1 in
	runc)
		BENCH_STOCK=$STOCK
		BENCH_ARMS=(stock ours memfd noclone)
		for ((i = 1; i <= ${#BENCH_EXTRA[@]}; i++)); do
			BENCH_ARMS+=("x$i")
		done
		;;
	runc13)
		BENCH_STOCK=$STOCK13
		BENCH_ARMS=(stock ours noclone)
		;;
	crun)
		BENCH_STOCK=$STOCK_CRUN
		BENCH_ARMS=(stock sealed ours ours121)
		;;
	*) bench_die "bench_family: unknown family '$1'" ;;
	esac
}

# bench_check_host: what every benchmark of BENCH_FAMILIES needs, or a
# message saying how to get it.  Packages come from contrib/install-deps.sh
# test.
bench_check_host() {
	local c f
	[ "$(id -u)" -eq 0 ] || bench_die "run as root (PID namespaces, a test user)"
	[ -e /proc/sys/vm/memfd_noexec ] ||
		bench_die "no vm.memfd_noexec here (Linux 6.3+ needed)"
	[ -x "$BENCH_MEMFD_NOEXEC" ] ||
		bench_die "no $BENCH_MEMFD_NOEXEC (cmake -S . -B build && cmake --build build)"
	for c in jq busybox python3 unshare setpriv; do
		command -v "$c" >/dev/null ||
			bench_die "$c is missing (contrib/install-deps.sh test)"
	done
	for f in "${BENCH_FAMILIES[@]}"; do
		case $f in
		runc)
			[ -x "$STOCK" ] || bench_die "no stock runc at $STOCK (apt-get install runc)"
			command -v go >/dev/null ||
				bench_die "go is missing (contrib/install-deps.sh test)"
			;;
		runc13)
			[ -x "$STOCK13" ] || bench_die "no stock runc 1.3 at $STOCK13 (in a sid root: apt-get install runc)"
			grep -q '^runc version 1\.3\.' <<<"$("$STOCK13" --version)" ||
				bench_die "$STOCK13 is not runc 1.3 (run the runc13 family in a Debian sid root)"
			[ -f "$RUNC13_SRC/libcontainer/exeseal/cloned_binary_linux.go" ] ||
				bench_die "RUNC13_SRC='$RUNC13_SRC' is not a runc 1.3 source tree (apt-get source runc=1.3.6+ds1-1)"
			command -v go >/dev/null || bench_die "go is missing (apt-get build-dep runc)"
			;;
		crun)
			[ -x "$STOCK_CRUN" ] ||
				bench_die "no stock crun at $STOCK_CRUN (apt-get install crun), or leave crun out: BENCH_FAMILIES=runc"
			[ -x "$BENCH_CRUN_SEALED" ] ||
				bench_die "no $BENCH_CRUN_SEALED (cmake -S . -B build && cmake --build build)"
			command -v mountpoint >/dev/null ||
				bench_die "mountpoint is missing (util-linux)"
			;;
		esac
	done
	# Created as tests/bats/helpers.bash's ensure_test_user does.
	id -u "$TEST_USER" >/dev/null 2>&1 ||
		useradd --system --create-home --home-dir "/var/lib/$TEST_USER" \
			--shell /bin/sh "$TEST_USER" ||
		bench_die "cannot create the test user $TEST_USER"
}

# bench_build: the builds of ours that BENCH_FAMILIES need, from this
# tree, into build/bench/: three runcs, two cruns (1.8.1 and 1.21).
bench_build() {
	local f arm req desc built v
	mkdir -p "$BENCH_TOP/build/bench"
	for f in "${BENCH_FAMILIES[@]}"; do
		if [ "$f" = crun ]; then
			# contrib/crun/build.sh's own outputs are reused when their
			# loader line names this tree's commit (tests/run-all.sh
			# builds both just before), since each build takes minutes.
			desc=$(git -C "$BENCH_TOP" describe --always --dirty 2>/dev/null || true)
			for arm in ours:1.8.1 ours121:1.21; do
				[ "${BENCH_NO_BUILD:-0}" = 1 ] && [ -x "$BENCH_TOP/build/bench/crun-${arm%%:*}" ] &&
					continue
				built=$BENCH_TOP/build/crun
				[ "${arm#*:}" = 1.8.1 ] || built=$BENCH_TOP/build/crun-${arm#*:}/crun
				if [ -n "$desc" ] && [ "${desc%-dirty}" = "$desc" ] && [ -x "$built" ] &&
					v=$("$built" --version 2>/dev/null) &&
					[[ "$v" == *"loader: sealed W^X (memfd-toolkit "*" ($desc))"* ]]; then
					install -m 0755 "$built" "$BENCH_TOP/build/bench/crun-${arm%%:*}"
					continue
				fi
				OUT=$BENCH_TOP/build/bench/crun-${arm%%:*} "$BENCH_TOP/contrib/crun/build.sh" "${arm#*:}" \
					>"$BENCH_TOP/build/bench/build-crun-${arm%%:*}.log" 2>&1 ||
					bench_die "contrib/crun/build.sh ${arm#*:} failed; see build/bench/build-crun-${arm%%:*}.log"
			done
			continue
		fi
		if [ "$f" = runc13 ]; then
			for arm in ours noclone; do
				[ "$arm" = ours ] && req=auto || req=none
				[ "${BENCH_NO_BUILD:-0}" = 1 ] && [ -x "$BENCH_TOP/build/bench/runc13-$arm" ] &&
					continue
				MEMFD_TOOLKIT_NO_DEPS=1 RUNC_SRC=$RUNC13_SRC LOADER_REQUEST=$req \
					OUT=$BENCH_TOP/build/bench/runc13-$arm "$BENCH_TOP/contrib/runc/build.sh" \
					>"$BENCH_TOP/build/bench/build-runc13-$arm.log" 2>&1 ||
					bench_die "contrib/runc/build.sh (runc 1.3, LOADER_REQUEST=$req) failed; see build/bench/build-runc13-$arm.log"
			done
			continue
		fi
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
	done
}

# bench_stage PROGRAM ARGS...: makes $WORK (world-readable) with
# bin/FAMILY-ARM for every arm of the family, a busybox bundle per mode
# (rootful, rootless; the stock runtime's `spec`, `spec --rootless`)
# running PROGRAM ARGS..., state directories and an XDG_RUNTIME_DIR for
# the test user.  Sets WORK; bench_cleanup removes it.
bench_stage() {
	local arm m d
	WORK=$(mktemp -d "/tmp/$BENCH_FAMILY-bench.XXXXXX")
	chmod 755 "$WORK"
	mkdir -p "$WORK/bin"
	install -m 0755 "$BENCH_STOCK" "$WORK/bin/$BENCH_FAMILY-stock"
	if [ "$BENCH_FAMILY" = crun ]; then
		# The crun the wrapper runs is CRUN_SEALED_CRUN (bench_runtime,
		# start.sh's loop).
		install -m 0755 "$BENCH_CRUN_SEALED" "$WORK/bin/crun-sealed"
		install -m 0755 "$STOCK_CRUN" "$WORK/bin/crun-sealed.crun"
		install -m 0755 "$BENCH_TOP/build/bench/crun-ours" "$WORK/bin/crun-ours"
		install -m 0755 "$BENCH_TOP/build/bench/crun-ours121" "$WORK/bin/crun-ours121"
	elif [ "$BENCH_FAMILY" = runc13 ]; then
		for arm in ours noclone; do
			install -m 0755 "$BENCH_TOP/build/bench/runc13-$arm" "$WORK/bin/runc13-$arm"
		done
	else
		for arm in ours memfd noclone; do
			install -m 0755 "$BENCH_TOP/build/bench/runc-$arm" "$WORK/bin/runc-$arm"
		done
		for ((i = 1; i <= ${#BENCH_EXTRA[@]}; i++)); do
			[ -x "${BENCH_EXTRA[i - 1]}" ] ||
				bench_die "EXTRA_RUNC: ${BENCH_EXTRA[i - 1]} is not an executable"
			install -m 0755 "${BENCH_EXTRA[i - 1]}" "$WORK/bin/runc-x$i"
		done
	fi
	mkdir -p "$WORK/rootfs/bin" "$WORK/rootfs/proc" "$WORK/rootfs/dev" \
		"$WORK/rootfs/sys" "$WORK/rootfs/tmp"
	cp "$(command -v busybox)" "$WORK/rootfs/bin/busybox"
	for d in true sh sleep; do
		ln -s busybox "$WORK/rootfs/bin/$d"
	done
	# In the namespace (at 0, where every stock runtime works): crun
	# clones itself even for `spec`.
	(cd "$WORK" && bench_in_pidns_at 0 "$WORK/bin/$BENCH_FAMILY-stock" spec &&
		mv config.json rootful.json)
	d=$WORK/spec-rootless
	mkdir "$d"
	chown "$TEST_USER:" "$d"
	(cd "$d" && bench_in_pidns_at 0 setpriv --reuid="$TEST_USER" --regid="$TEST_USER" \
		--init-groups -- "$WORK/bin/$BENCH_FAMILY-stock" spec --rootless)
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

# bench_binary ARM: the staged executable that ARM runs as (for the
# sealed arm the crun behind the wrapper).
bench_binary() {
	if [ "$BENCH_FAMILY" = crun ] && [ "$1" = sealed ]; then
		echo "$WORK/bin/crun-sealed.crun"
	else
		echo "$WORK/bin/$BENCH_FAMILY-$1"
	fi
}

# bench_runtime MODE ARM ARGS...: that arm's runc or crun with MODE's state
# dir; as the test user (no capabilities, its own XDG_RUNTIME_DIR) for
# rootless.  Needs WORK, TEST_USER and BENCH_FAMILY.
bench_runtime() {
	local mode=$1 arm=$2
	shift 2
	# The crun the sealed arm's wrapper runs; start.sh's loop sets it too.
	if [ "$BENCH_FAMILY" = crun ]; then
		local -x CRUN_SEALED_CRUN=$WORK/bin/crun-sealed.crun
	fi
	if [ "$mode" = rootless ]; then
		setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups \
			--inh-caps=-all -- env XDG_RUNTIME_DIR="$WORK/xdg" \
			"$WORK/bin/$BENCH_FAMILY-$arm" --root "$WORK/state-rootless" "$@"
	else
		"$WORK/bin/$BENCH_FAMILY-$arm" --root "$WORK/state-rootful" "$@"
	fi
}

# bench_level: the level the family's containers are made at:
# BENCH_LEVEL for runc13 and crun, 0 for runc.
bench_level() {
	case ${BENCH_FAMILY:-} in
	runc13 | crun) echo "$BENCH_LEVEL" ;;
	*) echo 0 ;;
	esac
}

# bench_in_pidns CMD...: CMD as root in a new PID namespace with its own
# /proc, at the family's level (bench_level) set there (never in the
# initial namespace); for crun also without the cgroup2 mount of a hybrid
# layout.  bench_in_pidns_at LEVEL CMD... at LEVEL instead.
bench_in_pidns() {
	bench_in_pidns_at "$(bench_level)" "$@"
}

bench_in_pidns_at() {
	local level=$1
	shift
	if [ "${BENCH_FAMILY:-}" = crun ]; then
		"$BENCH_MEMFD_NOEXEC" run --level "$level" --proc -- sh -c '
			if mountpoint -q /sys/fs/cgroup/unified; then
				umount /sys/fs/cgroup/unified || exit 125
			fi
			exec "$@"' sh "$@"
	else
		"$BENCH_MEMFD_NOEXEC" run --level "$level" --proc -- "$@"
	fi
}

# bench_ns_runtime MODE ARM ARGS...: bench_runtime in its own namespace
# at level 0, for the calls outside the measured loops (--version, list,
# delete of leftovers: none depends on the level, and at 1 or 2 stock
# crun run by a user cannot even list).
bench_ns_runtime() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	bench_in_pidns_at 0 bash -c "$(declare -f bench_runtime)"'
		WORK=$1 TEST_USER=$2 BENCH_FAMILY=$3; shift 3
		bench_runtime "$@"' _ "$WORK" "$TEST_USER" "$BENCH_FAMILY" "$@"
}

# bench_method MODE ARM: the loader's marker from one create (then
# delete -f): runc's from `runc --debug`'s --log file, crun's from the
# stderr of crun-sealed or of our crun with their debug
# variables; "-" for stock, which prints none.  At a level above 0, an
# arm that cannot make a container is "fails" (its error stays in
# $WORK/logs/method-MODE-ARM); at 0 that ends the benchmark.
bench_method() {
	local log=$WORK/logs/method-$1-$2 out
	# shellcheck disable=SC2016 # expanded by the inner bash
	out=$(bench_in_pidns bash -c "$(declare -f bench_runtime)"'
		WORK=$1 TEST_USER=$2 BENCH_FAMILY=$3 log=$4; shift 4
		if [ "$BENCH_FAMILY" != crun ]; then
			bench_runtime "$1" "$2" --debug --log "$log" create \
				-b "$WORK/bundle-$1" "method-$2" </dev/null >/dev/null 2>&1 || exit
		else
			CRUN_SEALED_DEBUG=1 CRUN_MEMFD_TOOLKIT_DEBUG=1 bench_runtime "$1" "$2" \
				create -b "$WORK/bundle-$1" "method-$2" </dev/null >/dev/null 2>"$log" ||
				exit
		fi
		bench_runtime "$1" "$2" delete -f "method-$2"' \
		_ "$WORK" "$TEST_USER" "$BENCH_FAMILY" "$log" "$1" "$2" 2>&1) || {
		if [ "$(bench_level)" != 0 ]; then
			echo fails
			return 0
		fi
		bench_die "$BENCH_FAMILY-$2 ($1) cannot create a container: $out $(tail -3 "$log" 2>/dev/null)"
	}
	# runc 1.3's own clone (exeseal) names its overlay and its copies too.
	sed -n 's/.*cloned_binary: using \([a-z-]*\).*/\1/p
		s/.*runc exeseal: using overlayfs.*/exeseal-overlay/p
		s/.*cloning \/proc\/self\/exe binary.*/exeseal-copy/p' "$log" | head -1 |
		grep . || echo -
}

# bench_leftovers MODE: any container still listed by MODE's state dir.
bench_leftovers() {
	bench_ns_runtime "$1" stock list -q 2>/dev/null || true
}

bench_cleanup() {
	local m id
	[ -n "${WORK:-}" ] && [ -d "$WORK" ] || return 0
	for m in rootful rootless; do
		for id in $(bench_leftovers "$m"); do
			bench_ns_runtime "$m" stock delete -f "$id" >/dev/null 2>&1 || true
		done
	done
	case "$WORK" in
	/tmp/runc-bench.* | /tmp/runc13-bench.* | /tmp/crun-bench.*) rm -rf -- "$WORK" ;;
	esac
	WORK=
}

bench_versions() {
	local arm
	echo "host vm.memfd_noexec: $(cat /proc/sys/vm/memfd_noexec) (never written; each mode runs in a child PID namespace at $(bench_level))"
	echo "kernel: $(uname -r), $(nproc) CPUs, load average: $(cut -d' ' -f1-3 /proc/loadavg)"
	for arm in "${BENCH_ARMS[@]}"; do
		if [ "$BENCH_FAMILY" != crun ]; then
			printf '  %-8s %s\n' "$arm" \
				"$("$WORK/bin/$BENCH_FAMILY-$arm" --version | sed -n 's/^runc version //p; s/^commit: //p' | paste -sd ' ')"
		else
			# crun --version: its version, commit and (ours) loader lines.
			printf '  %-8s %s\n' "$arm" "$(bench_ns_runtime rootful "$arm" --version |
				sed -n 's/^crun version /crun /p; s/^commit: /commit /p; s/^loader: /loader: /p' |
				paste -sd ' ')"
		fi
	done
	[ "$BENCH_FAMILY" = crun ] &&
		printf '  %-8s %s\n' "" "(sealed: build/crun-sealed/crun-sealed, memfd-toolkit $(git -C "$BENCH_TOP" describe --always --dirty 2>/dev/null || echo '?'))"
	for ((i = 1; i <= ${#BENCH_EXTRA[@]}; i++)); do
		[ "$BENCH_FAMILY" = runc ] || break
		printf '  x%-7s %s\n' "$i" "${BENCH_EXTRA[i - 1]}"
	done
}
