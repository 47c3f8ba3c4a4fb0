#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
#
# Guest side of the real-kernel matrix (tests/kernels/run.sh).  Runs inside
# the qemu initramfs under busybox sh, as PID 1's child, and prints
#
#   ==KTEST-BEGIN <kernel-release>==
#   KTEST ok <name>
#   KTEST not-ok <name> <reason>
#   ==KTEST-END==
#
# Every other line is a diagnostic and is ignored by the host.  The list of
# checks is fixed per profile (ktest.profile=6.1|6.12 on the kernel command
# line) and must match EXPECT_* in lib/tap.sh: a check whose binary is missing
# prints not-ok, it is never skipped.
#
# vm.memfd_noexec is only ever written inside `unshare --pid --fork`, never
# in the guest's initial PID namespace.
#
# shellcheck disable=SC2016,SC2034,SC2154
# (single quotes are for `sh -c`; E_* are read through eval)

PATH=/bin
export PATH
unset SEALEXEC_DEBUG SEALEXEC_TMPDIR MEMFD_TOOLKIT_FEATURES

SYSCTL=/proc/sys/vm/memfd_noexec
T=30 # per-command timeout, seconds

PROFILE=
for arg in $(cat /proc/cmdline); do
	case $arg in
	ktest.profile=*) PROFILE=${arg#ktest.profile=} ;;
	esac
done

ok() { echo "KTEST ok $1"; }
notok() {
	_n=$1
	shift
	_r=$(printf '%s' "$*" | tr '\n\t\r' '   ' | cut -c1-240)
	echo "KTEST not-ok $_n ${_r:-failed}"
}
# Diagnostics: the captured output of a failed command, indented.
diag() { printf '%s\n' "$1" | head -n 30 | sed 's/^/#   /'; }

# The host writes one line per wanted binary: NAME present|REASON...
binary_state() {
	sed -n "s/^$1 //p" /ktest/binaries.txt 2>/dev/null | head -n 1
}
# need CHECK BINARY...: true if every binary is in the initramfs, else
# reports CHECK as not-ok.
need() {
	_c=$1
	shift
	for _b in "$@"; do
		if [ ! -x "/bin/$_b" ]; then
			_s=$(binary_state "$_b")
			notok "$_c" "missing binary $_b (${_s:-not found in BUILD_DIR})"
			return 1
		fi
	done
	return 0
}

# run CMD...: sets OUT (stdout+stderr) and RC.
run() {
	OUT=$(timeout "$T" "$@" 2>&1)
	RC=$?
}

# ns_run N CMD...: run CMD as PID 1 of a fresh PID namespace whose
# vm.memfd_noexec was set to N first (exit 99 if it could not be set).
ns_run() {
	_v=$1
	shift
	run unshare --pid --fork sh -c \
		'echo "$0" > /proc/sys/vm/memfd_noexec || exit 99; exec "$@"' "$_v" "$@"
}

field() { # field NAME TEXT: value of a "NAME: value" line
	printf '%s\n' "$2" | sed -n "s/^$1: *//p" | head -n 1 | tr -d ' '
}
kfield() { printf '%s\n' "$2" | sed -n "s/^kprobe: $1: //p" | head -n 1; }

expect_eq() { # expect_eq CHECK WHAT ACTUAL EXPECTED
	if [ "$3" = "$4" ]; then
		ok "$1"
	else
		notok "$1" "$2 is '${3:-<none>}', expected '$4'"
	fi
}

# Expected kernel facts per profile.
case $PROFILE in
6.1)
	E_memfd_create=yes E_mfd_exec=no E_seal_exec=no E_o_tmpfile=yes
	E_execveat=yes E_memfd_noexec=absent
	AUTO=memfd AUTO_SEALS=0xf MEMFD=memfd MEMFD_SEALS=0xf
	;;
6.12)
	E_memfd_create=yes E_mfd_exec=yes E_seal_exec=yes E_o_tmpfile=yes
	E_execveat=yes E_memfd_noexec=0
	AUTO=memfd-exec AUTO_SEALS=0x2f MEMFD=memfd-exec MEMFD_SEALS=0x2f
	;;
*)
	echo "==KTEST-BEGIN $(uname -r)=="
	notok boot "unknown ktest.profile '$PROFILE' on the kernel command line"
	echo "==KTEST-END=="
	exit 1
	;;
esac

# method_check CHECK EXPECTED_MARKER SEAL_MASK|- SEALEXEC_ARGS... -- [NS]
# Runs `sealexec --debug ARGS selfcheck --strict-fds --expect-method=M [--expect-seals=S]`
# (inside a PID namespace with vm.memfd_noexec=NS when NS is given) and
# asserts exit 0, exactly one "cloned_binary: using M" marker, no selfcheck
# FAIL line, and (seals & SEAL_MASK) == SEAL_MASK.  $WRAP, if set, is a
# command prefix (its first word a binary that must exist).
method_check() {
	_c=$1 _m=$2 _mask=$3
	shift 3
	_args=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		_args="$_args $1"
		shift
	done
	[ "${1:-}" = -- ] && shift
	_ns=${1:-}
	need "$_c" sealexec selfcheck ${WRAP:+${WRAP%% *}} || return
	set -- ${WRAP:-} sealexec --debug $_args -- selfcheck --strict-fds "--expect-method=$_m"
	[ "$_mask" != - ] && set -- "$@" "--expect-seals=$_mask"
	if [ -n "$_ns" ]; then
		ns_run "$_ns" "$@"
	else
		run "$@"
	fi
	_markers=$(printf '%s\n' "$OUT" | grep -o 'cloned_binary: using [a-z-]*' | sed 's/.* using //')
	_nmarkers=$(printf '%s\n' "$_markers" | grep -c .)
	_seals=$(printf '%s\n' "$OUT" | sed -n 's/^selfcheck: exe=.* seals=\(0x[0-9a-fA-F]*\) .*/\1/p' | head -n 1)
	_fail=$(printf '%s\n' "$OUT" | grep 'selfcheck: FAIL' | head -n 3)
	if [ "$RC" = 99 ] && [ -n "$_ns" ]; then
		notok "$_c" "could not set vm.memfd_noexec=$_ns in a child PID namespace"
	elif [ "$_nmarkers" != 1 ]; then
		notok "$_c" "expected one marker 'cloned_binary: using $_m', got $_nmarkers: $_markers (exit $RC)"
	elif [ "$_markers" != "$_m" ]; then
		notok "$_c" "marker says '$_markers', expected '$_m' (exit $RC)"
	elif [ -n "$_fail" ]; then
		notok "$_c" "$_fail"
	elif [ "$RC" != 0 ]; then
		notok "$_c" "sealexec selfcheck exited $RC"
	elif [ "$_mask" != - ] && [ -z "$_seals" ]; then
		notok "$_c" "selfcheck printed no seals= value"
	elif [ "$_mask" != - ] && [ $((_seals & _mask)) -ne $((_mask)) ]; then
		notok "$_c" "seals $_seals lack $_mask"
	else
		ok "$_c"
		echo "#   $(printf '%s\n' "$OUT" | grep 'selfcheck: exe=' | head -n 1)"
		return
	fi
	diag "$OUT"
}

echo "==KTEST-BEGIN $(uname -r)=="
echo "# uptime-begin $(cut -d' ' -f1 /proc/uptime)"
echo "# profile $PROFILE, cmdline: $(cat /proc/cmdline)"

# --- the environment itself ------------------------------------------------
if [ -n "$(uname -r)" ]; then ok boot; else notok boot "uname -r is empty"; fi

if ! grep -q '^[^ ]* /tmp tmpfs ' /proc/mounts; then
	notok tmp-exec "/tmp is not a tmpfs"
elif grep '^[^ ]* /tmp tmpfs ' /proc/mounts | grep -q noexec; then
	notok tmp-exec "/tmp is mounted noexec"
elif ! cp /bin/kprobe /tmp/kprobe-exec 2>/dev/null; then
	notok tmp-exec "cannot copy kprobe to /tmp"
else
	run /tmp/kprobe-exec --ping
	if [ "$RC" = 42 ]; then ok tmp-exec; else notok tmp-exec "exec from /tmp gave $RC: $OUT"; fi
	rm -f /tmp/kprobe-exec
fi

run unshare --pid --fork sh -c 'echo $$'
if [ "$RC" = 0 ] && [ "$OUT" = 1 ]; then
	ok unshare-pid
else
	notok unshare-pid "unshare --pid --fork: exit $RC, pid '$OUT' (want 1)"
fi

# --- independent witness: kprobe --------------------------------------------
run kprobe
KP=$OUT
printf '%s\n' "$KP" | sed 's/^/#   /'
for f in memfd_create mfd_exec seal_exec memfd_noexec o_tmpfile execveat; do
	eval "_e=\$E_$f"
	if [ "$RC" != 0 ]; then
		notok "witness-$f" "kprobe exited $RC"
	else
		expect_eq "witness-$f" "kprobe $f" "$(kfield "$f" "$KP")" "$_e"
	fi
done
expect_eq witness-memfd_execveat "kprobe memfd_execveat" "$(kfield memfd_execveat "$KP")" yes

# --- sealexec --features ----------------------------------------------------
if [ -x /bin/sealexec ]; then
	run sealexec --features
	FE=$OUT FE_RC=$RC
	printf '%s\n' "$FE" | sed 's/^/#   /'
fi
for f in memfd_create mfd_exec seal_exec o_tmpfile execveat memfd_noexec; do
	need "features-$f" sealexec || continue
	eval "_e=\$E_$f"
	_got=$(field "$f" "$FE")
	# The sysctl is a yes/no feature there, and its value the "level".
	if [ "$f" = memfd_noexec ]; then
		_got="$_got/$(field level "$FE" | sed 's/(.*//')"
		case $_e in absent) _e=no/none ;; *) _e=yes/$_e ;; esac
	fi
	if [ "$FE_RC" != 0 ]; then
		notok "features-$f" "sealexec --features exited $FE_RC"
	else
		expect_eq "features-$f" "sealexec --features $f" "$_got" "$_e"
	fi
done

# --- sealexec + selfcheck, each method ---------------------------------------
method_check method-auto "$AUTO" "$AUTO_SEALS" --method=auto
method_check method-memfd "$MEMFD" "$MEMFD_SEALS" --method=memfd
method_check method-tmpfile tmpfile - --method=tmpfile

# --- fd leaks and clone state, witnessed by kprobe --self ---------------------
# The control run (not through sealexec) must show no leaked fd, so that a
# leak seen through sealexec is sealexec's and not this shell's.
run kprobe --self
CONTROL_LEAKS=$(printf '%s\n' "$OUT" | grep 'leaked fd')
for m in auto tmpfile; do
	need "fdleak-$m" sealexec || continue
	if [ -n "$CONTROL_LEAKS" ]; then
		notok "fdleak-$m" "the test harness itself leaks fds: $CONTROL_LEAKS"
		continue
	fi
	run sealexec "--method=$m" -- kprobe --self
	if [ "$RC" = 0 ]; then
		ok "fdleak-$m"
		echo "#   $(printf '%s\n' "$OUT" | grep 'exe=' | head -n 1)"
	else
		notok "fdleak-$m" "$(printf '%s\n' "$OUT" | grep -E 'FAIL|rror' | head -n 3) (exit $RC)"
		diag "$OUT"
	fi
done

# --- the CVE-2019-5736 style overwrite attack ---------------------------------
# attack CHECK [NS] -- SEALEXEC_ARGS...: cbtest-attack against
# `sealexec ARGS -- /tmp/victim/selfcheck --hold`; the victim file must not
# change.
# With NS, inside a PID namespace (with its own /proc, since the attacker
# uses the pid that selfcheck prints) at vm.memfd_noexec=NS.
attack() {
	_c=$1
	shift
	_ns=
	[ "$1" != -- ] && { _ns=$1; shift; }
	shift
	need "$_c" cbtest-attack sealexec selfcheck || return
	# A fresh victim for each attack, so that a successful one cannot
	# damage /bin/selfcheck for the checks after it.
	rm -rf /tmp/victim && mkdir /tmp/victim && cp /bin/selfcheck /tmp/victim/selfcheck
	set -- cbtest-attack /tmp/victim/selfcheck -- sealexec "$@" -- /tmp/victim/selfcheck --hold
	if [ -n "$_ns" ]; then
		run unshare --pid --fork --mount-proc sh -c \
			'echo "$0" > /proc/sys/vm/memfd_noexec || exit 99; exec "$@"' "$_ns" "$@"
	else
		run "$@"
	fi
	if [ "$RC" = 0 ] && printf '%s\n' "$OUT" | grep -q '^attack: defeated'; then
		ok "$_c"
		echo "#   $(printf '%s\n' "$OUT" | grep 'selfcheck: exe=' | head -n 1)"
	else
		notok "$_c" "exit $RC: $(printf '%s\n' "$OUT" | grep -E 'FAIL|rror' | head -n 3)"
		diag "$OUT"
	fi
}
attack write-attack -- --method=auto
attack write-attack-tmpfile -- --method=tmpfile

# --- fakekernel fidelity -----------------------------------------------------
# fakekernel --kernel=6.1 must make any kernel look like the real 6.1: these
# are kprobe's answers on the real 6.1 (this check runs there too, so the
# list is verified against the real thing in every run).
FK61="memfd_create=yes mfd_exec=no mfd_exec_create=EINVAL memfd_default_mode=0777
memfd_default_seals=0x0 seal_exec=no memfd_noexec=absent o_tmpfile=yes
execveat=yes memfd_execveat=yes"
if need fakekernel-6.1-witness fakekernel; then
	run fakekernel --kernel=6.1 -- kprobe
	_bad=
	for kv in $FK61; do
		_v=$(kfield "${kv%%=*}" "$OUT")
		[ "$_v" = "${kv#*=}" ] || _bad="$_bad ${kv%%=*}='$_v'(want ${kv#*=})"
	done
	if [ "$RC" != 0 ]; then
		notok fakekernel-6.1-witness "fakekernel --kernel=6.1 -- kprobe exited $RC: $(printf '%s\n' "$OUT" | tail -n 1)"
	elif [ -n "$_bad" ]; then
		notok fakekernel-6.1-witness "differs from the real 6.1:$_bad"
	else
		ok fakekernel-6.1-witness
	fi
fi
WRAP="fakekernel --kernel=6.1 --" method_check fakekernel-6.1-method memfd 0xf

# --- memfd-noexec status and run (the per-container policy) ------------------
if need memfd-noexec-status memfd-noexec; then
	run memfd-noexec status
	case $PROFILE in
	6.1) want='mfd_exec: no
seal_exec: no
memfd_noexec: no
semantics: absent' ;;
	6.12) want='mfd_exec: yes
seal_exec: yes
memfd_noexec: yes
level: 0
pid_namespace: initial
semantics: hierarchy' ;;
	esac
	_bad=
	printf '%s\n' "$want" >/tmp/status.want
	while IFS= read -r _l; do
		printf '%s\n' "$OUT" | grep -qF -- "$_l" || _bad="$_bad [$_l]"
	done </tmp/status.want
	if [ "$RC" = 0 ] && [ -z "$_bad" ]; then
		ok memfd-noexec-status
	else
		notok memfd-noexec-status "exit $RC, lacks:$_bad; got: $OUT"
	fi
fi

# run --level 2 either enforces the level (6.12) or fails closed without
# running the command (6.1, no sysctl).
if need memfd-noexec-run-level2 memfd-noexec sealexec selfcheck; then
	run memfd-noexec run --level 2 -- sh -c 'cat /proc/sys/vm/memfd_noexec; sealexec --debug selfcheck'
	case $PROFILE in
	6.1)
		if [ "$RC" = 125 ] && ! printf '%s\n' "$OUT" | grep -q selfcheck: &&
			printf '%s\n' "$OUT" | grep -q 'needs Linux 6.3'; then
			ok memfd-noexec-run-level2
		else
			notok memfd-noexec-run-level2 "want a closed failure (125, needs Linux 6.3), got exit $RC: $OUT"
		fi
		;;
	6.12)
		if [ "$RC" = 0 ] && [ "$(printf '%s\n' "$OUT" | head -n 1)" = 2 ] &&
			printf '%s\n' "$OUT" | grep -qx 'cloned_binary: using tmpfile' &&
			printf '%s\n' "$OUT" | grep -q '^selfcheck: ok'; then
			ok memfd-noexec-run-level2
		else
			notok memfd-noexec-run-level2 "want level 2 and a tmpfile clone, got exit $RC: $OUT"
		fi
		;;
	esac
fi

# --- vm.memfd_noexec, only ever in child PID namespaces ------------------------
if [ "$PROFILE" = 6.1 ]; then
	run unshare --pid --fork sh -c \
		'test ! -e /proc/sys/vm/memfd_noexec || exit 3; (echo 2 > /proc/sys/vm/memfd_noexec) 2>/dev/null && exit 4; exec kprobe'
	if [ "$RC" = 0 ] && [ "$(kfield memfd_noexec "$OUT")" = absent ]; then
		ok ns-no-sysctl
	else
		notok ns-no-sysctl "in a child PID namespace: exit $RC (3: file exists, 4: write succeeded), kprobe says '$(kfield memfd_noexec "$OUT")'"
	fi
fi

if [ "$PROFILE" = 6.12 ]; then
	method_check ns-noexec-0 memfd-exec 0x2f -- 0
	method_check ns-noexec-1 memfd-exec 0x2f -- 1
	method_check ns-noexec-2 tmpfile - -- 2
	attack ns-noexec-2-write-attack 2 --

	if need ns-noexec-2-memfd-refused sealexec selfcheck; then
		ns_run 2 sealexec --debug --method=memfd -- selfcheck
		if [ "$RC" = 99 ]; then
			notok ns-noexec-2-memfd-refused "could not set vm.memfd_noexec=2 in a child PID namespace"
		elif [ "$RC" = 0 ] || printf '%s\n' "$OUT" | grep -q 'selfcheck: exe='; then
			notok ns-noexec-2-memfd-refused "--method=memfd ran the program under vm.memfd_noexec=2 (exit $RC)"
			diag "$OUT"
		else
			ok ns-noexec-2-memfd-refused
			echo "#   exit $RC: $(printf '%s\n' "$OUT" | tail -n 1)"
		fi
	fi

	run unshare --pid --fork sh -c \
		'echo 3 > /proc/sys/vm/memfd_noexec; r=$?; cat /proc/sys/vm/memfd_noexec; exit $r'
	if [ "$RC" != 0 ] && [ "$(printf '%s\n' "$OUT" | tail -n 1)" = 0 ]; then
		ok ns-noexec-3-rejected
	else
		notok ns-noexec-3-rejected "writing 3: exit $RC, value now '$(printf '%s\n' "$OUT" | tail -n 1)'"
	fi

	ns_run 2 kprobe
	_x=$(kfield mfd_exec_create "$OUT") _md=$(kfield memfd_default_mode "$OUT")
	_s=$(kfield memfd_default_seals "$OUT") _v=$(kfield memfd_noexec "$OUT")
	if [ "$RC" != 0 ]; then
		notok witness-ns2-mfd_exec "kprobe in a namespace at 2 exited $RC"
	elif [ "$_v" != 2 ] || [ "$_x" != EACCES ] || [ "$_md" != 0666 ] || [ $((${_s:-0} & 0x20)) = 0 ]; then
		notok witness-ns2-mfd_exec "at 2: sysctl=$_v MFD_EXEC=$_x (want EACCES) mode=$_md (want 0666) seals=$_s (want 0x20)"
	else
		ok witness-ns2-mfd_exec
	fi

	run unshare --pid --fork sh -c \
		'echo 2 > /proc/sys/vm/memfd_noexec || exit 99
		 unshare --pid --fork sh -c "echo 1 > /proc/sys/vm/memfd_noexec" 2>/dev/null && exit 98
		 exec unshare --pid --fork cat /proc/sys/vm/memfd_noexec'
	if [ "$RC" = 0 ] && [ "$OUT" = 2 ]; then
		ok witness-ns-hierarchy
	else
		notok witness-ns-hierarchy "child at 2: grandchild lowering to 1 (98: allowed) or reading (want 2): exit $RC, '$OUT'"
	fi

	_v=$(cat "$SYSCTL" 2>&1)
	expect_eq initns-untouched "vm.memfd_noexec in the initial PID namespace" "$_v" 0
fi

echo "# uptime-end $(cut -d' ' -f1 /proc/uptime)"
echo "==KTEST-END=="
