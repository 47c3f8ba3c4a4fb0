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
# in the guest's initial PID namespace.  kernel.unprivileged_userns_clone is
# switched off for one check and back on (the guest is thrown away anyway).
#
# shellcheck disable=SC2016,SC2034,SC2154
# (single quotes are for `sh -c`; E_* are read through eval)

PATH=/bin
export PATH
unset SEALEXEC_DEBUG SEALEXEC_TMPDIR MEMFD_TOOLKIT_FEATURES

SYSCTL=/proc/sys/vm/memfd_noexec
T=30 # per-command timeout, seconds
KTEST_UID=1000 # the unprivileged user that /bin/asuser runs commands as

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
	E_execveat=yes E_memfd_noexec=absent E_fsopen=yes E_userns_user=yes
	AUTO=overlay AUTO_SEALS=- MEMFD=memfd MEMFD_SEALS=0xf
	;;
6.12)
	E_memfd_create=yes E_mfd_exec=yes E_seal_exec=yes E_o_tmpfile=yes
	E_execveat=yes E_memfd_noexec=0 E_fsopen=yes E_userns_user=yes
	AUTO=overlay AUTO_SEALS=- MEMFD=memfd-exec MEMFD_SEALS=0x2f
	;;
*)
	echo "==KTEST-BEGIN $(uname -r)=="
	notok boot "unknown ktest.profile '$PROFILE' on the kernel command line"
	echo "==KTEST-END=="
	exit 1
	;;
esac

# method_verdict M SEAL_MASK|- NS: why the run in OUT/RC failed
# method_check's promises, on stdout; nothing if it kept them.
method_verdict() {
	_markers=$(printf '%s\n' "$OUT" | grep -o 'cloned_binary: using [a-z-]*' | sed 's/.* using //')
	_nmarkers=$(printf '%s\n' "$_markers" | grep -c .)
	_seals=$(printf '%s\n' "$OUT" | sed -n 's/^selfcheck: exe=.* seals=\(0x[0-9a-fA-F]*\) .*/\1/p' | head -n 1)
	_fail=$(printf '%s\n' "$OUT" | grep 'selfcheck: FAIL' | head -n 3)
	if [ "$RC" = 99 ] && [ -n "$3" ]; then
		echo "could not set vm.memfd_noexec=$3 in a child PID namespace"
	elif [ "$_nmarkers" != 1 ]; then
		echo "expected one marker 'cloned_binary: using $1', got $_nmarkers: $_markers (exit $RC)"
	elif [ "$_markers" != "$1" ]; then
		echo "marker says '$_markers', expected '$1' (exit $RC)"
	elif [ -n "$_fail" ]; then
		echo "$_fail"
	elif [ "$RC" != 0 ]; then
		echo "sealexec selfcheck exited $RC"
	elif [ "$2" != - ] && [ -z "$_seals" ]; then
		echo "selfcheck printed no seals= value"
	elif [ "$2" != - ] && [ $((_seals & $2)) -ne $(($2)) ]; then
		echo "seals $_seals lack $2"
	elif [ -n "${MUST:-}" ] && ! printf '%s\n' "$OUT" | grep -qF -- "$MUST"; then
		echo "no line with '$MUST' (exit $RC)"
	fi
}

# method_check CHECK EXPECTED_MARKER SEAL_MASK|- SEALEXEC_ARGS... -- [NS]
# Runs `sealexec --debug ARGS selfcheck --strict-fds --expect-method=M
# --expect-same=/bin/selfcheck [--expect-seals=S]` (inside a PID namespace
# with vm.memfd_noexec=NS when NS is given) and asserts exit 0, exactly one
# "cloned_binary: using M" marker, no selfcheck FAIL line, (seals &
# SEAL_MASK) == SEAL_MASK and, if $MUST is set, a line containing $MUST.
# $WRAP, if set, is a command prefix (its first word a binary that must
# exist).
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
	set -- ${WRAP:-} sealexec --debug $_args -- selfcheck --strict-fds \
		"--expect-method=$_m" --expect-same=/bin/selfcheck
	[ "$_mask" != - ] && set -- "$@" "--expect-seals=$_mask"
	if [ -n "$_ns" ]; then
		ns_run "$_ns" "$@"
	else
		run "$@"
	fi
	_why=$(method_verdict "$_m" "$_mask" "$_ns")
	if [ -z "$_why" ]; then
		ok "$_c"
		echo "#   $(printf '%s\n' "$OUT" | grep 'selfcheck: exe=' | head -n 1)"
	else
		notok "$_c" "$_why"
		diag "$OUT"
		# overlayfs says why it refused a layer only in the kernel log.
		if printf '%s\n' "$OUT" | grep -q 'overlay not possible'; then
			diag "$(dmesg | grep -i overlay | tail -n 3)"
		fi
	fi
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

# --- overlayfs: the module, loaded before any check that may use it ----------
# Debian's cloud kernels build overlayfs as a module; run.sh puts the
# kernel's own overlay.ko into /ktest/modules (or says in
# /ktest/modules/missing why not).  Nothing loads it on demand here (no
# /sbin/modprobe), so without it every overlay check fails: none is skipped.
OVL_KO=/ktest/modules/overlay.ko
if [ -e "$OVL_KO" ]; then
	run insmod "$OVL_KO"
	if [ "$RC" != 0 ]; then
		notok overlayfs-module "insmod $OVL_KO exited $RC: $OUT"
	elif ! grep -qw overlay /proc/filesystems; then
		notok overlayfs-module "insmod $OVL_KO worked but /proc/filesystems lacks overlay"
	else
		ok overlayfs-module
	fi
elif grep -qw overlay /proc/filesystems; then
	ok overlayfs-module
	echo "#   overlayfs is built in"
else
	notok overlayfs-module "no overlayfs: $(cat /ktest/modules/missing 2>/dev/null || echo "no $OVL_KO")"
fi
for _f in /proc/sys/kernel/unprivileged_userns_clone /proc/sys/user/max_user_namespaces; do
	echo "# $_f: $(cat "$_f" 2>&1)"
done

# The no-fsopen kernel for the fallback checks: fakekernel's profile, where
# this fakekernel has it, else the same as one fail rule.
NOFSOPEN="fakekernel --fail=fsopen=ENOSYS --"
if [ -x /bin/fakekernel ] && fakekernel --list 2>/dev/null | grep -q '^nofsopen '; then
	NOFSOPEN="fakekernel --kernel=nofsopen --"
fi
echo "# no-fsopen wrapper: $NOFSOPEN"

# --- independent witness: kprobe --------------------------------------------
run kprobe
KP=$OUT
printf '%s\n' "$KP" | sed 's/^/#   /'
for f in memfd_create mfd_exec seal_exec memfd_noexec o_tmpfile execveat fsopen; do
	eval "_e=\$E_$f"
	if [ "$RC" != 0 ]; then
		notok "witness-$f" "kprobe exited $RC"
	else
		expect_eq "witness-$f" "kprobe $f" "$(kfield "$f" "$KP")" "$_e"
	fi
done
expect_eq witness-memfd_execveat "kprobe memfd_execveat" "$(kfield memfd_execveat "$KP")" yes

# Whether an unprivileged user may make a user namespace (Debian's kernels
# have the kernel.unprivileged_userns_clone switch): kprobe run as ktest.
run asuser kprobe
printf '%s\n' "$OUT" | grep -E '^(asuser|kprobe: (fsopen|overlayfs|userns))' | sed 's/^/#   /'
if [ "$RC" != 0 ] || ! printf '%s\n' "$OUT" | grep -qx "asuser: uid=$KTEST_UID gid=$KTEST_UID"; then
	notok witness-userns-user "asuser kprobe exited $RC: $(printf '%s\n' "$OUT" | grep -v '^kprobe:' | head -n 3)"
else
	expect_eq witness-userns-user "kprobe userns as uid $KTEST_UID" "$(kfield userns "$OUT")" "$E_userns_user"
fi

# --- sealexec --features ----------------------------------------------------
if [ -x /bin/sealexec ]; then
	run sealexec --features
	FE=$OUT FE_RC=$RC
	printf '%s\n' "$FE" | sed 's/^/#   /'
fi
for f in memfd_create mfd_exec seal_exec o_tmpfile execveat memfd_noexec fsopen; do
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
method_check method-overlay overlay - --method=overlay
# Before 6.15 a start killed between mkdir and the overlay's creation
# leaves an empty directory; the next start sweeps ours that are over a
# minute old.  A fresh one may be another start's, and stays.
if [ "$(uname -r | awk -F. '{print ($1 * 1000 + $2 < 6015)}')" = 1 ]; then
	mkdir -p /run/.cloned_binary-ovl-stale /run/.cloned_binary-ovl-fresh
	touch -d @1 /run/.cloned_binary-ovl-stale
	method_check method-overlay-sweep overlay - --method=overlay
	if [ -e /run/.cloned_binary-ovl-stale ]; then
		notok overlay-stale-dir-swept "/run/.cloned_binary-ovl-stale (mtime 1970) is still there"
	else
		ok overlay-stale-dir-swept
	fi
	if [ -d /run/.cloned_binary-ovl-fresh ]; then
		ok overlay-fresh-dir-kept
	else
		notok overlay-fresh-dir-kept "a directory made just now was removed"
	fi
	rmdir /run/.cloned_binary-ovl-fresh
fi
# The overlay's empty layer: its directory follows the file methods'
# rules.  Root skips a directory of ktest's (and neither makes nor sweeps
# anything there); ktest's own takes it, and ktest's stale one there goes.
mkdir -p /tmp/ktest-dir
mkdir -p /tmp/ktest-dir/.cloned_binary-ovl-stale
touch -d @1 /tmp/ktest-dir/.cloned_binary-ovl-stale
chown "$KTEST_UID:$KTEST_UID" /tmp/ktest-dir /tmp/ktest-dir/.cloned_binary-ovl-stale
chmod 0700 /tmp/ktest-dir
WRAP="env SEALEXEC_TMPDIR=/tmp/ktest-dir" \
	MUST="cloned_binary: skipping /tmp/ktest-dir for the overlay's empty layer: owned by uid $KTEST_UID" \
	method_check overlay-emptydir-user-dir-skipped overlay - --method=overlay
if [ "$(ls -A /tmp/ktest-dir)" != .cloned_binary-ovl-stale ]; then
	notok overlay-emptydir-user-dir-untouched "root changed /tmp/ktest-dir: $(ls -A /tmp/ktest-dir | tr '\n' ' ')"
else
	ok overlay-emptydir-user-dir-untouched
fi
WRAP="asuser env SEALEXEC_TMPDIR=/tmp/ktest-dir" \
	method_check overlay-emptydir-user-own-dir overlay - --method=overlay
if [ -n "$(ls -A /tmp/ktest-dir)" ]; then
	notok overlay-emptydir-user-own-dir-swept "left in /tmp/ktest-dir: $(ls -A /tmp/ktest-dir | tr '\n' ' ')"
else
	ok overlay-emptydir-user-own-dir-swept
fi
rm -rf /tmp/ktest-dir
# As ktest: overlayfs in a throwaway user namespace (since 5.11).
WRAP=asuser MUST="asuser: uid=$KTEST_UID" \
	method_check method-overlay-user overlay - --method=overlay
# Debian's switch for unprivileged user namespaces (on by default on both
# kernels): off, the user's auto must say why and fall back to a memfd.
USERNS_SWITCH=/proc/sys/kernel/unprivileged_userns_clone
if _was=$(cat "$USERNS_SWITCH" 2>/dev/null) && echo 0 >"$USERNS_SWITCH"; then
	WRAP=asuser MUST="cloned_binary: overlay not possible (clone(CLONE_NEWUSER|CLONE_NEWNS) failed: Operation not permitted" \
		method_check method-overlay-user-nouserns "$MEMFD" "$MEMFD_SEALS" --method=auto
	echo "$_was" >"$USERNS_SWITCH"
else
	notok method-overlay-user-nouserns "cannot switch $USERNS_SWITCH off"
fi
method_check method-memfd "$MEMFD" "$MEMFD_SEALS" --method=memfd
method_check method-tmpfile tmpfile - --method=tmpfile
# Without fsopen() (before 5.2) auto says why and falls back to a memfd.
WRAP=$NOFSOPEN MUST="cloned_binary: overlay not possible (no fsopen()" \
	method_check fakekernel-nofsopen-method "$MEMFD" "$MEMFD_SEALS" --method=auto

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
# change.  With $MUST set, a line of the output must contain it (pass
# --debug to see the loader's markers).
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
	if [ -n "${MUST:-}" ] && ! printf '%s\n' "$OUT" | grep -qF -- "$MUST"; then
		notok "$_c" "exit $RC, no line with '$MUST'"
		diag "$OUT"
	elif [ "$RC" = 0 ] && printf '%s\n' "$OUT" | grep -q '^attack: defeated'; then
		ok "$_c"
		echo "#   $(printf '%s\n' "$OUT" | grep 'selfcheck: exe=' | head -n 1)"
	else
		notok "$_c" "exit $RC: $(printf '%s\n' "$OUT" | grep -E 'FAIL|rror' | head -n 3)"
		diag "$OUT"
	fi
}
attack write-attack -- --method=auto
attack write-attack-tmpfile -- --method=tmpfile
# No copy at all: the victim itself, on a read-only overlay.
MUST="cloned_binary: using overlay" attack write-attack-overlay -- --debug --method=overlay

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
# The memfd method, which is what the profile changes (the real 6.1 has
# fsopen and overlayfs, so auto would use them).
WRAP="fakekernel --kernel=6.1 --" method_check fakekernel-6.1-method memfd 0xf --method=memfd

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
# running the command (6.1, no sysctl).  Without fsopen, so that the
# loader tries a memfd, is refused and falls back to a file.
if need memfd-noexec-run-level2 memfd-noexec sealexec selfcheck fakekernel; then
	run memfd-noexec run --level 2 -- sh -c 'cat /proc/sys/vm/memfd_noexec; exec $0 sealexec --debug selfcheck' "$NOFSOPEN"
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
	# The memfd at each level; at 2 auto, without fsopen, must fall back
	# from the refused memfd to a file.
	method_check ns-noexec-0 memfd-exec 0x2f --method=memfd -- 0
	method_check ns-noexec-1 memfd-exec 0x2f --method=memfd -- 1
	WRAP=$NOFSOPEN method_check ns-noexec-2 tmpfile - -- 2
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

# The empty directories that overlayfs before 6.15 needs must be gone.
_left=
for _d in /tmp/.cloned_binary-ovl-* /run/.cloned_binary-ovl-*; do
	[ -e "$_d" ] && _left="$_left $_d"
done
if [ -z "$_left" ]; then
	ok overlay-empty-dirs-removed
else
	notok overlay-empty-dirs-removed "left behind: $_left"
fi

echo "# uptime-end $(cut -d' ' -f1 /proc/uptime)"
echo "==KTEST-END=="
