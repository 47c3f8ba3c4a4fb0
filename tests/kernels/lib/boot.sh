# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2034 # its results are read by run.sh and tap.sh
#
# Sourced by tests/kernels/run.sh: boots one kernel under qemu (TCG) with
# its own initramfs (initramfs.sh's kernel_initramfs), its serial console
# written to $OUT/<flavor>.log, within KTEST_BOOT_TIMEOUT and what is left
# of the overall deadline, and judges the boot itself from the serial log's
# markers and qemu's exit status.
#
# Uses from run.sh: OUT, DEADLINE, BOOT_TIMEOUT, OVERALL_TIMEOUT,
# KTEST_QEMU_CPU; from kernels.sh: KDIR, KREL; from tap.sh: record.

declare -A BOOT_TIME GUEST_TIME

# boot_kernel FLAVOR: sets BOOT_RC (qemu's exit status, 124 or 137 on a
# timeout), BOOT_LIMIT (seconds allowed) and BOOT_TIME[FLAVOR] (wall
# clock, "-" if there was no time left to boot).
boot_kernel() {
	local flavor=$1 logf=$OUT/$1.log remaining t0 t1
	remaining=$((DEADLINE - $(date +%s)))
	BOOT_LIMIT=$BOOT_TIMEOUT
	[ "$remaining" -lt "$BOOT_LIMIT" ] && BOOT_LIMIT=$remaining
	if [ "$remaining" -lt 10 ]; then
		echo "run.sh: overall timeout of ${OVERALL_TIMEOUT}s reached before booting $flavor" >"$logf"
		BOOT_RC=124
		BOOT_TIME[$flavor]=-
		return 0
	fi
	t0=$(date +%s.%N)
	set +e
	timeout -k 5 "$BOOT_LIMIT" qemu-system-x86_64 -accel tcg \
		${KTEST_QEMU_CPU:+-cpu "$KTEST_QEMU_CPU"} \
		-m 512 -smp 1 -nodefaults -display none -no-reboot \
		-serial "file:$logf" \
		-kernel "$KDIR/vmlinuz" -initrd "$OUT/initramfs-$flavor.cpio.gz" \
		-append "console=ttyS0 panic=-1 quiet rdinit=/init ktest.profile=$flavor" \
		</dev/null >"$OUT/$flavor.qemu.log" 2>&1
	BOOT_RC=$?
	set -e
	t1=$(date +%s.%N)
	BOOT_TIME[$flavor]=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
}

# guest_times FLAVOR SERIAL: sets GUEST_TIME[FLAVOR] from the guest's
# uptime markers.
guest_times() {
	local up0 up1
	up0=$(printf '%s\n' "$2" | sed -n 's/^# uptime-begin \([0-9.]*\).*/\1/p' | head -n 1)
	up1=$(printf '%s\n' "$2" | sed -n 's/^# uptime-end \([0-9.]*\).*/\1/p' | head -n 1)
	if [ -n "$up0" ] && [ -n "$up1" ]; then
		GUEST_TIME[$1]=$(awk -v a="$up0" -v b="$up1" \
			'BEGIN { printf "%.1fs to the first check, checks %.1fs", a, b - a }')
	else
		GUEST_TIME[$1]="no uptime markers"
	fi
}

# record_boot FLAVOR LABEL RC SERIAL: host-boot (the right kernel started
# guest.sh), host-end (guest.sh finished) and host-poweroff (qemu, exit
# status RC, powered off by itself in time).
record_boot() {
	local flavor=$1 label=$2 rc=$3 logf=$OUT/$1.log release
	release=$(printf '%s\n' "$4" | sed -n 's/.*==KTEST-BEGIN \(.*\)==.*/\1/p' | head -n 1)
	if [ -z "$release" ]; then
		record fail "$flavor" "$label" host-boot "no KTEST-BEGIN marker (qemu exit $rc; see $logf)"
	elif [ "$release" != "$KREL" ]; then
		record fail "$flavor" "$label" host-boot "booted '$release', expected '$KREL'"
	else
		record ok "$flavor" "$label" host-boot
	fi
	if printf '%s\n' "$4" | grep -q '==KTEST-END=='; then
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
}
