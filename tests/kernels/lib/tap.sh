# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Sourced by tests/kernels/run.sh: the checks expected of each kernel, the
# TAP stream (on fd 3) and the matrix ($OUT/matrix.md).  Every expected
# check gets exactly one TAP line per kernel: a check that guest.sh did not
# report, reported twice, or that no kernel could run, fails.
#
# Uses from run.sh: OUT, KERNELS, PASSED/FAILED for the caller's summary;
# from kernels.sh: META; from boot.sh: BOOT_TIME, GUEST_TIME.

# The fixed list of guest checks per kernel; guest.sh must print exactly
# these.  A name missing from the serial log is a failure.
EXPECT_COMMON=(
	boot tmp-exec unshare-pid overlayfs-module
	witness-memfd_create witness-mfd_exec witness-seal_exec
	witness-memfd_noexec witness-o_tmpfile witness-execveat
	witness-fsopen witness-memfd_execveat witness-userns-user
	features-memfd_create features-mfd_exec features-seal_exec
	features-o_tmpfile features-execveat features-memfd_noexec
	features-fsopen
	method-auto method-overlay method-overlay-user
	method-overlay-sweep overlay-stale-dir-swept overlay-fresh-dir-kept
	overlay-emptydir-user-dir-skipped overlay-emptydir-user-dir-untouched
	overlay-emptydir-user-own-dir overlay-emptydir-user-own-dir-swept
	method-overlay-user-nouserns
	method-memfd method-tmpfile fakekernel-nofsopen-method
	fdleak-auto fdleak-tmpfile
	write-attack write-attack-tmpfile write-attack-overlay
	fakekernel-6.1-witness fakekernel-6.1-method
	memfd-noexec-status
	memfd-noexec-run-level2
	overlay-empty-dirs-removed
)
EXPECT_6_1=(ns-no-sysctl)
EXPECT_6_12=(
	ns-noexec-0 ns-noexec-1 ns-noexec-2 ns-noexec-2-write-attack
	ns-noexec-2-memfd-refused
	ns-noexec-3-rejected witness-ns2-mfd_exec witness-ns-hierarchy
	initns-untouched
)
HOST_CHECKS=(host-config host-boot host-end host-poweroff)

N=0 PASSED=0 FAILED=0
declare -A RESULT # "$flavor/$check" -> ok | FAIL | n/a
declare -A LABEL  # flavor -> column heading of the matrix
EXTRA_CHECKS=()   # reported by guest.sh but not expected

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

# record_no_kernel FLAVOR LABEL: every check fails, since there was no
# kernel to boot.
record_no_kernel() {
	local flavor=$1 label=$2 name
	record fail "$flavor" "$label" host-config "kernel package for ${META[$flavor]} unavailable"
	record fail "$flavor" "$label" host-boot "no kernel"
	record fail "$flavor" "$label" host-end "no kernel"
	record fail "$flavor" "$label" host-poweroff "no kernel"
	while read -r name; do
		record fail "$flavor" "$label" "$name" "missing result (no kernel)"
	done < <(expected_for "$flavor")
}

# record_results FLAVOR LABEL SERIAL: one TAP line per expected check from
# the "KTEST ok|not-ok NAME [REASON]" lines between guest.sh's markers,
# then a failure for each unexpected name.
record_results() {
	local flavor=$1 label=$2 name st reason line
	local -A seen=() got=() why=()
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
	done < <(printf '%s\n' "$3" | sed -n '/==KTEST-BEGIN /,/==KTEST-END==/p' |
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

# matrix_rows: every check once, host checks first, in the expected order.
matrix_rows() {
	local row
	local -A seen_rows=()
	for row in "${HOST_CHECKS[@]}" "${EXPECT_COMMON[@]}" "${EXPECT_6_1[@]}" "${EXPECT_6_12[@]}" "${EXTRA_CHECKS[@]}"; do
		[ -n "${seen_rows[$row]:-}" ] && continue
		seen_rows[$row]=1
		printf '%s\n' "$row"
	done
}

write_matrix() {
	local f row cell all=()
	mapfile -t all < <(matrix_rows)
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
