#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Real-older-kernel test matrix: boots Debian's 6.1 and 6.12 cloud kernels
# under qemu (TCG) with a busybox initramfs holding the static test binaries,
# runs tests/kernels/guest.sh in each and turns its results into TAP.
#
#   tests/kernels/run.sh [--readme] [BUILD_DIR]
#
# BUILD_DIR (default: build-static at the repo root) holds the statically
# linked sealexec, selfcheck, fakekernel, cbtest-attack and memfd-noexec
# (searched up to three directories deep).  A missing binary makes the
# checks that need it fail; it never skips them.
#
# Everything lands in build/kernels/: the kernel cache (cache/), the
# initramfs, the serial logs (<kernel>.log) and matrix.md, a markdown table
# of which check passed on which kernel.  --readme prints that table on
# stdout and sends the TAP stream to stderr.
#
# Environment:
#   KTEST_KERNELS       kernels to boot, default "6.1 6.12"
#   KTEST_TIMEOUT       overall limit in seconds, default 600
#   KTEST_BOOT_TIMEOUT  per-boot limit in seconds, default 120
#   KTEST_QEMU_CPU      qemu -cpu model, default qemu's own (6.12 boots with it)
#   KTEST_OFFLINE=1     never call apt; use the cached kernels
#
# Exit status: 0 only if every expected check of every kernel passed.
set -euo pipefail

SCRIPT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$SCRIPT_DIR/../.." && pwd)
OUT=$ROOT/build/kernels
CACHE=$OUT/cache

OVERALL_TIMEOUT=${KTEST_TIMEOUT:-600}
BOOT_TIMEOUT=${KTEST_BOOT_TIMEOUT:-120}
KERNELS=${KTEST_KERNELS:-6.1 6.12}

# flavor -> metapackage that depends on the current linux-image-<abi> package
declare -A META=(
	[6.1]=linux-image-cloud-amd64
	[6.12]=linux-image-6.12-cloud-amd64
)

# The fixed list of guest checks per kernel; guest.sh must print exactly
# these.  A name missing from the serial log is a failure.
EXPECT_COMMON=(
	boot tmp-exec unshare-pid
	witness-memfd_create witness-mfd_exec witness-seal_exec
	witness-memfd_noexec witness-o_tmpfile witness-execveat
	witness-memfd_execveat
	features-memfd_create features-mfd_exec features-seal_exec
	features-o_tmpfile features-execveat features-memfd_noexec
	method-auto method-memfd method-tmpfile
	fdleak-auto fdleak-tmpfile
	write-attack write-attack-tmpfile
	fakekernel-6.1-witness fakekernel-6.1-method
	memfd-noexec-status
	memfd-noexec-run-level2
)
EXPECT_6_1=(ns-no-sysctl)
EXPECT_6_12=(
	ns-noexec-0 ns-noexec-1 ns-noexec-2 ns-noexec-2-write-attack
	ns-noexec-2-memfd-refused
	ns-noexec-3-rejected witness-ns2-mfd_exec witness-ns-hierarchy
	initns-untouched
)
HOST_CHECKS=(host-config host-boot host-end host-poweroff)

# Kernel config options the initramfs relies on; all must be built in.
CONFIG_NEEDED=(
	DEVTMPFS TMPFS SHMEM MEMFD_CREATE PID_NS USER_NS NAMESPACES
	SECCOMP SECCOMP_FILTER SERIAL_8250 SERIAL_8250_CONSOLE
	BLK_DEV_INITRD RD_GZIP BINFMT_ELF BINFMT_SCRIPT PROC_FS PROC_SYSCTL SYSFS
)

TEST_BINARIES=(sealexec selfcheck fakekernel cbtest-attack memfd-noexec)
HOST_PACKAGES=(qemu-system-x86 busybox-static cpio gzip gcc libc6-dev binutils)

usage() {
	sed -n '4,28p' "$0" | sed 's/^# \{0,1\}//'
	exit "${1:-0}"
}

# A hard stop a little after the soft deadline, in case something hangs
# outside the per-boot timeouts (apt, gcc).  The soft deadline below still
# lets the summary be printed.
if [ -z "${_KTEST_INNER:-}" ]; then
	export _KTEST_INNER=1
	exec timeout -k 10 $((OVERALL_TIMEOUT + 60)) "$BASH" "$0" "$@"
fi
README=0
BUILD_DIR=
while [ $# -gt 0 ]; do
	case $1 in
	--readme) README=1 ;;
	-h | --help) usage 0 ;;
	-*) echo "run.sh: unknown option $1" >&2; usage 2 >&2 ;;
	*)
		[ -n "$BUILD_DIR" ] && { echo "run.sh: one BUILD_DIR only" >&2; exit 2; }
		BUILD_DIR=$1
		;;
	esac
	shift
done
BUILD_DIR=${BUILD_DIR:-$ROOT/build-static}
if [ -d "$BUILD_DIR" ]; then
	BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
else
	case $BUILD_DIR in /*) ;; *) BUILD_DIR=$PWD/$BUILD_DIR ;; esac
fi

START=$(date +%s)
DEADLINE=$((START + OVERALL_TIMEOUT))

# TAP goes to stdout, or to stderr in --readme mode.
if [ "$README" = 1 ]; then exec 3>&2; else exec 3>&1; fi
log() { echo "# $*" >&3; }
die() { echo "run.sh: $*" >&2; exit 1; }

mkdir -p "$OUT" "$CACHE"
# One run at a time: they share the initramfs, the logs and the cache.
exec 9>"$OUT/.lock"
flock -w 300 9 || die "another run.sh holds $OUT/.lock"

# --- host packages, installed only if missing --------------------------------
APT_UPDATED=0
apt_update() {
	[ "$APT_UPDATED" = 1 ] && return 0
	[ "${KTEST_OFFLINE:-0}" = 1 ] && return 1
	log "apt-get update"
	apt-get update -qq >"$OUT/apt-update.log" 2>&1 || {
		log "apt-get update failed, see $OUT/apt-update.log"
		return 1
	}
	APT_UPDATED=1
}
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
missing=()
for p in "${HOST_PACKAGES[@]}"; do installed "$p" || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
	apt_update || die "cannot install ${missing[*]}"
	log "apt-get install ${missing[*]}"
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
		"${missing[@]}" >"$OUT/apt-install.log" 2>&1 ||
		die "apt-get install ${missing[*]} failed, see $OUT/apt-install.log"
fi
BUSYBOX=$(dpkg -L busybox-static | grep -E '/s?bin/busybox$' | head -n 1)
[ -x "$BUSYBOX" ] || die "busybox-static installed but no busybox binary found"

# --- kernels -----------------------------------------------------------------
# resolve_kernel FLAVOR: sets PKG and PKG_VERSION from the metapackage.
resolve_kernel() {
	local meta=${META[$1]} try
	PKG='' PKG_VERSION=''
	[ "${KTEST_OFFLINE:-0}" = 1 ] && return 1
	for try in 1 2; do
		PKG=$(apt-cache depends "$meta" 2>/dev/null |
			awk '$1 ~ /Depends:$/ && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
		[ -n "$PKG" ] && break
		[ "$try" = 1 ] && { apt_update || return 1; }
	done
	[ -n "$PKG" ] || return 1
	PKG_VERSION=$(apt-cache show --no-all-versions "$PKG" 2>/dev/null |
		awk '/^Version:/ { print $2; exit }')
	[ -n "$PKG_VERSION" ]
}

# fetch_kernel FLAVOR: sets KDIR (holding vmlinuz, config, package) and KREL.
fetch_kernel() {
	local flavor=$1 tmp deb
	KDIR='' KREL=''
	if resolve_kernel "$flavor"; then
		KDIR=$CACHE/${PKG}_$PKG_VERSION
		KREL=${PKG#linux-image-}
		if [ -s "$KDIR/vmlinuz" ] && [ -s "$KDIR/config" ]; then
			log "$flavor: $PKG $PKG_VERSION (cached)"
			printf '%s\n' "${PKG}_$PKG_VERSION" >"$CACHE/$flavor.current"
			return 0
		fi
		log "$flavor: $PKG $PKG_VERSION: apt-get download"
		tmp=$(mktemp -d "$CACHE/dl.XXXXXX")
		# The cache is root's; apt's _apt sandbox user could not write it.
		if (cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root \
			"$PKG=$PKG_VERSION") >"$OUT/$flavor-download.log" 2>&1 &&
			deb=$(ls "$tmp"/*.deb) &&
			dpkg-deb --fsys-tarfile "$deb" |
			tar -x -C "$tmp" "./boot/vmlinuz-$KREL" "./boot/config-$KREL"; then
			rm -rf "$KDIR"
			mkdir -p "$KDIR"
			mv "$tmp/boot/config-$KREL" "$KDIR/config"
			printf '%s %s %s\n' "$PKG" "$PKG_VERSION" "$KREL" >"$KDIR/package"
			mv "$tmp/boot/vmlinuz-$KREL" "$KDIR/vmlinuz" # last: marks it complete
			rm -rf "$tmp"
			printf '%s\n' "${PKG}_$PKG_VERSION" >"$CACHE/$flavor.current"
			return 0
		fi
		rm -rf "$tmp"
		log "$flavor: download or extraction failed, see $OUT/$flavor-download.log"
	fi
	# No apt (offline, or the archive changed): fall back to the last cache.
	if [ -s "$CACHE/$flavor.current" ] && [ -s "$CACHE/$(cat "$CACHE/$flavor.current")/vmlinuz" ]; then
		KDIR=$CACHE/$(cat "$CACHE/$flavor.current")
		read -r PKG PKG_VERSION KREL <"$KDIR/package"
		log "$flavor: ${META[$flavor]} not available from apt$([ "${KTEST_OFFLINE:-0}" = 1 ] && echo ' (KTEST_OFFLINE=1)'), using cached $PKG $PKG_VERSION"
		return 0
	fi
	log "$flavor: cannot resolve ${META[$flavor]} and nothing is cached"
	return 1
}

# check_config FILE: prints the problems, empty if none.
check_config() {
	local opt val problems=()
	for opt in "${CONFIG_NEEDED[@]}"; do
		val=$(sed -n "s/^CONFIG_$opt=//p" "$1")
		case $val in
		y) ;;
		m) problems+=("CONFIG_$opt=m (a module; the initramfs has no modules)") ;;
		*) problems+=("CONFIG_$opt is not set") ;;
		esac
	done
	[ ${#problems[@]} -eq 0 ] || printf '%s; ' "${problems[@]}"
}

# --- initramfs ---------------------------------------------------------------
is_static() { ! readelf -lW "$1" 2>/dev/null | grep -q 'Requesting program interpreter'; }

find_binary() { # find_binary NAME: path in BUILD_DIR, shallowest first
	[ -d "$BUILD_DIR" ] || return 0
	find "$BUILD_DIR" -maxdepth 4 -type f -name "$1" -perm -u+x -printf '%d %p\n' 2>/dev/null |
		sort -n | head -n 1 | cut -d' ' -f2-
}

build_initramfs() {
	local ir=$OUT/initramfs name path applet
	rm -rf "$ir" "$OUT/initramfs.cpio.gz"
	mkdir -p "$ir"/{bin,dev,proc,sys,tmp,ktest}

	gcc -static -O2 -Wall -Wextra -Werror -o "$OUT/kprobe" "$SCRIPT_DIR/kprobe.c"
	install -m 0755 "$OUT/kprobe" "$ir/bin/kprobe"
	install -m 0755 "$BUSYBOX" "$ir/bin/busybox"
	for applet in $("$BUSYBOX" --list); do
		[ -e "$ir/bin/$applet" ] || ln -s busybox "$ir/bin/$applet"
	done

	: >"$ir/ktest/binaries.txt"
	for name in "${TEST_BINARIES[@]}"; do
		path=$(find_binary "$name")
		if [ -z "$path" ]; then
			log "binary $name: missing from $BUILD_DIR"
			echo "$name not found in BUILD_DIR" >>"$ir/ktest/binaries.txt"
		elif ! is_static "$path"; then
			log "binary $name: $path is dynamically linked, not copied (build with -DBUILD_STATIC=ON)"
			echo "$name $path is dynamically linked" >>"$ir/ktest/binaries.txt"
		else
			log "binary $name: $path"
			install -m 0755 "$path" "$ir/bin/$name"
			echo "$name present" >>"$ir/ktest/binaries.txt"
		fi
	done

	install -m 0755 "$SCRIPT_DIR/guest.sh" "$ir/ktest/guest.sh"
	cat >"$ir/init" <<-'EOF'
		#!/bin/busybox sh
		export PATH=/bin HOME=/ TERM=dumb
		mount -t proc proc /proc
		mount -t sysfs sysfs /sys
		mount -t devtmpfs devtmpfs /dev
		mount -t tmpfs -o mode=1777,exec,nosuid,nodev tmpfs /tmp
		exec 0</dev/console 1>/dev/console 2>&1
		# Only emergencies on the console, so that kernel messages cannot
		# split the KTEST lines.
		echo 1 > /proc/sys/kernel/printk
		sh /ktest/guest.sh
		sync
		poweroff -f
	EOF
	chmod 0755 "$ir/init"

	(cd "$ir" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc -R 0:0 --quiet) | gzip -1 >"$OUT/initramfs.cpio.gz"
}

# --- results -----------------------------------------------------------------
N=0 PASSED=0 FAILED=0
declare -A RESULT # "$flavor/$check" -> ok | FAIL | n/a
tap() { # tap ok|fail LABEL CHECK [REASON]
	local flavor_label=$2 check=$3
	N=$((N + 1))
	if [ "$1" = ok ]; then
		PASSED=$((PASSED + 1))
		echo "ok $N - $flavor_label: $check" >&3
	else
		FAILED=$((FAILED + 1))
		echo "not ok $N - $flavor_label: $check" >&3
		[ -n "${4:-}" ] && echo "  # ${4}" >&3
	fi
	return 0
}
record() { # record ok|fail FLAVOR LABEL CHECK [REASON]
	local s=$1 flavor=$2
	shift 2
	tap "$s" "$@"
	if [ "$s" = ok ]; then RESULT[$flavor/$2]=ok; else RESULT[$flavor/$2]=FAIL; fi
}

expected_for() {
	local f=$1
	printf '%s\n' "${EXPECT_COMMON[@]}"
	case $f in
	6.1) printf '%s\n' "${EXPECT_6_1[@]}" ;;
	6.12) printf '%s\n' "${EXPECT_6_12[@]}" ;;
	esac
}

declare -A BOOT_TIME GUEST_TIME LABEL
run_kernel() {
	local flavor=$1 label=$1 logf=$OUT/$1.log remaining limit rc t0 t1 up0 up1
	local problems body release name st reason line
	local -A seen=()
	: >"$logf"
	LABEL[$flavor]=$flavor

	if ! fetch_kernel "$flavor"; then
		record fail "$flavor" "$label" host-config "kernel package for ${META[$flavor]} unavailable"
		record fail "$flavor" "$label" host-boot "no kernel"
		record fail "$flavor" "$label" host-end "no kernel"
		record fail "$flavor" "$label" host-poweroff "no kernel"
		while read -r name; do
			record fail "$flavor" "$label" "$name" "missing result (no kernel)"
		done < <(expected_for "$flavor")
		return
	fi
	label=$KREL
	LABEL[$flavor]="$KREL ($PKG_VERSION)"

	problems=$(check_config "$KDIR/config")
	if [ -z "$problems" ]; then
		record ok "$flavor" "$label" host-config
	else
		record fail "$flavor" "$label" host-config "$problems"
	fi

	remaining=$((DEADLINE - $(date +%s)))
	limit=$BOOT_TIMEOUT
	[ "$remaining" -lt "$limit" ] && limit=$remaining
	if [ "$remaining" -lt 10 ]; then
		echo "run.sh: overall timeout of ${OVERALL_TIMEOUT}s reached before booting $flavor" >"$logf"
		rc=124
		BOOT_TIME[$flavor]=-
	else
		t0=$(date +%s.%N)
		set +e
		timeout -k 5 "$limit" qemu-system-x86_64 -accel tcg \
			${KTEST_QEMU_CPU:+-cpu "$KTEST_QEMU_CPU"} \
			-m 512 -smp 1 -nodefaults -display none -no-reboot \
			-serial "file:$logf" \
			-kernel "$KDIR/vmlinuz" -initrd "$OUT/initramfs.cpio.gz" \
			-append "console=ttyS0 panic=-1 quiet rdinit=/init ktest.profile=$flavor" \
			</dev/null >"$OUT/$flavor.qemu.log" 2>&1
		rc=$?
		set -e
		t1=$(date +%s.%N)
		BOOT_TIME[$flavor]=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
	fi

	# The serial log has CRLF line ends.
	body=$(tr -d '\r' <"$logf")
	up0=$(printf '%s\n' "$body" | sed -n 's/^# uptime-begin \([0-9.]*\).*/\1/p' | head -n 1)
	up1=$(printf '%s\n' "$body" | sed -n 's/^# uptime-end \([0-9.]*\).*/\1/p' | head -n 1)
	if [ -n "$up0" ] && [ -n "$up1" ]; then
		GUEST_TIME[$flavor]=$(awk -v a="$up0" -v b="$up1" \
			'BEGIN { printf "%.1fs to the first check, checks %.1fs", a, b - a }')
	else
		GUEST_TIME[$flavor]="no uptime markers"
	fi
	log "$flavor: qemu exited $rc after ${BOOT_TIME[$flavor]}s wall (limit ${limit}s; guest: ${GUEST_TIME[$flavor]}), log $logf"

	release=$(printf '%s\n' "$body" | sed -n 's/.*==KTEST-BEGIN \(.*\)==.*/\1/p' | head -n 1)
	if [ -z "$release" ]; then
		record fail "$flavor" "$label" host-boot "no KTEST-BEGIN marker (qemu exit $rc; see $logf)"
	elif [ "$release" != "$KREL" ]; then
		record fail "$flavor" "$label" host-boot "booted '$release', expected '$KREL'"
	else
		record ok "$flavor" "$label" host-boot
	fi
	if printf '%s\n' "$body" | grep -q '==KTEST-END=='; then
		record ok "$flavor" "$label" host-end
	else
		record fail "$flavor" "$label" host-end "no KTEST-END marker (qemu exit $rc; see $logf)"
	fi
	if [ "$rc" = 0 ]; then
		record ok "$flavor" "$label" host-poweroff
	elif [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
		record fail "$flavor" "$label" host-poweroff "timed out"
	else
		record fail "$flavor" "$label" host-poweroff "qemu exited $rc, see $OUT/$flavor.qemu.log"
	fi

	# Results between the markers.
	local -A got=() why=()
	while IFS= read -r line; do
		line=${line#*KTEST }
		st=${line%% *}
		line=${line#* }
		name=${line%% *}
		reason=
		[ "$line" != "$name" ] && reason=${line#* }
		if [ -n "${got[$name]:-}" ]; then
			got[$name]=dup
		else
			got[$name]=$st
			why[$name]=$reason
		fi
	done < <(printf '%s\n' "$body" | sed -n '/==KTEST-BEGIN /,/==KTEST-END==/p' |
		grep -oE 'KTEST (ok|not-ok) [^ ]+.*' || true)

	while read -r name; do
		seen[$name]=1
		case ${got[$name]:-} in
		ok) record ok "$flavor" "$label" "$name" ;;
		not-ok) record fail "$flavor" "$label" "$name" "${why[$name]}" ;;
		dup) record fail "$flavor" "$label" "$name" "reported more than once" ;;
		*) record fail "$flavor" "$label" "$name" "missing result" ;;
		esac
	done < <(expected_for "$flavor")
	for name in "${!got[@]}"; do
		[ -n "${seen[$name]:-}" ] && continue
		record fail "$flavor" "$label" "$name" "not in the expected list of run.sh"
		EXTRA_CHECKS+=("$name")
	done
}

write_matrix() {
	local f row cell all=()
	declare -A seen_rows=()
	for row in "${HOST_CHECKS[@]}" "${EXPECT_COMMON[@]}" "${EXPECT_6_1[@]}" "${EXPECT_6_12[@]}" "${EXTRA_CHECKS[@]}"; do
		[ -n "${seen_rows[$row]:-}" ] && continue
		seen_rows[$row]=1
		all+=("$row")
	done
	{
		printf '| check |'
		for f in $KERNELS; do printf ' %s |' "${LABEL[$f]:-$f}"; done
		printf '\n|---|'
		for f in $KERNELS; do printf -- '---|'; done
		printf '\n'
		for row in "${all[@]}"; do
			printf '| %s |' "$row"
			for f in $KERNELS; do
				cell=${RESULT[$f/$row]:-n/a}
				printf ' %s |' "$cell"
			done
			printf '\n'
		done
		printf '\nqemu TCG, wall clock per boot including all checks:'
		for f in $KERNELS; do printf ' %s %ss (%s);' "$f" "${BOOT_TIME[$f]:--}" "${GUEST_TIME[$f]:-no guest}"; done
		printf ' %s passed, %s failed. Generated by tests/kernels/run.sh.\n' "$PASSED" "$FAILED"
	} >"$OUT/matrix.md"
}

# --- main --------------------------------------------------------------------
EXTRA_CHECKS=()
for flavor in $KERNELS; do
	[ -n "${META[$flavor]:-}" ] || die "unknown kernel '$flavor' in KTEST_KERNELS (know: ${!META[*]})"
done
echo "TAP version 13" >&3
log "build dir: $BUILD_DIR$([ -d "$BUILD_DIR" ] || echo ' (does not exist)')"
build_initramfs
for flavor in $KERNELS; do
	run_kernel "$flavor"
done
write_matrix
log "serial logs: $OUT/*.log, table: $OUT/matrix.md, total $(($(date +%s) - START))s"
echo "1..$N" >&3
[ "$README" = 1 ] && cat "$OUT/matrix.md"
echo "$PASSED passed, $FAILED failed" >&3
[ "$FAILED" = 0 ]
