#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# fakekernel self-test: run fakekernel_probe without and with every profile,
# fail spec and --memfd-noexec mode, as root and as an unprivileged user, and
# compare each answer with a table: the baseline of the real kernel plus the
# differences the option must make.  Then exit codes and usage errors.
#
#   selftest.sh FAKEKERNEL PROBE
#
# Exit 0 when all checks pass, 1 when one fails, 77 (skip) when a
# requirement is missing; with CI=true a missing requirement fails instead.
# It only reads vm.memfd_noexec, never writes any sysctl.

set -u
set -f # the tables are split on blanks; never glob them

FK_IN=${1:?usage: selftest.sh FAKEKERNEL PROBE}
PROBE_IN=${2:?usage: selftest.sh FAKEKERNEL PROBE}
SYSCTL=/proc/sys/vm/memfd_noexec

failures=0
checks=0
skips=0

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

skip() {
	if [ "${CI:-}" = true ]; then
		fail "requirement missing with CI=true: $*"
	else
		echo "SKIP: $*" >&2
		skips=$((skips + 1))
	fi
}

finish() {
	echo "$checks checks, $failures failed, $skips skipped"
	[ "$failures" -eq 0 ] || exit 1
	[ "$skips" -eq 0 ] || exit 77
	exit 0
}

if [ ! -r "$SYSCTL" ]; then
	# Every table below assumes a 6.3+ kernel under the fake one.
	skip "$SYSCTL is missing: the real kernel must be 6.3 or later"
	finish
fi
level=$(cat "$SYSCTL")
# At level 2, 6.6+ refuses MFD_EXEC, which is also the probe's fallback
# for a sealable memfd under 6.3-level2.
case $level in
0 | 1) exec_ok=OK seal_63=OK ;;
2) exec_ok=EACCES seal_63=SKIP ;;
*)
	fail "unexpected $SYSCTL value '$level'"
	finish
	;;
esac

# Copies an unprivileged user can reach whatever the build tree's modes.
tmp=$(mktemp -d /tmp/fakekernel-selftest.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
cp "$FK_IN" "$tmp/fakekernel" && cp "$PROBE_IN" "$tmp/fakekernel_probe" ||
	exit 1
FK=$tmp/fakekernel
PROBE=$tmp/fakekernel_probe

mounts_before=$(grep -c '' /proc/self/mountinfo)

# What the real kernel answers (expanded by check, after overrides).
COMMON="memfd_plain=OK memfd_sealing=OK memfd_exec=$exec_ok
	memfd_noexec_seal=OK seal_exec=OK tmpfile=OK tmpfile_open=OK
	openat2=OK execveat=OK sysctl=${level}\\n vm_other=OK
	fsopen=ENODEV fsconfig_string=EINVAL unshare_user=OK"
NOFSOPEN="fsopen=ENOSYS fsconfig_string=ENOSYS"
HIDDEN="sysctl=ENOENT sysctl_w=ENOENT"
MEMFD_ENOSYS="memfd_plain=ENOSYS memfd_sealing=ENOSYS memfd_exec=ENOSYS
	memfd_noexec_seal=ENOSYS seal_exec=SKIP"
V61="memfd_exec=EINVAL memfd_noexec_seal=EINVAL seal_exec=EINVAL"
NOTMP="tmpfile=EOPNOTSUPP tmpfile_open=EOPNOTSUPP openat2=ENOSYS"
LEVEL2="memfd_plain=EINVAL memfd_sealing=EINVAL seal_exec=$seal_63
	sysctl=2\\n sysctl_w=EROFS"
NOCAPS=0000000000000000
cap_eff=$(awk '$1 == "CapEff:" { print $2 }' /proc/self/status)
if [ "$(id -u)" -eq 0 ]; then
	base="$COMMON sysctl_w=OK nnp=0 uid=0 euid=0 cap_eff=$cap_eff"
else
	# fsopen("") needs CAP_SYS_ADMIN before it looks at the name.
	base="$COMMON fsopen=EPERM sysctl_w=EACCES nnp=0 uid=$(id -u) euid=$(id -u)
		cap_eff=$NOCAPS"
fi

# check NAME OVERRIDES CMD...: CMD must exit 0 and print exactly the keys
# of "$base $OVERRIDES" (a later key=value wins) with those values.
check() {
	local name=$1 overrides=$2 out rc kv line key
	local -A want=() got=()
	shift 2

	checks=$((checks + 1))
	out=$("$@" 2>"$tmp/stderr")
	rc=$?
	if [ "$rc" -ne 0 ]; then
		fail "$name: exit status $rc: $(cat "$tmp/stderr")"
		return 1
	fi
	for kv in $base $overrides; do
		want[${kv%%=*}]=${kv#*=}
	done
	while IFS= read -r line; do
		[ -n "$line" ] || continue
		got[${line%%=*}]=${line#*=}
	done <<<"$out"

	rc=0
	for key in "${!want[@]}"; do
		if [ "${got[$key]-<missing>}" != "${want[$key]}" ]; then
			fail "$name: $key=${got[$key]-<missing>}, want ${want[$key]}"
			rc=1
		fi
	done
	for key in "${!got[@]}"; do
		if [ -z "${want[$key]+set}" ]; then
			fail "$name: unexpected line $key=${got[$key]}"
			rc=1
		fi
	done
	[ "$rc" -eq 0 ] && echo "ok - $name"
	return "$rc"
}

# expect_rc NAME STATUS STDERR-REGEX CMD...
expect_rc() {
	local name=$1 want=$2 pattern=$3 rc
	shift 3

	checks=$((checks + 1))
	"$@" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		fail "$name: exit status $rc, want $want: $(cat "$tmp/stderr")"
	elif [ -n "$pattern" ] && ! grep -Eq -- "$pattern" "$tmp/stderr"; then
		fail "$name: stderr lacks /$pattern/: $(cat "$tmp/stderr")"
	else
		echo "ok - $name"
	fi
}

# The tables must be able to fail: a wrong expectation has to be caught.
if ! (check "meta: the right table" "" "$PROBE") >/dev/null 2>&1 ||
	(check "meta" "memfd_exec=EBOGUS" "$PROBE") >/dev/null 2>&1 ||
	(check "meta" "" sh -c "$PROBE; echo extra=1") >/dev/null 2>&1 ||
	(check "meta" "" false) >/dev/null 2>&1; then
	fail "check() accepts a wrong table or rejects the right one"
fi

# unpriv_checks UID [RUNAS...]: the cases for an ordinary user with that
# uid; RUNAS (empty when we are that user) runs a command as the user.
unpriv_checks() {
	local uid=$1
	shift
	base="$COMMON sysctl_w=EACCES nnp=0 uid=$uid euid=$uid
		cap_eff=$NOCAPS fsopen=EPERM"

	check "user: no wrapper" "" "$@" "$PROBE"
	# No namespace needed: no_new_privs is required and set.
	check "user: notmpfile (no namespace)" "$NOTMP nnp=1" \
		"$@" "$FK" --kernel=notmpfile -- "$PROBE"
	check "user: fail spec (no namespace)" "memfd_exec=EPERM nnp=1" \
		"$@" "$FK" --fail='memfd_create[1&0x10==0x10]=EPERM' -- "$PROBE"
	if ! "$@" unshare --user --map-current-user true 2>/dev/null; then
		skip "unprivileged user namespaces are disabled"
		return
	fi
	# User namespace: same uid, capabilities gone after exec.
	check "user: 6.1 (user namespace)" "$V61 $HIDDEN" \
		"$@" "$FK" --kernel=6.1 -- "$PROBE"
	check "user: nomemfd" "$MEMFD_ENOSYS $HIDDEN $NOFSOPEN" \
		"$@" "$FK" --kernel=nomemfd -- "$PROBE"
	check "user: 6.3-level2" "$LEVEL2" \
		"$@" "$FK" --kernel=6.3-level2 -- "$PROBE"
	check "user: --memfd-noexec=1" "sysctl=1\\n sysctl_w=EROFS" \
		"$@" "$FK" --memfd-noexec=1 -- "$PROBE"
	check "user: --memfd-noexec=hide with notmpfile" "$HIDDEN $NOTMP" \
		"$@" "$FK" --memfd-noexec=hide --kernel=notmpfile -- "$PROBE"
	expect_rc "user: status passes through the namespace" 7 "" \
		"$@" "$FK" --kernel=6.1 -- sh -c 'exit 7'
	expect_rc "user: cannot unshare -> 125" 125 \
		'^fakekernel: Failed to unshare a user and a mount namespace: ' \
		"$@" "$FK" --fail=unshare=EPERM -- "$FK" --memfd-noexec=1 -- true
}

if [ "$(id -u)" -ne 0 ]; then
	skip "not root: the root cases (mount namespace without a user" \
		"namespace, no_new_privs left off, setuid) are not run"
	unpriv_checks "$(id -u)"
	finish
fi

#
# As root.
#
base="$COMMON sysctl_w=OK nnp=0 uid=0 euid=0 cap_eff=$cap_eff"

check "no wrapper" "" "$PROBE"
check "no options" "" "$FK" -- "$PROBE"
check "nomemfd" "$MEMFD_ENOSYS $HIDDEN $NOFSOPEN" "$FK" --kernel=nomemfd -- "$PROBE"
check "nofsopen" "$NOFSOPEN" "$FK" --kernel=nofsopen -- "$PROBE"
check "nooverlay" "fsconfig_string=ENODEV" "$FK" --kernel=nooverlay -- "$PROBE"
check "nouserns" "unshare_user=EPERM" "$FK" --kernel=nouserns -- "$PROBE"
check "6.1" "$V61 $HIDDEN" "$FK" --kernel=6.1 -- "$PROBE"
# seal_exec works: the probe falls back to MFD_EXEC | MFD_ALLOW_SEALING.
check "6.3-level2" "$LEVEL2" "$FK" --kernel=6.3-level2 -- "$PROBE"
check "notmpfile" "$NOTMP" "$FK" --kernel=notmpfile -- "$PROBE"
check "noexecveat" "execveat=ENOSYS $NOFSOPEN" "$FK" --kernel=noexecveat -- "$PROBE"
check "6.1,notmpfile,noexecveat" "$V61 $HIDDEN $NOTMP execveat=ENOSYS $NOFSOPEN" \
	"$FK" --kernel=6.1,notmpfile,noexecveat -- "$PROBE"
check "--kernel twice accumulates" "$V61 $HIDDEN execveat=ENOSYS $NOFSOPEN" \
	"$FK" --kernel=6.1 --kernel=noexecveat -- "$PROBE"
check "nomemfd beats 6.1" "$MEMFD_ENOSYS $HIDDEN $NOFSOPEN" \
	"$FK" --kernel=6.1,nomemfd -- "$PROBE"

# Only the file is faked: memfd_create still sees the real level.
check "--memfd-noexec=hide" "$HIDDEN" "$FK" --memfd-noexec=hide -- "$PROBE"
for n in 0 1 2; do
	check "--memfd-noexec=$n" "sysctl=$n\\n sysctl_w=EROFS" \
		"$FK" --memfd-noexec=$n -- "$PROBE"
done
check "6.1 with --memfd-noexec=1" "$V61 sysctl=1\\n sysctl_w=EROFS" \
	"$FK" --kernel=6.1 --memfd-noexec=1 -- "$PROBE"
check "--memfd-noexec=hide before 6.3-level2" \
	"$LEVEL2 $HIDDEN" \
	"$FK" --memfd-noexec=hide --kernel=6.3-level2 -- "$PROBE"

check "fail all memfd_create" \
	"${MEMFD_ENOSYS//ENOSYS/EACCES}" \
	"$FK" --fail=memfd_create=EACCES -- "$PROBE"
check "fail MFD_EXEC only" "memfd_exec=EPERM" \
	"$FK" --fail='memfd_create[1&0x10==0x10]=EPERM' -- "$PROBE"
check "fail F_ADD_SEALS" "seal_exec=EPERM" \
	"$FK" --fail='fcntl[1&0xffffffff==1033]=EPERM' -- "$PROBE"
check "octal mask, hex errno" "tmpfile=ENOSPC" \
	"$FK" --fail='openat[2&020000000==020000000]=0x1c' -- "$PROBE"
check "decimal errno, full-width compare" "execveat=ENOSYS tmpfile_open=EIO" \
	"$FK" --fail=execveat=38 --fail="open[1==$((0x410002 | 0x80000))]=EIO" \
	-- "$PROBE"
check "a later --fail wins" \
	"${MEMFD_ENOSYS//ENOSYS/EACCES} memfd_exec=EPERM" \
	"$FK" --fail=memfd_create=EACCES \
	--fail='memfd_create[1&0x10==0x10,1&0x1==0x1]=EPERM' -- "$PROBE"
check "--fail beats a profile" "${MEMFD_ENOSYS//ENOSYS/ENOMEM} $HIDDEN" \
	"$FK" --kernel=6.1 --fail=memfd_create=ENOMEM -- "$PROBE"

# no_new_privs stays off as root, so a setuid program still gains its euid.
suid=$tmp/suid_probe
cp "$PROBE" "$suid" && chown 0:0 "$suid" && chmod 4755 "$suid"
U=(setpriv --reuid=65534 --regid=65534 --clear-groups --)
# sysctl_w=OK: proc's sysctl permission check looks at the euid even in
# access(), which otherwise uses the real uid.
base="$COMMON sysctl_w=OK nnp=0 uid=65534 euid=0 cap_eff=$cap_eff"
if check "setuid control, no wrapper" "" "${U[@]}" "$suid"; then
	check "setuid control, no_new_privs set" \
		"nnp=1 euid=65534 sysctl_w=EACCES cap_eff=$NOCAPS fsopen=EPERM" \
		setpriv --reuid=65534 --regid=65534 --clear-groups \
		--no-new-privs -- "$suid"
	check "setuid under noexecveat" "execveat=ENOSYS $NOFSOPEN" \
		"$FK" --kernel=noexecveat -- "${U[@]}" "$suid"
	check "setuid under 6.1 (mount namespace)" "$V61 $HIDDEN" \
		"$FK" --kernel=6.1 -- "${U[@]}" "$suid"
else
	skip "setuid bits are ignored in $tmp (nosuid?)"
fi

expect_rc "exit status passes through" 7 "" "$FK" -- sh -c 'exit 7'
expect_rc "exit status through the namespace" 7 "" \
	"$FK" --kernel=6.1 -- sh -c 'exit 7'
expect_rc "command not found" 127 '^fakekernel: Failed to execute ' \
	"$FK" -- "$tmp/nonexistent"
expect_rc "command blocked by --fail" 126 \
	'^fakekernel: Failed to execute true: Permission denied$' \
	"$FK" --fail=execve=EACCES -- true
expect_rc "cannot unshare -> 125" 125 \
	'^fakekernel: Failed to unshare a user and a mount namespace: ' \
	"$FK" --fail=unshare=EPERM -- "$FK" --memfd-noexec=1 -- true
PROFILES='nomemfd, 6\.1, 6\.3-level2, notmpfile, noexecveat, nofsopen, nooverlay, nouserns'
expect_rc "unknown profile" 2 "--kernel=bogus.*'bogus'.*$PROFILES" \
	"$FK" --kernel=bogus -- true
expect_rc "trailing comma" 2 "--kernel=6\.1,:" "$FK" --kernel=6.1, -- true
expect_rc "conflicting profiles" 2 "--kernel=6\.1,6\.3-level2: conflicting" \
	"$FK" --kernel=6.1,6.3-level2 -- true
for spec in bogus memfd_create memfd_create=EBOGUS memfd_create=-1 \
	'memfd_create[6==1]=EPERM' 'memfd_create[1&0x1==0x2]=EPERM' \
	'memfd_create[1&0x1==0x1,1&0x1==0]=EPERM' nosuchsyscall=EPERM; do
	expect_rc "bad spec $spec" 2 "--fail=.*SYSCALL=ERRNO" \
		"$FK" --fail="$spec" -- true
done
expect_rc "bad --memfd-noexec" 2 "--memfd-noexec=3: .*hide, 0, 1, 2" \
	"$FK" --memfd-noexec=3 -- true
expect_rc "unknown option" 2 "unknown option '--frob'" "$FK" --frob -- true
expect_rc "missing value" 2 "'--fail' needs a value" "$FK" --fail
expect_rc "missing command" 2 "missing command" "$FK" --kernel=6.1
expect_rc "--help" 0 "" "$FK" --help

checks=$((checks + 1))
if ! list=$("$FK" --list) ||
	[ "$(awk '{ print $1 }' <<<"$list" | tr '\n' ' ')" != \
		"nomemfd 6.1 6.3-level2 notmpfile noexecveat nofsopen nooverlay nouserns " ] ||
	awk 'NF < 3 { bad = 1 } END { exit !bad }' <<<"$list"; then
	fail "--list: $list"
else
	echo "ok - --list"
fi

unpriv_checks 65534 "${U[@]}"

# Nothing may leak into this namespace, and the real sysctl is unchanged.
checks=$((checks + 1))
if [ "$(grep -c '' /proc/self/mountinfo)" != "$mounts_before" ] ||
	grep -q ' /proc/sys/vm' /proc/self/mountinfo ||
	[ "$(cat "$SYSCTL")" != "$level" ]; then
	fail "mounts leaked or $SYSCTL changed"
else
	echo "ok - no mounts left behind, $SYSCTL still $level"
fi

finish
