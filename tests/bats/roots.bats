#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# contrib/lib.sh's suite roots, which build and test trixie's and sid's runc
# (contrib/runc/build-deb.sh --suite, tests/roots/run.sh): a root is entered
# with pivot_root, so that a user there may make a user namespace; a run is
# bounded and leaves nothing mounted or running; a root is never removed
# while something is mounted in it; and a half-made root tar is never used.
#
# The trixie root's tar is made when absent (mmdebstrap, minutes); run-all
# makes it before the bats suites.

load helpers

setup_file() {
	[ "$(id -u)" -eq 0 ] || return 0
	PROG=roots.bats
	# shellcheck source=contrib/lib.sh
	. "$REPO_ROOT/contrib/lib.sh"
	suite_unpack trixie "$REPO_ROOT/build/roots/trixie-harness" >&3 2>&1
}

teardown_file() {
	[ "$(id -u)" -eq 0 ] || return 0
	PROG=roots.bats
	. "$REPO_ROOT/contrib/lib.sh"
	suite_remove "$REPO_ROOT/build/roots/trixie-harness"
}

setup() {
	requires root || return 1
	PROG=roots.bats
	. "$REPO_ROOT/contrib/lib.sh"
	ROOT=$REPO_ROOT/build/roots/trixie-harness
	[ -x "$ROOT/usr/bin/bash" ] || missing "the trixie root (contrib/lib.sh suite_unpack)" || return 1
	T=$(mktemp -d /tmp/roots-bats.XXXXXX)
}

teardown() {
	[ -z "${T:-}" ] || rm -rf "$T"
}

# own_mounts: this process's mounts that name the repository's build/roots.
own_mounts() {
	grep -F "$REPO_ROOT/build/roots" /proc/self/mountinfo || :
}

@test "suite_run: the command runs in trixie at /, in a PID namespace of its own, and a user there may make a user namespace (pivot_root, not chroot)" {
	run suite_run "$ROOT" 120 bash -c '
		. /etc/os-release; echo "codename=$VERSION_CODENAME"
		echo "pid=$$"
		readlink /proc/1/exe
		setpriv --reuid=65534 --regid=65534 --clear-groups -- unshare --user --map-root-user true && echo userns=ok'
	assert_success
	assert_line codename=trixie
	assert_line userns=ok
	# The init is the entering shell; the command its child.
	refute_line pid=1
	assert_line /usr/bin/bash
}

@test "suite_run: a hung command is killed at its bound with all it started; nothing stays mounted" {
	local before marker="roots-bats-hang-$$"
	before=$(own_mounts)
	SECONDS=0
	run suite_run "$ROOT" 5 bash -c "exec -a $marker sleep 1000 & exec -a $marker sleep 1000"
	assert_failure 137
	[ "$SECONDS" -lt 60 ] || fail "killed after $SECONDS s, not at its 5 s bound"
	run pgrep -f "$marker"
	assert_failure 1
	[ "$(own_mounts)" = "$before" ] || fail "mounts left: $(diff <(echo "$before") <(own_mounts))"
	# The root's own directories are empty again (the mounts were only
	# in the root's namespace).
	[ -z "$(ls -A "$ROOT/proc")" ] || fail "$ROOT/proc is not empty"
	[ ! -e "$ROOT/.old" ] || fail "$ROOT/.old left behind"
}

@test "suite_run: SUITE_BINDS are read-only inside, SUITE_BINDS_RW writable" {
	mkdir -p "$T/ro" "$T/rw"
	SUITE_BINDS="$T/ro" SUITE_BINDS_RW="$T/rw" run suite_run "$ROOT" 60 bash -c "
		touch $T/ro/x 2>/dev/null && echo ro=writable
		touch $T/rw/x && echo rw=ok"
	assert_success
	refute_line ro=writable
	assert_line rw=ok
	[ -e "$T/rw/x" ] && [ ! -e "$T/ro/x" ]
}

@test "suite_remove refuses a root with a mount below it, and names it" {
	run unshare --mount --propagation private -- bash -c '
		PROG=roots.bats; . "$0/contrib/lib.sh"
		mount -t tmpfs tmpfs "$1/mnt"
		suite_remove "$1"' "$REPO_ROOT" "$ROOT"
	assert_failure 1
	assert_output "roots.bats: refusing to remove $ROOT: mounted below it: $ROOT/mnt"
	[ -x "$ROOT/usr/bin/bash" ]
	run suite_remove /tmp
	assert_failure 1
	assert_output --partial "refusing to remove /tmp: not under $REPO_ROOT/build"
}

# A copy of contrib/lib.sh in $T/repo (its TOP), with a fake mmdebstrap
# that writes part of its tar, then exits with $FAKE_RC.
fake_repo() {
	mkdir -p "$T/repo/contrib" "$T/bin"
	cp "$REPO_ROOT/contrib/lib.sh" "$T/repo/contrib/"
	cat >"$T/bin/mmdebstrap" <<-'EOF'
		#!/bin/sh
		for a; do case "$a" in *.part.*) out=$a ;; esac; done
		echo "half a root" >"$out"
		exit "$FAKE_RC"
	EOF
	chmod +x "$T/bin/mmdebstrap"
}

@test "suite_tar: a failed mmdebstrap leaves no tar; a made one is renamed whole and reused" {
	fake_repo
	FAKE_RC=1 PATH="$T/bin:$PATH" run bash -c 'PROG=t; . "$0/contrib/lib.sh"; suite_tar trixie' "$T/repo"
	assert_failure 1
	assert_output --partial "t: mmdebstrap failed to make the trixie root (log: $T/repo/build/roots/trixie.log)"
	run find "$T/repo/build/roots" -name '*.tar*'
	assert_output ''
	FAKE_RC=0 PATH="$T/bin:$PATH" run bash -c 'PROG=t; . "$0/contrib/lib.sh"; suite_tar trixie 2>/dev/null' "$T/repo"
	assert_success
	assert_output --regexp "^$T/repo/build/roots/trixie-[0-9a-f]{12}\\.tar\$"
	[ "$(cat "$output")" = "half a root" ]
	local tar="$output"
	# Cached: mmdebstrap is not run again (it would fail).
	FAKE_RC=1 PATH="$T/bin:$PATH" run bash -c 'PROG=t; . "$0/contrib/lib.sh"; suite_tar trixie' "$T/repo"
	assert_success
	assert_output "$tar"
	run find "$T/repo/build/roots" -name '*.part*'
	assert_output ''
}
