# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Sourced by tests/kernels/run.sh: builds $OUT/initramfs.cpio.gz, a busybox
# userland with kprobe (built here), the static test binaries found in
# BUILD_DIR, tests/kernels/guest.sh, an unprivileged user and an /init that
# runs it and powers off.  A binary that is missing or dynamically linked is
# left out and named in /ktest/binaries.txt, so that the guest fails the
# checks that need it.  Each kernel then boots
# $OUT/initramfs-<flavor>.cpio.gz: that archive followed by a second one
# with the kernel's own overlay.ko.
#
# Uses from run.sh: OUT, SCRIPT_DIR, BUILD_DIR, BUSYBOX, log; from
# kernels.sh: KDIR, KREL.

# The unprivileged user of the guest checks, and the wrapper that runs a
# command as that user (busybox has no setpriv --reuid; su works as root).
KTEST_UID=1000

TEST_BINARIES=(sealexec selfcheck fakekernel cbtest-attack memfd-noexec)

# (Not readelf | grep -q: under run.sh's pipefail, readelf's SIGPIPE after
# grep's match would turn a dynamic binary into a static one.)
is_static() {
	local headers
	headers=$(readelf -lW "$1" 2>/dev/null) || true
	! grep -q 'Requesting program interpreter' <<<"$headers"
}

find_binary() { # find_binary NAME: path in BUILD_DIR, shallowest first
	[ -d "$BUILD_DIR" ] || return 0
	find "$BUILD_DIR" -maxdepth 4 -type f -name "$1" -perm -u+x -printf '%d %p\n' 2>/dev/null |
		sort -n | head -n 1 | cut -d' ' -f2-
}

# initramfs_tools DIR: kprobe, busybox and a link for each applet.
initramfs_tools() {
	local ir=$1 applet
	gcc -static -O2 -Wall -Wextra -Werror -o "$OUT/kprobe" "$SCRIPT_DIR/kprobe.c"
	install -m 0755 "$OUT/kprobe" "$ir/bin/kprobe"
	install -m 0755 "$BUSYBOX" "$ir/bin/busybox"
	for applet in $("$BUSYBOX" --list); do
		[ -e "$ir/bin/$applet" ] || ln -s busybox "$ir/bin/$applet"
	done
}

# initramfs_user DIR: /etc/passwd and /etc/group with root and ktest, and
# /bin/asuser CMD [ARG...], which runs CMD as ktest after printing
# "asuser: uid=U gid=G" to stderr.
initramfs_user() {
	local ir=$1
	mkdir -p "$ir/etc"
	printf 'root:x:0:0:root:/:/bin/sh\nktest:x:%s:%s:ktest:/:/bin/sh\n' \
		"$KTEST_UID" "$KTEST_UID" >"$ir/etc/passwd"
	printf 'root:x:0:\nktest:x:%s:\n' "$KTEST_UID" >"$ir/etc/group"
	# "--" ends su's options: the command's own come after it.
	cat >"$ir/bin/asuser" <<-'ASUSER'
		#!/bin/sh
		exec su -s /bin/sh ktest -c \
			'echo "asuser: uid=$(id -u) gid=$(id -g)" >&2; exec "$0" "$@"' -- "$@"
	ASUSER
	chmod 0755 "$ir/bin/asuser"
}

# initramfs_binaries DIR: the static TEST_BINARIES, and binaries.txt
# saying which are there.
initramfs_binaries() {
	local ir=$1 name path
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
}

# initramfs_init DIR: /init mounts the basics and runs guest.sh on the
# serial console.
initramfs_init() {
	local ir=$1
	cat >"$ir/init" <<-'INIT'
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
	INIT
	chmod 0755 "$ir/init"
}

build_initramfs() {
	local ir=$OUT/initramfs
	rm -rf "$ir" "$OUT/initramfs.cpio.gz"
	mkdir -p "$ir"/{bin,dev,proc,sys,tmp,ktest}
	initramfs_tools "$ir"
	initramfs_binaries "$ir"
	install -m 0755 "$SCRIPT_DIR/guest.sh" "$ir/ktest/guest.sh"
	initramfs_init "$ir"
	initramfs_user "$ir"
	(cd "$ir" && find . -print0 | LC_ALL=C sort -z |
		cpio --null -o -H newc -R 0:0 --quiet) | gzip -1 >"$OUT/initramfs.cpio.gz"
}

# kernel_initramfs FLAVOR: $OUT/initramfs-FLAVOR.cpio.gz, the common
# archive followed by one holding /ktest/modules/overlay.ko from KDIR, or,
# where it is missing, /ktest/modules/missing saying why (the kernel
# unpacks each archive in turn).
kernel_initramfs() {
	local flavor=$1 dir=$OUT/modules-$1
	rm -rf "$dir"
	mkdir -p "$dir/ktest/modules"
	if [ -s "$KDIR/overlay.ko" ]; then
		install -m 0644 "$KDIR/overlay.ko" "$dir/ktest/modules/overlay.ko"
	elif ! overlay_is_module "$KDIR/config"; then
		echo "$KREL: overlayfs is not a module here" >"$dir/ktest/modules/missing"
	else
		echo "$KREL: overlayfs is a module, but the cache $KDIR has no overlay.ko" \
			>"$dir/ktest/modules/missing"
		log "$flavor: no overlay.ko in $KDIR, the overlay checks will fail"
	fi
	{
		cat "$OUT/initramfs.cpio.gz"
		(cd "$dir" && find . -print0 | LC_ALL=C sort -z |
			cpio --null -o -H newc -R 0:0 --quiet) | gzip -1
	} >"$OUT/initramfs-$flavor.cpio.gz"
}
