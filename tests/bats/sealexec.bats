#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# sealexec end to end: every method, as root and as an unprivileged user,
# at every vm.memfd_noexec level (in child PID namespaces) and under every
# emulated kernel.

load helpers

setup_file() {
	stage_user_binaries
}

teardown_file() {
	unstage_user_binaries
}

setup() {
	[ -x "$SEALEXEC" ] || { echo "sealexec not built at $SEALEXEC" >&2; return 1; }
	HOST_LEVEL_BEFORE="$(host_level)"
}

# user_tmpdir: UTMP, a fresh directory owned by the test user.
user_tmpdir() {
	UTMP=$(mktemp -d /tmp/cbtest-u.XXXXXX)
	chown "$TEST_USER:" "$UTMP"
}

teardown() {
	[ -z "${UTMP:-}" ] || rm -rf "$UTMP"
	# The host's value must never change, whatever a test did.
	assert_host_level_unchanged "${HOST_LEVEL_BEFORE:-}"
}

# run_sealed [as_user] [at_level N] [fakekernel ARGS --] -- SELFCHECK ARGS
# is spelled out in each test instead: the wrappers nest in a fixed order,
# root-only steps (level, fake mounts) first, then the user switch.

@test "usage: no program, bad option, bad method, missing program exit 2" {
	run "$SEALEXEC"
	assert_failure 2
	assert_output --partial "missing PROGRAM"

	run "$SEALEXEC" --bogus true
	assert_failure 2
	assert_output --partial "unknown option '--bogus'"

	run "$SEALEXEC" --method=fast true
	assert_failure 2
	assert_output --partial "invalid --method 'fast'; allowed: auto, overlay, memfd, tmpfile"

	run "$SEALEXEC" no-such-program-here
	assert_failure 2
	assert_output --partial "Failed to find program no-such-program-here in PATH"

	run "$SEALEXEC" /nonexistent/prog
	assert_failure 2
	assert_output --partial "/nonexistent/prog"

	run "$SEALEXEC" --tmpdir=relative true
	assert_failure 2
	assert_output --partial "must be an absolute path"

	run env MEMFD_TOOLKIT_FEATURES=-warp "$SEALEXEC" true
	assert_failure 2
	assert_output --partial "Refusing MEMFD_TOOLKIT_FEATURES=-warp: '-warp' is not one of -memfd_create, -mfd_exec"
	run env MEMFD_TOOLKIT_FEATURES=mfd_exec "$SEALEXEC" true
	assert_failure 2
	assert_output --partial "features can only be turned off"
}

@test "help, version and features" {
	run "$SEALEXEC" --help
	assert_success
	assert_output --partial "Usage: sealexec"

	run "$SEALEXEC" --version
	assert_success
	assert_output --partial "sealexec "

	run "$SEALEXEC" --features
	assert_success
	for k in memfd_create mfd_exec seal_exec memfd_noexec o_tmpfile execveat level; do
		assert_output --partial "$k: "
	done

	run "$SEALEXEC" --features --json
	assert_success
	python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert "mfd_exec" in d' "$output"
}

@test "exit status is the program's; arguments pass through untouched" {
	run "$SEALEXEC" sh -c 'exit 7'
	assert_failure 7
	run "$SEALEXEC" false
	assert_failure 1
	run "$SEALEXEC" printf '%s|' "a b" "" "-x" "--"
	assert_success
	assert_output "a b||-x|--|"
}

@test "a script is refused with a clear error" {
	script="$BATS_TEST_TMPDIR/script.sh"
	printf '#!/bin/sh\necho hi\n' >"$script"
	chmod +x "$script"
	run "$SEALEXEC" "$script"
	assert_failure 126
	assert_output --partial "is a script"
}

@test "a program without x permission is refused, as execve would (no copy runs it)" {
	local prog="$BATS_TEST_TMPDIR/noexec-prog"
	install -m 0644 "$SELFCHECK" "$prog"
	local m
	for m in auto memfd tmpfile; do
		run "$SEALEXEC" --method="$m" "$prog"
		assert_failure 126
		assert_output --partial "Refusing program $prog: it is not executable (Permission denied)"
	done
	chmod 0755 "$prog"
	run "$SEALEXEC" "$prog"
	assert_success
}

# A program found through PATH gets the same X_OK check
# as one given with a '/': execvp(3) skips a PATH entry that is not
# executable and runs the next one.  A copy (memfd, tmpfile) would run
# the first one regardless, the overlay would fail to execute it.
@test "a program found in PATH without x permission is skipped, as execvp would" {
	local d1="$BATS_TEST_TMPDIR/path1" d2="$BATS_TEST_TMPDIR/path2" m
	mkdir -p "$d1" "$d2"
	install -m 0644 "$(type -P echo)" "$d1/cbprog"
	install -m 0755 "$(type -P true)" "$d2/cbprog"
	for m in auto memfd tmpfile; do
		run env PATH="$d1:$d2" "$SEALEXEC" --method="$m" cbprog from-the-non-executable-one
		echo "$m: $output"
		assert_success
		refute_output --partial from-the-non-executable-one
	done
	# Only the non-executable one: refused, not run.
	run env PATH="$d1" "$SEALEXEC" --method=memfd cbprog from-the-non-executable-one
	assert_failure 126
	assert_output --partial "Failed to find program cbprog in PATH ($d1): Permission denied"
	refute_output --partial "from-the-non-executable-one"
}

# Where global root is unmapped (`unshare -U -r`, rootless podman's user
# namespace), root's files and every other unmapped user's show as the
# overflow uid: the owner rule cannot tell them apart there, so the file
# gets a copy (issue 41: another user's program, 0755, ran from the
# overlay there).  In the initial namespace the same files are told apart.
@test "user namespace without root: root's and another user's program run from a copy, never the overlay; a forced overlay refuses" {
	requires root user
	local d nobody
	nobody=$(cat /proc/sys/kernel/overflowuid)
	d="$(mktemp -d /tmp/cbtest-ovf.XXXXXX)"
	chmod 0755 "$d"
	install -m 0755 -o 4343 "$SELFCHECK" "$d/other"
	install -m 0755 "$SELFCHECK" "$d/root"
	for f in other root; do
		run as_user unshare --user --map-root-user sh -c \
			'stat -c "owner=%u" "$2"; "$1" --debug "$2" --expect-method=memfd-exec; echo "rc=$?"; "$1" --method=overlay "$2"; echo "rc=$?"' \
			sh "$U_SEALEXEC" "$d/$f"
		echo "$f: $output"
		assert_line "owner=$nobody"
		assert_line --partial "cloned_binary: overlay not possible (the file $d/$f shows as owned by uid $nobody, the overflow uid (mode 0755; we are uid 0): global root is unmapped in this user namespace"
		assert_marker memfd-exec
		assert_line --index 5 rc=0
		assert_output --partial "sealexec: Failed to make a sealed copy of $d/$f: Failed to open the binary from a detached overlayfs (overlay): the file $d/$f shows as owned by uid $nobody"
		assert_line --index 7 rc=126
	done
	# Control: in the initial user namespace root's runs from the overlay.
	run "$SEALEXEC" "$d/root" --expect-method=overlay
	rm -rf "$d"
	assert_success
}

# The overlay is the file itself, so a file that someone
# else can write would let them rewrite the running program (the red team
# did it with dd conv=notrunc while root's program ran).  Such a file gets
# a sealed copy instead, and --method=overlay refuses with the reason.
@test "root: a program another user can write runs from a copy, never the overlay; a forced overlay refuses" {
	requires root user memfd_noexec
	local d prog pid status
	d="$(mktemp -d /tmp/cbtest-own.XXXXXX)"
	chmod 0755 "$d"
	prog="$d/prog"
	install -m 0755 -o "$TEST_USER" "$SELFCHECK" "$prog"
	run at_level 0 "$SEALEXEC" --debug "$prog" --expect-method=memfd-exec
	echo "$output"
	assert_success
	assert_line --partial "cloned_binary: overlay not possible (the file $prog is owned by another user (owner uid $(id -u "$TEST_USER"), mode 0755; we are uid 0)"
	assert_marker memfd-exec
	run at_level 0 "$SEALEXEC" --method=overlay "$prog"
	assert_failure 126
	assert_output --partial "sealexec: Failed to make a sealed copy of $prog: Failed to open the binary from a detached overlayfs (overlay): the file $prog is owned by another user"
	assert_output --partial "Make root (or us) its owner and remove group and other write access"
	# The red team's rewrite, while root's program runs: the copy
	# runs on, unchanged.
	install -m 0755 -o "$TEST_USER" "$(type -P sleep)" "$prog"
	at_level 0 "$SEALEXEC" "$prog" 3 &
	pid=$!
	sleep 1
	as_user dd if="$(type -P false)" of="$prog" conv=notrunc status=none
	status=0
	wait "$pid" || status=$?
	rm -rf "$d"
	[ "$status" -eq 0 ] || fail "root's program exited $status after the user rewrote its file"
}

@test "root, levels 0, 1 and 2: auto runs the binary itself from a detached read-only overlay" {
	requires root memfd_noexec
	local level
	for level in 0 1 2; do
		run at_level "$level" "$SEALEXEC" --debug "$SELFCHECK" \
			--expect-method=overlay --expect-same="$SELFCHECK"
		echo "level $level" >&2
		assert_success
		assert_marker overlay
		assert_output --partial "selfcheck: exe=/selfcheck seals=0x0 mode=0755 nlink=1 method=overlay"
		assert_output --partial "selfcheck: overlay mount ro,nosuid,nodev"
		assert_output --partial "selfcheck: ok"
	done
}

@test "root, level 0: --method=memfd gives the memfd-exec copy sealed W^X" {
	requires root memfd_noexec
	run at_level 0 "$SEALEXEC" --debug --method=memfd "$SELFCHECK" --expect-method=memfd-exec --expect-seals=0x2f --expect-same="$SELFCHECK"
	assert_success
	assert_marker memfd-exec
	assert_output --partial "seals=0x3f mode=0555"
}

@test "root, level 1: --method=memfd gives the memfd-exec copy sealed W^X" {
	requires root memfd_noexec
	run at_level 1 "$SEALEXEC" --debug --method=memfd "$SELFCHECK" --expect-method=memfd-exec --expect-seals=0x2f
	assert_success
	assert_marker memfd-exec
}

@test "root, level 2 without overlay: falls back to tmpfile" {
	requires root memfd_noexec
	run at_level 2 env MEMFD_TOOLKIT_FEATURES=-fsopen "$SEALEXEC" --debug "$SELFCHECK" --expect-method=tmpfile --expect-same="$SELFCHECK"
	assert_success
	assert_marker tmpfile
	assert_output --partial "nlink=0"
}

@test "root, level 2: --method=memfd fails closed with the reason" {
	requires root memfd_noexec
	run at_level 2 "$SEALEXEC" --method=memfd "$SELFCHECK"
	assert_failure 126
	assert_output --partial "vm.memfd_noexec=2"
	refute_output --partial "selfcheck: exe=" # the program never ran
}

@test "root: --method=tmpfile at level 0" {
	requires root memfd_noexec
	run at_level 0 "$SEALEXEC" --debug --method=tmpfile "$SELFCHECK" --expect-method=tmpfile
	assert_success
	assert_marker tmpfile
}

@test "user, levels 0, 1 and 2" {
	requires root user memfd_noexec
	for level in 0 1 2; do
		# auto: the overlay, made in a throwaway user namespace.
		run at_level "$level" setpriv --reuid="$TEST_USER" --regid="$TEST_USER" \
			--init-groups --inh-caps=-all -- \
			"$U_SEALEXEC" --debug "$U_SELFCHECK" --expect-same="$U_SELFCHECK"
		echo "level $level: $output"
		assert_success
		assert_marker overlay
		assert_output --partial "selfcheck: overlay mount ro,nosuid,nodev"
		assert_output --partial "selfcheck: ok"
		# Without it: the memfd copy, or the file at 2.
		run at_level "$level" setpriv --reuid="$TEST_USER" --regid="$TEST_USER" \
			--init-groups --inh-caps=-all -- \
			env MEMFD_TOOLKIT_FEATURES=-fsopen \
			"$U_SEALEXEC" --debug "$U_SELFCHECK" --expect-same="$U_SELFCHECK"
		echo "level $level, no overlay: $output"
		assert_success
		if [ "$level" = 2 ]; then
			assert_marker tmpfile
		else
			assert_marker memfd-exec
			assert_output --partial "seals=0x3f"
		fi
		assert_output --partial "selfcheck: ok"
	done
}

@test "user: every tmpfile directory refused gives a clear error" {
	requires root user memfd_noexec
	run at_level 2 setpriv --reuid="$TEST_USER" --regid="$TEST_USER" \
		--init-groups --inh-caps=-all -- \
		"$U_SEALEXEC" --method=tmpfile --tmpdir=/root "$U_SELFCHECK"
	assert_failure 126
	assert_output --partial "Failed to make a sealed copy"
	assert_output --partial "/root"
}

@test "noexec directory is skipped, never used" {
	requires root
	run unshare --mount --propagation private -- sh -c '
		d=$(mktemp -d) && mount -t tmpfs -o noexec tmpfs "$d" &&
		SEALEXEC_DEBUG=1 "$0" --method=tmpfile --tmpdir="$d" "$1"; echo "rc=$?"
		SEALEXEC_DEBUG=1 SEALEXEC_TMPDIR="$d" "$0" --method=tmpfile "$1"; echo "rc=$?"
		umount "$d"; rmdir "$d"' \
		"$SEALEXEC" "$SELFCHECK"
	# Named explicitly: refused, with the reason.
	assert_output --partial "for the sealed copy: mounted noexec"
	assert_output --partial "rc=126"
	# A candidate: skipped, and the copy is made elsewhere.
	assert_line --regexp '^cloned_binary: skipping /tmp/tmp\.[A-Za-z0-9]+: mounted noexec$'
	assert_output --partial "rc=0"
}

@test "emulated 6.1: memfd without MFD_EXEC, sealed 0xf" {
	requires root seccomp fakekernel
	run "$FAKEKERNEL" --kernel=6.1 -- "$SEALEXEC" --debug --method=memfd "$SELFCHECK" --expect-method=memfd --expect-seals=0xf
	assert_success
	assert_marker memfd
	assert_output --partial "seals=0xf "
	run "$FAKEKERNEL" --kernel=6.1 -- "$SEALEXEC" --features
	assert_success
	assert_output --partial "mfd_exec: no"
	assert_output --partial "seal_exec: no"
	assert_output --partial "memfd_noexec: no"
	assert_output --partial "level: none (No such file or directory)"
}

@test "emulated 6.1 as user" {
	requires root user seccomp fakekernel
	run setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups --inh-caps=-all -- \
		"$U_FAKEKERNEL" --kernel=6.1 -- "$U_SEALEXEC" --debug --method=memfd "$U_SELFCHECK" --expect-method=memfd --expect-seals=0xf
	assert_success
	assert_marker memfd
}

@test "emulated no memfd_create (before 3.17): tmpfile, root and user" {
	requires root user seccomp fakekernel
	run "$FAKEKERNEL" --kernel=nomemfd -- "$SEALEXEC" --debug "$SELFCHECK" --expect-method=tmpfile
	assert_success
	assert_marker tmpfile
	# fakekernel's user namespace maps only the user, so root's /tmp
	# shows an unmapped owner there: only the user's own directory is
	# trusted (and the defaults are skipped, with the reason).
	user_tmpdir
	run setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups --inh-caps=-all -- \
		env SEALEXEC_TMPDIR="$UTMP" "$U_FAKEKERNEL" --kernel=nomemfd -- "$U_SEALEXEC" --debug "$U_SELFCHECK" --expect-method=tmpfile
	assert_success
	assert_marker tmpfile
	assert_output --partial "exe=$UTMP/#"
}

@test "memfd_create refused with EPERM (an LSM or a seccomp profile): tmpfile, with the reason" {
	requires root seccomp fakekernel
	# EPERM is a policy refusal, like EACCES at level 2: the next method,
	# never a failed start.  The overlay is turned off so the memfd is tried.
	run env MEMFD_TOOLKIT_FEATURES=-fsopen "$FAKEKERNEL" --fail='memfd_create=EPERM' -- \
		"$SEALEXEC" --debug "$SELFCHECK" --expect-method=tmpfile
	assert_success
	assert_marker tmpfile
	assert_output --partial "selfcheck: ok"
	# --method=memfd has nowhere to go: it fails, and names the refusal.
	run env MEMFD_TOOLKIT_FEATURES=-fsopen "$FAKEKERNEL" --fail='memfd_create=EPERM' -- \
		"$SEALEXEC" --method=memfd "$SELFCHECK"
	assert_failure 126
	assert_output --partial "Operation not permitted"
}

@test "emulated no memfd_create and no O_TMPFILE: mkostemp, nothing left behind" {
	requires root seccomp fakekernel
	d="$BATS_TEST_TMPDIR/mk"
	mkdir -p "$d"
	run "$FAKEKERNEL" --kernel=nomemfd,notmpfile -- "$SEALEXEC" --debug --tmpdir="$d" "$SELFCHECK" --expect-method=tmpfile
	assert_success
	assert_marker mkostemp
	[ -z "$(ls -A "$d")" ]
}

@test "emulated 6.3-6.5.2 at level 2: no memfd although MFD_EXEC would pass" {
	requires root seccomp fakekernel memfd_noexec
	run at_level 0 "$FAKEKERNEL" --kernel=6.3-level2,nofsopen -- "$SEALEXEC" --debug "$SELFCHECK" --expect-method=tmpfile
	assert_success
	assert_marker tmpfile
	assert_output --partial "vm.memfd_noexec=2"
}

@test "emulated no execveat (before 3.19): runs via /proc/self/fd" {
	requires root seccomp fakekernel
	run "$FAKEKERNEL" --kernel=noexecveat -- "$SEALEXEC" --debug "$SELFCHECK"
	assert_success
	assert_output --partial "execveat unavailable"
	assert_output --partial "selfcheck: ok"
}

@test "feature override: -fsopen gives memfd-exec, with -mfd_exec memfd, with -memfd_create tmpfile" {
	run env MEMFD_TOOLKIT_FEATURES=-fsopen "$SEALEXEC" --debug "$SELFCHECK" --expect-method=memfd-exec
	assert_success
	assert_marker memfd-exec
	assert_output --partial "cloned_binary: overlay not possible (no fsopen() (before Linux 5.2)), falling back"
	run env MEMFD_TOOLKIT_FEATURES=-fsopen,-mfd_exec "$SEALEXEC" --debug "$SELFCHECK" --expect-method=memfd-exec
	# F_SEAL_EXEC still applies, so the copy is as strong; the marker is memfd.
	assert_success
	assert_marker memfd
	run env MEMFD_TOOLKIT_FEATURES=-fsopen,-memfd_create "$SEALEXEC" --debug "$SELFCHECK" --expect-method=tmpfile
	assert_success
	assert_marker tmpfile
}

@test "attack: /proc/<pid>/exe cannot reach the original (root, every method)" {
	requires root memfd_noexec
	copy="$BATS_TEST_TMPDIR/selfcheck"
	cp "$SELFCHECK" "$copy"
	sum_before="$(sha256sum <"$copy")"
	for m in memfd tmpfile; do
		run "$ATTACK" "$copy" -- "$SEALEXEC" --method="$m" "$copy" --hold
		echo "$output"
		assert_success
		assert_output --partial "attack: defeated"
		assert_output --partial "Text file busy"
	done
	# No copy at all: the original itself, on a read-only filesystem.
	run "$ATTACK" "$copy" -- "$SEALEXEC" --method=overlay "$copy" --hold
	echo "$output"
	assert_success
	assert_output --partial "attack: defeated"
	assert_output --partial "Read-only file system"
	run at_level 2 "$ATTACK" "$copy" -- "$SEALEXEC" "$copy" --hold
	assert_success
	[ "$(sha256sum <"$copy")" = "$sum_before" ]
}

@test "attack as the unprivileged user" {
	requires root user
	copy="/tmp/cbtest-attack-$$"
	cp "$U_SELFCHECK" "$copy"
	chown "$TEST_USER" "$copy"
	run setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups --inh-caps=-all -- \
		"$U_ATTACK" "$copy" -- "$U_SEALEXEC" "$copy" --hold
	rm -f "$copy"
	assert_success
	assert_output --partial "attack: defeated"
}

@test "control: without sealexec the attack target is the original file" {
	# Proves the attack test can fail: run selfcheck directly and the
	# held handle reaches the on-disk file once the process exits.
	copy="$BATS_TEST_TMPDIR/selfcheck-direct"
	cp "$SELFCHECK" "$copy"
	run "$ATTACK" "$copy" -- "$copy" --hold
	assert_failure 1
	assert_output --partial "changed"
}

@test "ensure: re-executes once from a sealed clone, argv intact" {
	run "$ENSURE_HELPER" "a b" "" "--x"
	assert_success
	assert_output --partial "ensure-helper: sealed=1 argv=a b,,--x reexec-marker=unset"
	run env SEALEXEC_DEBUG=1 ENSURE_METHOD=tmpfile "$ENSURE_HELPER"
	assert_success
	assert_marker tmpfile
	[ "$(grep -c 'cloned_binary: using' <<<"$output")" -eq 1 ]
}

@test "ensure: a program on a detached overlay counts only with the re-exec marker" {
	# sealexec starts ensure-helper from an overlay of its own: without
	# the marker, ensure re-clones once (its path on that detached mount
	# leads nowhere, so a memfd), then recognises its own.
	run env SEALEXEC_DEBUG=1 "$SEALEXEC" --method=overlay "$ENSURE_HELPER"
	assert_success
	[ "$(grep -c '^cloned_binary: using ' <<<"$output")" -eq 2 ]
	assert_output --partial "cloned_binary: using memfd-exec"
	assert_output --partial "cloned_binary: running from sealed clone"
	assert_output --partial "ensure-helper: sealed=1"
}

@test "ensure: a runtime's clone given as fd:N is accepted, checked and closed" {
	# ensure-helper plays runc's parent (patch 0004): it starts itself
	# from its overlay clone as /proc/self/fd/N with the marker fd:N.
	run env SEALEXEC_DEBUG=1 ENSURE_LAUNCH=fd "$ENSURE_HELPER" a b
	assert_success
	assert_output --partial "cloned_binary: running from sealed clone"
	assert_output --partial "ensure-helper: sealed=1 argv=a,b reexec-marker=unset given-fd=closed"
	# No second clone: the runtime's was used as it is.
	refute_line --regexp '^cloned_binary: using '

	# A marker naming another open fd is refused, not trusted: another
	# file, or another clone of the same binary (its inode number, on
	# another overlay's device).
	local how
	for how in wrongfd otherclone; do
		run env ENSURE_LAUNCH="$how" "$ENSURE_HELPER"
		assert_failure 1
		assert_output --partial "Failed to verify the runtime's fd"
		assert_output --partial "it is not the file we run from"
	done

	for bad in fd:x fd:2 fd: 2 fd:99999999999 yes; do
		run env _CLONED_BINARY_REEXEC="$bad" "$ENSURE_HELPER"
		assert_failure 1
		assert_output --partial "Invalid _CLONED_BINARY_REEXEC='$bad': allowed are 1 and fd:N (N >= 3)"
	done
}

@test "ensure: a pre-set re-exec marker fails instead of looping" {
	run env _CLONED_BINARY_REEXEC=1 "$ENSURE_HELPER"
	assert_failure 1
	assert_output --partial "after one re-exec"
}

@test "every emulated kernel, as the unprivileged user" {
	requires root user seccomp fakekernel memfd_noexec
	# profile:expected marker.  6.3-level2 runs at a real level 0, where
	# the faked sysctl reads 2 and MFD_EXEC would still be let through.
	# The copy goes to a directory of the user's (see the nomemfd test).
	user_tmpdir
	# nomemfd and noexecveat are older than fsopen (5.2) and imply
	# nofsopen; nouserns leaves the user no way to mount the overlay.
	# 6.1 and 6.3-level2 hide or fake vm.memfd_noexec, which for the user
	# takes a user namespace of fakekernel's that maps the user alone:
	# root's files show as the overflow uid there, so the overlay is not
	# taken (that owner may be anyone's) and the next method is, with
	# that reason.
	for pair in 6.1:memfd 6.1,nooverlay:memfd nomemfd:tmpfile \
		nomemfd,notmpfile:mkostemp 6.3-level2:tmpfile \
		6.3-level2,nofsopen:tmpfile noexecveat:memfd-exec \
		notmpfile:overlay nofsopen:memfd-exec nouserns:memfd-exec \
		nooverlay:memfd-exec; do
		profile="${pair%%:*}" want="${pair#*:}"
		run at_level 0 setpriv --reuid="$TEST_USER" --regid="$TEST_USER" \
			--init-groups --inh-caps=-all -- \
			"$U_FAKEKERNEL" --kernel="$profile" -- \
			"$U_SEALEXEC" --debug --tmpdir="$UTMP" "$U_SELFCHECK"
		echo "$profile: $output"
		assert_success
		assert_marker "$want"
		assert_output --partial "selfcheck: ok"
		if [ "$profile" = 6.1 ] || [ "$profile" = 6.3-level2 ]; then
			assert_line --partial "cloned_binary: overlay not possible (the file $U_SELFCHECK shows as owned by uid $(cat /proc/sys/kernel/overflowuid), the overflow uid"
		fi
		if [ "$profile" = 6.3-level2 ]; then
			assert_line "cloned_binary: vm.memfd_noexec=2 here, not trying a memfd"
		fi
	done
}

@test "--check tells a sealed clone from a plain file" {
	run "$SEALEXEC" --check /bin/true
	assert_failure 1
	assert_output --partial "/bin/true: not a sealed clone"
	# sealexec run through sealexec checks its own image.
	run "$SEALEXEC" "$SEALEXEC" --check /proc/self/exe
	assert_success
	assert_output --partial "/proc/self/exe: sealed clone"
	run "$SEALEXEC" --check /nonexistent
	assert_failure 2
}

# mountinfo was once read with fgets() into 4096 bytes, so a mount
# point could put a forged "mount ID" at the start of a line's tail and
# make the loader's detached overlay look attached (no overlay start
# anywhere on the machine).  ovl-forge mounts such a tmpfs in a private
# mount namespace and asks whether the overlay still counts.
@test "a mountinfo line longer than a page cannot make the detached overlay look attached" {
	requires root
	run "$BUILD_DIR/tests/helpers/ovl-forge" longline
	assert_success
	assert_line --regexp '^ovl-forge: forged id [0-9]+ at the split: yes$'
	assert_line 'ovl-forge: is_sealed=1'
}

# open(O_WRONLY) gives EROFS for a read-only mount flag just
# as for a read-only superblock, and an owner can clear the flag
# (mount_setattr) or reconfigure an overlay with an upper layer "rw".
# ovl-forge makes each and shows the owner writing; only the overlay
# without an upper layer, read-only in itself, is a sealed clone.
@test "--check: an overlay with an upper layer is no sealed clone, whatever its mount flags" {
	requires root
	local d kind
	d="$(mktemp -d /run/cbtest-forge.XXXXXX)"
	for kind in upper upper-ro unbindable lower; do
		run "$BUILD_DIR/tests/helpers/ovl-forge" "$kind" "$d" -- "$SEALEXEC" --check '{}'
		rm -rf "${d:?}"/*
		echo "$kind: $output"
		case "$kind" in # the owner's write, shown, not assumed
		upper) assert_line 'ovl-forge: write after clearing the flag: opened' ;;
		unbindable) # the proof's clone fails; that is no proof
			assert_line 'ovl-forge: open_tree(OPEN_TREE_CLONE) of it: Invalid argument'
			assert_line 'ovl-forge: write after clearing the flag: opened'
			;;
		upper-ro) assert_line 'ovl-forge: superblock reconfigured rw: ok' ;;
		esac
		if [ "$kind" = lower ]; then
			assert_success
			assert_line 'ovl-forge: is_sealed=1'
			assert_line --regexp '^/proc/self/fd/[0-9]+: sealed clone$'
		else
			assert_failure 1
			assert_line 'ovl-forge: is_sealed=0'
			assert_line --regexp '^/proc/self/fd/[0-9]+: not a sealed clone$'
		fi
	done
	rmdir "$d"
}
