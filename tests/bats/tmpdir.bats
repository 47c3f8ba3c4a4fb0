#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# Which directories the loader's file fallback may use.  The copy must sit in a directory that only the caller or root
# controls, on a filesystem whose kernel enforces link count and mode:
# a FUSE daemon (tests/helpers/evilfs) decides what its files contain and
# serves its payload once the copy is read-only, whatever the link count,
# mode and owner it reports.  And mkostemp's named file must never be left
# behind (an append-only directory refuses the unlink).
#
# Every test runs on real directories: ext4 (/tmp, /var/tmp here) and
# tmpfs (/dev/shm), and a FUSE mount that root makes with allow_other on a
# directory owned by the test user (the daemon decides the bytes either
# way; a user's own mount needs user_allow_other in /etc/fuse.conf).

load helpers

EVILFS="$BUILD_DIR/tests/helpers/evilfs"
PAYLOAD="$BUILD_DIR/tests/helpers/evil-payload"
# The bases of the real directories: ext4 and tmpfs.
BASES=(/tmp /var/tmp /dev/shm)

setup_file() {
	stage_user_binaries
}

teardown_file() {
	unstage_user_binaries
}

setup() {
	[ -x "$SEALEXEC" ] || { echo "sealexec not built at $SEALEXEC" >&2; return 1; }
	HOST_LEVEL_BEFORE="$(host_level)"
	# Where the payload leaves its mark if it ever runs.
	PWNED="$BATS_TEST_TMPDIR/pwned"
	EVILFS_PID=""
	TEST_DIRS="$BATS_TEST_TMPDIR/test-dirs"
	: >"$TEST_DIRS"
}

teardown() {
	local d
	stop_evilfs
	while IFS= read -r d; do
		case "$d" in
		*/cbtest-tmpdir.*)
			chattr -a "$d" 2>/dev/null
			rm -rf -- "$d"
			;;
		esac
	done <"$TEST_DIRS"
	# The host's value must never change, whatever a test did.
	assert_host_level_unchanged "${HOST_LEVEL_BEFORE:-}"
}

requires_evilfs() {
	[ -x "$EVILFS" ] && [ -x "$PAYLOAD" ] ||
		missing "evilfs and evil-payload in $BUILD_DIR/tests/helpers" || return 1
	[ -c /dev/fuse ] && grep -qw fuse /proc/filesystems ||
		missing "FUSE (/dev/fuse)" || return 1
}

# new_dir BASE MODE OWNER: a fresh directory under BASE, removed (and made
# not append-only) in teardown.  Prints its path; the list of directories
# to remove is a file, since callers run this in a command substitution.
new_dir() {
	local d
	d="$(mktemp -d "$1/cbtest-tmpdir.XXXXXX")" || return 1
	echo "$d" >>"$TEST_DIRS"
	chown "$3" "$d" && chmod "$2" "$d" || return 1
	echo "$d"
}

# start_evilfs MNT [--claim-root] [--direct-io]: mounts evilfs on MNT
# (root, allow_other) and waits until the mount is there.
start_evilfs() {
	local mnt="$1"
	shift
	"$EVILFS" -f -o allow_other --payload="$PAYLOAD" "$@" "$mnt" \
		>"$BATS_TEST_TMPDIR/evilfs.log" 2>&1 3>&- &
	EVILFS_PID=$!
	EVILFS_MNT="$mnt"
	for _ in $(seq 100); do
		# 0x65735546: FUSE_SUPER_MAGIC
		[ "$(stat -f -c %t "$mnt")" = 65735546 ] && return 0
		kill -0 "$EVILFS_PID" 2>/dev/null || break
		sleep 0.1
	done
	echo "evilfs did not mount on $mnt:" >&2
	cat "$BATS_TEST_TMPDIR/evilfs.log" >&2
	return 1
}

stop_evilfs() {
	[ -n "${EVILFS_PID:-}" ] || return 0
	# The daemon leaves its loop once unmounted; SIGTERM if it did not.
	umount "$EVILFS_MNT" 2>/dev/null || umount -l "$EVILFS_MNT" 2>/dev/null || true
	kill "$EVILFS_PID" 2>/dev/null || true
	wait "$EVILFS_PID" 2>/dev/null || true
	EVILFS_PID=""
}

# refute_payload: the payload never ran (no marker file, no PWNED line).
refute_payload() {
	[ ! -e "$PWNED" ] || { fail "the FUSE payload ran (marker: $(cat "$PWNED"))"; return; }
	refute_output --partial PWNED
}

# assert_skipped DIR KEYWORD: the debug line "cloned_binary: skipping DIR: "
# naming the rule.
assert_skipped() {
	local line
	line="$(grep -F "cloned_binary: skipping $1: " <<<"$output")" || :
	[ -n "$line" ] && grep -qF -- "$2" <<<"$line" && return
	batslib_print_kv_single_or_multi 8 'line' "cloned_binary: skipping $1: ...$2..." 'output' "$output" |
		batslib_decorate "the loader did not skip the directory for that reason" | fail
}

# assert_refused DIR KEYWORD: exit 126, the message names DIR and the rule,
# and the program never ran.
assert_refused() {
	assert_failure 126
	assert_output --partial "$1"
	assert_output --partial "$2"
	refute_line --regexp '^selfcheck: ' # the program never ran
}

# exe_of_selfcheck: the path selfcheck ran from ("/dir/#123 (deleted)").
exe_of_selfcheck() {
	sed -n 's/^selfcheck: exe=\(.*\) seals=.*/\1/p' <<<"$output"
}

# assert_sealed_copy_in DIR: selfcheck passed, from an unlinked copy
# without write bits in DIR.
assert_sealed_copy_in() {
	local exe
	exe="$(exe_of_selfcheck)"
	assert_output --partial "nlink=0 method=tmpfile"
	assert_output --partial "selfcheck: ok"
	case "$exe" in
	"$1"/*) ;;
	*) fail "expected the copy in $1, it ran from '$exe'; its output: $output" ;;
	esac
}

# assert_sealed_copy_outside DIR: selfcheck passed, from an unlinked copy
# without write bits, not in DIR.
assert_sealed_copy_outside() {
	local exe
	exe="$(exe_of_selfcheck)"
	assert_output --partial "nlink=0 method=tmpfile"
	assert_output --partial "selfcheck: ok"
	case "$exe" in
	"$1"/* | "") fail "expected the copy outside $1, it ran from '$exe'; its output: $output" ;;
	esac
}

# assert_no_leftover DIR: no named copy remains in DIR.
assert_no_leftover() {
	local left
	left="$(find "$1" -name '.cloned_binary-*')"
	[ -z "$left" ] || fail "copies left behind in $1: $left"
}

@test "evilfs control: a file chmod'ed 0500 serves the payload, nlink and mode stay honest" {
	# Proves the attacker works, so that "the payload never ran" below
	# means something: written bytes come back until the file is
	# read-only, then the payload's, and executing it runs the payload.
	requires root user
	requires_evilfs
	for opt in "" --direct-io; do
		mnt="$(new_dir /tmp 0700 "$TEST_USER")"
		start_evilfs "$mnt" $opt
		[ "$(stat -c %u "$mnt")" = "$(id -u "$TEST_USER")" ]
		cp "$SELFCHECK" "$mnt/prog"
		cmp "$SELFCHECK" "$mnt/prog"
		chmod 0500 "$mnt/prog"
		[ "$(stat -c %a:%h:%s "$mnt/prog")" = "500:1:$(stat -c %s "$SELFCHECK")" ]
		cmp -n "$(stat -c %s "$PAYLOAD")" "$PAYLOAD" "$mnt/prog"
		run env EVILFS_MARKER="$PWNED" "$mnt/prog"
		assert_success
		assert_output --partial "PWNED uid=0"
		[ "$(cat "$PWNED")" = "PWNED uid=0" ]
		rm -f "$PWNED"
		# Unlinked while open: nlink 0, and the payload still served.
		run sh -c 'exec 3<"$1" && rm -f "$1" && stat -L -c %h /proc/self/fd/3 &&
			cmp -n "$(stat -c %s "$2")" "$2" /proc/self/fd/3 && echo same' \
			sh "$mnt/prog" "$PAYLOAD"
		assert_success
		assert_output "$(printf '0\nsame')"
		[ -z "$(ls -A "$mnt")" ]
		# --claim-root: the directory and files say root, 0755.
		stop_evilfs
		start_evilfs "$mnt" --claim-root $opt
		[ "$(stat -c %u:%g:%a "$mnt")" = "0:0:755" ]
		stop_evilfs
	done
}

@test "root with XDG_RUNTIME_DIR on a user's FUSE mount: payload never runs, copy made elsewhere" {
	# The red team's case: root runs sealexec with a user's
	# XDG_RUNTIME_DIR (su without -), where the user mounted FUSE with
	# allow_other.  Once as the mount shows itself (owned by the user),
	# once claiming root ownership and mode 0755; each with
	# --method=tmpfile and with auto at vm.memfd_noexec=2.
	requires root user memfd_noexec
	requires_evilfs
	for opt in "" --claim-root; do
		mnt="$(new_dir /tmp 0700 "$TEST_USER")"
		start_evilfs "$mnt" $opt
		for how in --method=tmpfile level2; do
			if [ "$how" = level2 ]; then
				# The file path is taken at 2 when there is
				# no overlay (before 5.2, or refused).
				wrap=(at_level 2 env) args=()
			else
				wrap=(env) args=("$how")
			fi
			run "${wrap[@]}" -u SEALEXEC_TMPDIR XDG_RUNTIME_DIR="$mnt" \
				EVILFS_MARKER="$PWNED" MEMFD_TOOLKIT_FEATURES=-fsopen \
				"$SEALEXEC" --debug "${args[@]}" "$SELFCHECK" --expect-method=tmpfile
			echo "evilfs $opt, $how: status $status"
			echo "$output"
			refute_payload
			assert_success
			if [ "$opt" = --claim-root ]; then
				assert_skipped "$mnt" fuse
			else
				assert_skipped "$mnt" "owned by uid"
			fi
			assert_marker tmpfile
			assert_sealed_copy_outside "$mnt"
		done
		stop_evilfs
	done
}

@test "root: --tmpdir on a FUSE mount claiming root ownership is refused (fuse)" {
	requires root user
	requires_evilfs
	mnt="$(new_dir /tmp 0700 "$TEST_USER")"
	start_evilfs "$mnt" --claim-root
	# Ownership and mode alone would let it through.
	[ "$(stat -c %u:%a "$mnt")" = "0:755" ]
	run env EVILFS_MARKER="$PWNED" \
		"$SEALEXEC" --debug --method=tmpfile --tmpdir="$mnt" "$SELFCHECK"
	echo "$output"
	refute_payload
	assert_refused "$mnt" fuse
	# The same through auto, with no overlay and no memfd to be had.
	run env EVILFS_MARKER="$PWNED" MEMFD_TOOLKIT_FEATURES=-fsopen,-memfd_create \
		"$SEALEXEC" --debug --tmpdir="$mnt" "$SELFCHECK"
	echo "$output"
	refute_payload
	assert_refused "$mnt" fuse
}

@test "--tmpdir ownership: own and root's directories accepted, another uid's refused (root and user, ext4 and tmpfs)" {
	requires root user
	for base in "${BASES[@]}"; do
		# root: its own directory is fine; the test user's is not.
		d="$(new_dir "$base" 0700 root)"
		run "$SEALEXEC" --debug --method=tmpfile --tmpdir="$d" "$SELFCHECK" --expect-method=tmpfile
		echo "root, own $d: $output"
		assert_success
		assert_marker tmpfile
		assert_sealed_copy_in "$d"

		d="$(new_dir "$base" 0700 "$TEST_USER")"
		run "$SEALEXEC" --debug --method=tmpfile --tmpdir="$d" "$SELFCHECK"
		echo "root, $TEST_USER's $d: $output"
		assert_refused "$d" "owned by uid"
		assert_no_leftover "$d"

		# The user: its own directory and a root-owned sticky one are
		# fine; another user's sticky, world-writable one is not.
		d="$(new_dir "$base" 0700 "$TEST_USER")"
		run as_user "$U_SEALEXEC" --debug --method=tmpfile --tmpdir="$d" "$U_SELFCHECK" --expect-method=tmpfile
		echo "user, own $d: $output"
		assert_success
		assert_marker tmpfile
		assert_sealed_copy_in "$d"

		d="$(new_dir "$base" 01777 root)"
		run as_user "$U_SEALEXEC" --debug --method=tmpfile --tmpdir="$d" "$U_SELFCHECK" --expect-method=tmpfile
		echo "user, root's sticky $d: $output"
		assert_success
		assert_sealed_copy_in "$d"

		d="$(new_dir "$base" 01777 nobody)"
		run as_user "$U_SEALEXEC" --debug --method=tmpfile --tmpdir="$d" "$U_SELFCHECK"
		echo "user, nobody's $d: $output"
		assert_refused "$d" "owned by uid"
		assert_no_leftover "$d"
	done
}

@test "root: an XDG_RUNTIME_DIR or SEALEXEC_TMPDIR owned by the test user is skipped, the copy lands elsewhere" {
	requires root user
	for base in "${BASES[@]}"; do
		for var in XDG_RUNTIME_DIR SEALEXEC_TMPDIR; do
			d="$(new_dir "$base" 0700 "$TEST_USER")"
			run env -u SEALEXEC_TMPDIR -u XDG_RUNTIME_DIR "$var=$d" \
				"$SEALEXEC" --debug --method=tmpfile "$SELFCHECK" --expect-method=tmpfile
			echo "$var=$d: $output"
			assert_success
			assert_skipped "$d" "owned by uid"
			assert_marker tmpfile
			assert_sealed_copy_outside "$d"
			assert_no_leftover "$d"
		done
		# The user's own XDG_RUNTIME_DIR is where the user's copy goes.
		run as_user env -u SEALEXEC_TMPDIR XDG_RUNTIME_DIR="$d" \
			"$U_SEALEXEC" --debug --method=tmpfile "$U_SELFCHECK" --expect-method=tmpfile
		echo "user, XDG_RUNTIME_DIR=$d: $output"
		assert_success
		assert_marker tmpfile
		assert_sealed_copy_in "$d"
	done
}

@test "group- or world-writable directories need the sticky bit (root and user, ext4 and tmpfs)" {
	requires root user
	for base in "${BASES[@]}"; do
		for mode in 0777 0770 0703; do
			d="$(new_dir "$base" "$mode" root)"
			run "$SEALEXEC" --debug --method=tmpfile --tmpdir="$d" "$SELFCHECK"
			echo "root, $mode $d: $output"
			assert_refused "$d" "writable by group or others"
			assert_no_leftover "$d"
		done
		for mode in 01777 01770; do
			d="$(new_dir "$base" "$mode" root)"
			run "$SEALEXEC" --debug --method=tmpfile --tmpdir="$d" "$SELFCHECK" --expect-method=tmpfile
			echo "root, $mode $d: $output"
			assert_success
			assert_marker tmpfile
			assert_sealed_copy_in "$d"
		done
		# As a candidate, a 0777 directory is skipped.
		d="$(new_dir "$base" 0777 root)"
		run env -u XDG_RUNTIME_DIR SEALEXEC_TMPDIR="$d" \
			"$SEALEXEC" --debug --method=tmpfile "$SELFCHECK" --expect-method=tmpfile
		echo "root, SEALEXEC_TMPDIR=$d: $output"
		assert_success
		assert_skipped "$d" "writable by group or others"
		assert_sealed_copy_outside "$d"
		# The user's own directory, world-writable.
		d="$(new_dir "$base" 0777 "$TEST_USER")"
		run as_user "$U_SEALEXEC" --debug --method=tmpfile --tmpdir="$d" "$U_SELFCHECK"
		echo "user, 0777 $d: $output"
		assert_refused "$d" "writable by group or others"
		assert_no_leftover "$d"
	done
}

# item6_check BASE: an append-only directory under BASE (chattr +a), with
# neither memfd nor O_TMPFILE, so that mkostemp would be the way.
item6_check() {
	local base="$1" d
	requires root user seccomp fakekernel
	d="$(new_dir "$base" 0700 root)"
	chattr +a "$d" || missing "chattr +a on $(stat -f -c %T "$base") ($base)" || return 1
	[[ "$(lsattr -d "$d")" == *a*" $d" ]]

	run "$FAKEKERNEL" --kernel=nomemfd,notmpfile -- \
		"$SEALEXEC" --debug --tmpdir="$d" "$SELFCHECK"
	echo "root, --tmpdir=$d: $output"
	assert_no_leftover "$d"
	assert_refused "$d" append-only

	# As a candidate it is skipped, and mkostemp works elsewhere.
	run env -u XDG_RUNTIME_DIR SEALEXEC_TMPDIR="$d" "$FAKEKERNEL" --kernel=nomemfd,notmpfile -- \
		"$SEALEXEC" --debug "$SELFCHECK" --expect-method=tmpfile
	echo "root, SEALEXEC_TMPDIR=$d: $output"
	assert_no_leftover "$d"
	assert_success
	assert_skipped "$d" append-only
	assert_marker mkostemp
	assert_sealed_copy_outside "$d"

	# The user's own append-only directory.
	d="$(new_dir "$base" 0700 "$TEST_USER")"
	chattr +a "$d"
	run as_user "$U_FAKEKERNEL" --kernel=nomemfd,notmpfile -- \
		"$U_SEALEXEC" --debug --tmpdir="$d" "$U_SELFCHECK"
	echo "user, --tmpdir=$d: $output"
	assert_no_leftover "$d"
	assert_refused "$d" append-only
}

@test "append-only directory on ext4 (/var/tmp): refused or skipped, no named copy left" {
	[ "$(stat -f -c %T /var/tmp)" = ext2/ext3 ] || missing "/var/tmp on ext4" || return 1
	item6_check /var/tmp
}

@test "append-only directory on tmpfs (/dev/shm): refused or skipped, no named copy left" {
	[ "$(stat -f -c %T /dev/shm)" = tmpfs ] || missing "/dev/shm on tmpfs" || return 1
	item6_check /dev/shm
}

# The overlay's empty layer.  Before 6.15 the overlay's empty second layer is a new
# directory in a tmpdir candidate, and those skipped the rules above: under
# `sudo -E` root made and removed directories in a user's directory.  The
# fakekernel refuses the detached tmpfs layer (its fsmount with only
# MOUNT_ATTR_RDONLY), which takes the loader down that path on 6.15+ too;
# the qemu kernel matrix (tests/kernels) runs the real one.
NO_DETACHED_LAYER='fsmount[2==1]=EINVAL'

# plant_stale DIR OWNER: an abandoned empty-layer directory (mtime 1970).
plant_stale() {
	mkdir "$1/.cloned_binary-ovl-0123456789abcdef"
	chown "$2" "$1/.cloned_binary-ovl-0123456789abcdef"
	touch -d @1 "$1/.cloned_binary-ovl-0123456789abcdef"
}

@test "the overlay's empty-layer directory follows the rules: root skips a user's, sweeps only its own" {
	requires root user seccomp fakekernel
	local base d var
	for base in "${BASES[@]}"; do
		for var in XDG_RUNTIME_DIR SEALEXEC_TMPDIR; do
			d="$(new_dir "$base" 0700 "$TEST_USER")"
			plant_stale "$d" "$TEST_USER"
			run env -u SEALEXEC_TMPDIR -u XDG_RUNTIME_DIR "$var=$d" \
				"$FAKEKERNEL" --fail="$NO_DETACHED_LAYER" -- \
				"$SEALEXEC" --debug "$SELFCHECK" --expect-method=overlay
			echo "root, $var=$d: $output"
			assert_success
			assert_line --partial "cloned_binary: skipping $d for the overlay's empty layer: owned by uid"
			assert_marker overlay
			# Nothing made or removed in the user's directory.
			[ "$(find "$d" -mindepth 1 | wc -l)" -eq 1 ]
			[ -d "$d/.cloned_binary-ovl-0123456789abcdef" ]
		done
		# Group-writable without the sticky bit: skipped too.
		d="$(new_dir "$base" 0770 root)"
		run env -u XDG_RUNTIME_DIR SEALEXEC_TMPDIR="$d" \
			"$FAKEKERNEL" --fail="$NO_DETACHED_LAYER" -- \
			"$SEALEXEC" --debug "$SELFCHECK" --expect-method=overlay
		assert_success
		assert_line --partial "cloned_binary: skipping $d for the overlay's empty layer: writable by group or others without the sticky bit"
		# The user's own directory takes it, and the user's stale one
		# there is swept; one in a directory of root's is left alone.
		d="$(new_dir "$base" 0700 "$TEST_USER")"
		plant_stale "$d" "$TEST_USER"
		local sticky
		sticky="$(new_dir "$base" 1777 root)"
		plant_stale "$sticky" "$TEST_USER"
		run as_user env -u XDG_RUNTIME_DIR SEALEXEC_TMPDIR="$d" \
			"$U_FAKEKERNEL" --fail="$NO_DETACHED_LAYER" -- \
			"$U_SEALEXEC" --debug "$U_SELFCHECK" --expect-method=overlay
		echo "user, SEALEXEC_TMPDIR=$d: $output"
		assert_success
		assert_marker overlay
		[ "$(find "$d" -mindepth 1 | wc -l)" -eq 0 ]
		run as_user env -u XDG_RUNTIME_DIR SEALEXEC_TMPDIR="$sticky" \
			"$U_FAKEKERNEL" --fail="$NO_DETACHED_LAYER" -- \
			"$U_SEALEXEC" --debug "$U_SELFCHECK" --expect-method=overlay
		echo "user, SEALEXEC_TMPDIR=$sticky: $output"
		assert_success
		assert_marker overlay
		[ -d "$sticky/.cloned_binary-ovl-0123456789abcdef" ]
		[ "$(find "$sticky" -mindepth 1 | wc -l)" -eq 1 ]
	done
}

# The overlay is the file itself, so its owner and mode must mean what they
# say: on FUSE the daemon reports them (evilfs claims root and 0755), and
# serves what bytes it likes.  The file methods' filesystem rule applies to
# the binary and its directories (cloned_binary_test's
# overlay_untrusted_fs_dir has a directory above on another filesystem).
@test "the overlay refuses a binary on FUSE that claims root: auto copies with the reason, a forced overlay fails" {
	requires root user
	requires_evilfs
	local mnt
	mnt="$(new_dir /tmp 0700 "$TEST_USER")"
	start_evilfs "$mnt" --claim-root
	cp "$SELFCHECK" "$mnt/prog"
	chmod 0755 "$mnt/prog"
	# Owner and mode alone would let it through.
	[ "$(stat -c %u:%a "$mnt" "$mnt/prog" | sort -u)" = "0:755" ]
	run at_level 0 env EVILFS_MARKER="$PWNED" \
		"$SEALEXEC" --debug "$mnt/prog" --expect-method=memfd-exec
	echo "$output"
	refute_payload
	assert_success
	assert_line "cloned_binary: overlay not possible (the file $mnt/prog is on fuse, where the filesystem's daemon or server, not the kernel, reports its owner and mode and serves its bytes: the overlay runs the file itself, so it is taken only where the file and every directory above it are on tmpfs, ext4, xfs or btrfs, as the file methods' copies are. Move the binary to such a filesystem, or use a copy (--method=memfd)), falling back"
	assert_marker memfd-exec
	assert_output --partial "selfcheck: ok"
	run env EVILFS_MARKER="$PWNED" "$SEALEXEC" --method=overlay "$mnt/prog"
	refute_payload
	assert_failure 126
	assert_output --partial "sealexec: Failed to make a sealed copy of $mnt/prog: Failed to open the binary from a detached overlayfs (overlay): the file $mnt/prog is on fuse, where"
	refute_output --partial "selfcheck:"
}
