#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# runc 1.3 with the 1.3 series (contrib/runc/1.3/): where runc init runs
# from.  Runs inside a Debian sid root, where runc 1.3.6 runs (it needs
# glibc 2.38): RUNC is the patched runc (contrib/runc/build.sh on Debian's
# 1.3.6 source, or the package of build-deb.sh --suite sid), STOCK_RUNC
# sid's own runc package (default /usr/sbin/runc; never ours), the sanity
# case that shows the checks can tell a copy from the overlay.
#
# A created container's init is still runc init, waiting on its exec fifo,
# so /proc/PID/exe shows what runc started it from: the binary at the root
# of a detached overlayfs ("/runc", a path in no mount tree, on overlayfs),
# or a copy ("/memfd:..." on tmpfs, or an unlinked file).  Every runc runs
# inside `at_level --proc N`, a child PID namespace at level N.

load helpers

RUNC="${STAGED_RUNC:-$RUNC}"
STOCK_RUNC="${STAGED_STOCK_RUNC:-${STOCK_RUNC:-/usr/sbin/runc}}"
BUNDLE_DIR="${STAGED_BUNDLE_DIR:-$BUILD_DIR/bundle-runc13}"
ROOTFS="$BUNDLE_DIR/rootfs"
# shellcheck disable=SC2034 # read by runc_bundle and runc_dirs (helpers.bash)
RUNC_TMP=runc13 # names the suite's directories in /tmp

setup_file() {
	[ "$(id -u)" -eq 0 ] && [ -x "$RUNC" ] || return 0
	stage_user_binaries
	install -m 0755 "$RUNC" "$USER_BIN/runc"
	RUNC="$USER_BIN/runc" BUNDLE_DIR="$USER_BIN/bundle-runc13" ROOTFS="$USER_BIN/bundle-runc13/rootfs"
	STAGED_RUNC="$RUNC" STAGED_BUNDLE_DIR="$BUNDLE_DIR" STAGED_STOCK_RUNC="$STOCK_RUNC"
	export STAGED_RUNC STAGED_BUNDLE_DIR STAGED_STOCK_RUNC
	runc_bundle --probe sh sleep cat
}

teardown_file() {
	unstage_user_binaries
}

setup() {
	requires root runc memfd_noexec cmd:jq cmd:busybox || return 1
	HOST_LEVEL_BEFORE="$(host_level)"
	HOST_DEVICES_BEFORE="$(host_devices)"
	runc_dirs
}

teardown() {
	local rc=0 id # teardown runs without errexit: each check counts through rc
	if [ -n "${T:-}" ] && [ -d "$T" ]; then
		for id in $(plain_runc list -q 2>/dev/null); do
			plain_runc delete -f "$id" >/dev/null 2>&1 || true
		done
		rm -rf "$T"
	fi
	if [ -n "${HUGEPAGES_BEFORE:-}" ]; then
		echo "$HUGEPAGES_BEFORE" >/proc/sys/vm/nr_hugepages || rc=1
		[ "$(cat /proc/sys/vm/nr_hugepages)" = "$HUGEPAGES_BEFORE" ] ||
			{ echo "vm.nr_hugepages is $(cat /proc/sys/vm/nr_hugepages), not $HUGEPAGES_BEFORE again" >&2; rc=1; }
	fi
	assert_host_level_unchanged "${HOST_LEVEL_BEFORE:-}" || rc=1
	assert_host_devices_unchanged "${HOST_DEVICES_BEFORE:-}" || rc=1
	return "$rc"
}

# config MODE ARGS_JSON: $T/b/config.json for MODE, running ARGS_JSON.
config() {
	mkdir -p "$T/b"
	jq --arg root "$ROOTFS" --argjson args "$2" '.root.path = $root |
		.root.readonly = true | .process.terminal = false | .process.args = $args' \
		"$BUNDLE_DIR/$1.json" >"$T/b/config.json"
	chmod -R a+rX "$T/b"
}

# created MODE LEVEL RUNC_BINARY: creates a container with RUNC_BINARY as
# MODE in a PID namespace at LEVEL and prints its init's exe link, then the
# filesystem type of that exe; runc's debug log is in $T/create.log.
created() {
	MODE="$1"
	write_runc "$3"
	config "$MODE" '["/bin/sleep", "60"]'
	run at_level --proc "$2" sh -ec '
		"$T/runc" --debug create -b "$T/b" ctr </dev/null >/dev/null 2>"$T/create.log"
		pid=$("$T/runc" state ctr | jq -r .pid)
		readlink "/proc/$pid/exe"
		stat -L -f -c %T "/proc/$pid/exe"
		"$T/runc" delete -f ctr'
	if [ "$status" -ne 0 ]; then
		cat "$T/create.log" >&2
		fail "runc create failed ($status)"
	fi
}

# assert_overlay: the init of created() runs from runc's binary on the
# loader's detached read-only overlay, and nothing was copied.
assert_overlay() {
	assert_success
	assert_line --index 0 /runc
	assert_line --index 1 overlayfs
	run grep -F 'cloned_binary: using overlay' "$T/create.log"
	assert_success
	# ... said in exeseal's words too, which runc's own run.bats checks
	# ("runc run [/proc/self/exe clone]"); ours says it only after the
	# loader's marker, where stock's exeseal would say it alone.
	run grep -F -A1 'cloned_binary: using overlay' "$T/create.log"
	assert_line --partial 'runc exeseal: using overlayfs for sealed /proc/self/exe'
	run grep -E 'cloned_binary: using (memfd|tmpfile|mkostemp)|cloning .* binary' "$T/create.log"
	assert_failure
	# runc init checked the clone it was started from.
	run grep -E 'nsexec\[[0-9]+\]: cloned_binary: running from sealed clone' "$T/create.log"
	assert_success
}

@test "runc --version names the memfd-toolkit loader" {
	run "$RUNC" --version
	assert_success
	assert_output --partial "runc version 1.3."
	assert_output --partial "loader: sealed W^X (memfd-toolkit "
}

@test "rootful, level 0: a created container's init runs from the overlay, no copy" {
	created rootful 0 "$RUNC"
	assert_overlay
}

@test "rootful, level 2: a created container's init runs from the overlay, no copy" {
	created rootful 2 "$RUNC"
	assert_overlay
}

@test "rootless, level 0: a created container's init runs from the overlay, no copy" {
	requires user userns
	created rootless 0 "$RUNC"
	assert_overlay
}

@test "rootless, level 2: a created container's init runs from the overlay, no copy" {
	requires user userns
	created rootless 2 "$RUNC"
	assert_overlay
}

# stock_runc: STOCK_RUNC is runc 1.3 without our loader (where the suite's
# package of ours is installed as /usr/sbin/runc, STOCK_RUNC must name a
# copy of Debian's own).
stock_runc() {
	[ -x "$STOCK_RUNC" ] || fail "no stock runc at $STOCK_RUNC (STOCK_RUNC=path to Debian sid's runc)"
	run "$STOCK_RUNC" --version
	assert_output --partial "runc version 1.3."
	refute_output --partial "memfd-toolkit"
}

@test "stock runc 1.3 (sanity): rootless, it copies itself into a memfd per container" {
	requires user userns
	stock_runc
	created rootless 0 "$STOCK_RUNC"
	assert_success
	assert_line --index 0 '/memfd:runc_cloned:/proc/self/exe (deleted)'
	assert_line --index 1 tmpfs
}

@test "stock runc 1.3 (sanity): rootless at level 2, it runs from an unsealed file copy" {
	requires user userns
	stock_runc
	created rootless 2 "$STOCK_RUNC"
	assert_success
	refute_line --index 0 /runc
	refute_line --index 1 overlayfs
}

@test "runc init refuses a clone that is not sealed: started from a plain file, with the marker, it stops" {
	# runc's own binary as a linked, writable file, given to runc init as
	# if it were the parent's clone (the marker fd:N names it).
	cp "$RUNC" "$T/copy"
	chmod 0755 "$T/copy"
	run env _LIBCONTAINER_INITPIPE=3 _CLONED_BINARY_REEXEC=fd:4 \
		sh -c 'exec 3</dev/null 4<"$0"; exec "$0" init' "$T/copy"
	assert_failure
	assert_output --partial 'could not ensure we are a cloned binary: Too many levels of symbolic links'
	refute_output --partial 'nsexec container setup'
}

# hugetlb MODE LEVEL: runs memfdprobe hugetlb-run (a script in an
# MFD_HUGETLB memfd, which hugetlbfs lets run even at level 2) in a
# container without any request, in a PID namespace at LEVEL.
hugetlb() {
	# The value before the test's first call: a test that calls this twice
	# must not take its own reservation for the host's (teardown restores it).
	HUGEPAGES_BEFORE=${HUGEPAGES_BEFORE:-$(cat /proc/sys/vm/nr_hugepages)}
	echo $((HUGEPAGES_BEFORE + 2)) >/proc/sys/vm/nr_hugepages
	[ "$(awk '/^HugePages_Free:/ { print $2 }' /proc/meminfo)" -ge 1 ] ||
		missing "a free huge page (vm.nr_hugepages could not be raised)" || return 1
	MODE=$1
	write_runc "$RUNC"
	config "$MODE" '["/bin/memfdprobe", "hugetlb-run"]'
	run at_level --proc "$2" "$T/runc" run -b "$T/b" ctr </dev/null
}

@test "no request, inherited level 2: memfd_create(MFD_HUGETLB) fails with EPERM (the rule follows the real level); at 0 the script runs" {
	hugetlb rootful 0 || return 1
	assert_success
	assert_line 'memfdprobe: the hugetlb script ran'
	hugetlb rootful 2 || return 1
	assert_success
	assert_line 'memfdprobe: flags=hugetlb-run result=EPERM'
	refute_output --partial 'the hugetlb script ran'
}

@test "rootless, no request, inherited level 2: memfd_create(MFD_HUGETLB) fails with EPERM" {
	requires user userns
	hugetlb rootless 2 || return 1
	assert_success
	assert_line 'memfdprobe: flags=hugetlb-run result=EPERM'
	refute_output --partial 'the hugetlb script ran'
}
