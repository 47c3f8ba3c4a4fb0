#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# memfd-noexec audit, on real processes: each helper of tests/helpers/
# (audit-mfdexec, audit-flagless, audit-readonly), stock Debian runc 1.1.5
# rootless, the patched runc (contrib/runc/build.sh) and a container with
# the memfd_noexec=2 annotation.  For every helper the audit's verdict is
# compared with what really happens when the same program runs at level 1
# and at level 2.
#
# Everything runs inside `at_level --proc N` (a child PID namespace at N, with its
# own /proc, so the audit sees only the test's processes and PIDs are that
# namespace's); teardown checks that the host's value did not move.

load helpers

RUNC="${STAGED_RUNC:-$RUNC}"
USER_BIN="${STAGED_USER_BIN:-}"
BUNDLE_DIR="${STAGED_BUNDLE_DIR:-$BUILD_DIR/bundle-audit}"
ROOTFS="$BUNDLE_DIR/rootfs"
STOCK_RUNC=/usr/sbin/runc
MN="${STAGED_MN:-$BUILD_DIR/memfd-noexec/memfd-noexec}"
HELPERS="$BUILD_DIR/tests/helpers"
export MN HELPERS

# A read-only busybox rootfs and the rootful and rootless base configs,
# made once in a world-readable directory with the staged binaries.
setup_file() {
	[ "$(id -u)" -eq 0 ] || return 0
	stage_user_binaries
	STAGED_USER_BIN="$USER_BIN" STAGED_MN="$U_MEMFD_NOEXEC"
	BUNDLE_DIR="$USER_BIN/bundle" ROOTFS="$USER_BIN/bundle/rootfs"
	STAGED_BUNDLE_DIR="$BUNDLE_DIR"
	if [ -x "$RUNC" ]; then
		install -m 0755 "$RUNC" "$USER_BIN/runc"
		STAGED_RUNC="$USER_BIN/runc"
	fi
	export STAGED_USER_BIN STAGED_MN STAGED_BUNDLE_DIR STAGED_RUNC
	mkdir -p "$ROOTFS/bin" "$ROOTFS/proc" "$ROOTFS/dev" "$ROOTFS/sys" \
		"$ROOTFS/tmp" "$ROOTFS/etc"
	cp /bin/busybox "$ROOTFS/bin/busybox"
	local a
	for a in sh true sleep; do
		ln -s busybox "$ROOTFS/bin/$a"
	done
	chmod -R a+rX "$BUNDLE_DIR"
	(cd "$BUNDLE_DIR" && "$STOCK_RUNC" spec && mv config.json rootful.json)
	if ensure_test_user; then
		local d
		d=$(mktemp -d /tmp/audit-bats-spec.XXXXXX)
		chown "$TEST_USER:" "$d"
		(cd "$d" && as_user "$STOCK_RUNC" spec --rootless)
		mv "$d/config.json" "$BUNDLE_DIR/rootless.json"
		rm -rf "$d"
	fi
	chmod a+r "$BUNDLE_DIR"/*.json
}

teardown_file() {
	unstage_user_binaries
}

setup() {
	requires root memfd_noexec cmd:jq cmd:busybox || return 1
	HOST_LEVEL_BEFORE="$(host_level)"
	T=$(mktemp -d /tmp/audit-bats.XXXXXX)
	chmod 755 "$T"
	STATE="$T/state"
	mkdir -m 700 "$STATE" "$T/xdg"
	# Unique, so that cgroups left behind are this test's.
	ID="audit-$BATS_TEST_NUMBER-$$"
	CGROUP_TOP="audit-bats-$BATS_TEST_NUMBER-$$"
	MODE=rootful
	export T STATE ID
}

teardown() {
	if [ -n "${T:-}" ] && [ -d "$T" ]; then
		local id
		# The containers died with their at_level namespace; delete -f
		# cleans up state and cgroups.
		for id in $(plain_runc list -q 2>/dev/null); do
			plain_runc delete -f "$id" >/dev/null 2>&1 || true
		done
		rm -rf "$T"
	fi
	# Cgroup parents that runc created for the layout test (runc removes
	# only the leaf); all below this test's own top directory.
	local top
	for top in /sys/fs/cgroup/"${CGROUP_TOP:-/}" /sys/fs/cgroup/*/"${CGROUP_TOP:-/}"; do
		[ -n "${CGROUP_TOP:-}" ] && [ -d "$top" ] || continue
		find "$top" -depth -type d -print0 | xargs -0 -r rmdir 2>/dev/null || true
	done
	# The host's value must never change.
	assert_host_level_unchanged "${HOST_LEVEL_BEFORE:-}"
}

# ---- the helpers -------------------------------------------------------------

# audit_held LEVEL CMD...: in a child PID namespace at LEVEL, starts CMD (a
# helper that holds), waits for its "ready" line, and audits it with --pid
# into $T/audit.json and $T/audit.txt.  The helper dies with the namespace.
audit_held() {
	local level="$1"
	shift
	at_level --proc "$level" sh -ec '
		"$@" >"$T/held.out" 2>&1 &
		i=0
		until grep -q ": ready pid=" "$T/held.out"; do
			i=$((i + 1))
			[ $i -lt 200 ] || { cat "$T/held.out" >&2; exit 1; }
			sleep 0.05
		done
		"$MN" audit --json --pid $! >"$T/audit.json"
		"$MN" audit --pid $! >"$T/audit.txt"' sh "$@"
}

# The audited process's JSON object, and one field of it.
proc_json() {
	jq -e '.namespaces[0].processes[0]' "$T/audit.json"
}
field() {
	jq -er ".namespaces[0].processes[0].$1" "$T/audit.json"
}

# outcome LEVEL CMD...: runs CMD --once in a child PID namespace at LEVEL;
# prints "ok" (the situation was reached) or "fails" (the kernel refused
# a step: exit 3 or 4 with an EACCES line).  Anything else fails the test.
outcome() {
	local level="$1" out rc=0
	shift
	out=$(at_level --proc "$level" "$@" --once 2>&1) || rc=$?
	case "$rc:$out" in
	0:*": ok") echo ok ;;
	[34]:*=EACCES) echo fails ;;
	*)
		fail "unexpected result at level $level (exit $rc): $out"
		;;
	esac
}

# assert_audit VERDICT BASIS: the audited process's verdict and basis, in
# the JSON and in the text output.
assert_audit() {
	local got
	got="$(field verdict) / $(field basis)"
	if [ "$got" != "$1 / $2" ]; then
		fail "expected the verdict '$1 / $2', got '$got'; the audit said: $(cat "$T/audit.txt")"
		return
	fi
	local suffix="" text
	case "$2" in "worst case" | unreadable) suffix=" (worst case)" ;; esac
	text=$(sed -nE 's/^  [0-9]+ .*: ((fine|breaks) at .*)$/\1/p' "$T/audit.txt" | head -1)
	[ "$text" = "$1$suffix" ] ||
		fail "the text output says '$text', not '$1$suffix': $(cat "$T/audit.txt")"
}

# assert_real VERDICT BASIS AT1 AT2: what really happened at levels 1 and
# 2 (ok|fails) agrees with the verdict: exactly, or, for a worst case, no
# worse than it (the kernel could not tell, so reality may be better).
assert_real() {
	local want1 want2
	case "$1" in
	"fine at 2") want1=ok want2=ok ;;
	"breaks at 2 only") want1=ok want2=fails ;;
	"breaks at 1 and 2") want1=fails want2=fails ;;
	*) fail "assert_real: unknown verdict '$1'"; return ;;
	esac
	if [ "$2" = "worst case" ] || [ "$2" = unreadable ]; then
		{ [ "$want1" = fails ] || [ "$3" = ok ]; } &&
			{ [ "$want2" = fails ] || [ "$4" = ok ]; } && return 0
	else
		[ "$3" = "$want1" ] && [ "$4" = "$want2" ] && return 0
	fi
	fail "verdict '$1' ($2) says level 1: $want1, level 2: $want2; really level 1: $3, level 2: $4"
}

# check_helper START VERDICT BASIS REAL1 REAL2 CMD...: the audit of CMD
# held at level START says VERDICT (BASIS); CMD really gives REAL1 at
# level 1 and REAL2 at level 2; and the two agree.
check_helper() {
	local start="$1" verdict="$2" basis="$3" real1="$4" real2="$5" at1 at2
	shift 5
	run audit_held "$start" "$@"
	assert_success
	assert_audit "$verdict" "$basis"
	at1=$(outcome 1 "$@")
	at2=$(outcome 2 "$@")
	[ "$at1 $at2" = "$real1 $real2" ] ||
		fail "expected level 1: $real1, level 2: $real2; got $at1, $at2"
	assert_real "$verdict" "$basis" "$at1" "$at2"
}

@test "audit-mfdexec (MFD_EXEC, sealed F_SEAL_EXEC): breaks at 2 only, and really does" {
	check_helper 0 "breaks at 2 only" seals ok fails \
		"$HELPERS/audit-mfdexec"
	[ "$(field exe.memfd)" = true ]
	[ "$(field exe.mode)" = 0555 ]
	[ "$(field exe.seals)" = 63 ]
	[ "$(field exe.read_via)" = "/proc/$(field pid)/exe" ]
	grep -qF 'made executable on purpose, i.e. with MFD_EXEC' "$T/audit.txt"
}

@test "audit-flagless exec (runc 1.1's clone): breaks at 1 and 2, and really does" {
	check_helper 0 "breaks at 1 and 2" "worst case" fails fails \
		"$HELPERS/audit-flagless" exec
	[ "$(field exe.mode)" = 0777 ]
	[ "$(field exe.seals)" = 15 ]
	[ "$(field breaks_at_1)" = true ]
}

@test "audit-mfdexec --no-exec-seal looks flagless: worst case 1 and 2, really 2 only" {
	# The kernel keeps no creation flag: this MFD_EXEC memfd (0777, 0xf)
	# is indistinguishable from the flagless one above, so the audit
	# shows the worse case and says so.
	check_helper 0 "breaks at 1 and 2" "worst case" ok fails \
		"$HELPERS/audit-mfdexec" --no-exec-seal
	grep -qF 'the kernel keeps no record of which' "$T/audit.txt"
}

@test "audit-flagless map (a JIT's RW+RX double mapping): worst case 2, really fine" {
	# mmap(PROT_EXEC) of a memfd ignores x bits and F_SEAL_EXEC: the
	# helper runs its generated code at every level.
	check_helper 0 "breaks at 2 only" "worst case" ok ok \
		"$HELPERS/audit-flagless" map
	[ "$(field exe.memfd)" = false ]
	[ "$(jq -r '.namespaces[0].processes[0].exec_maps[0].perms' "$T/audit.json")" = r-xs ]
	jq -e '.namespaces[0].processes[0].exec_maps[0].read_via | test("^/proc/[0-9]+/fd/[0-9]+$")' "$T/audit.json"
}

@test "audit-flagless map started at level 1: fine at 2, from its seals" {
	# Made at 1, the same memfd is 0666 + F_SEAL_EXEC: provably not an
	# MFD_EXEC one, and mapping it executable works at every level.
	check_helper 1 "fine at 2" seals ok ok "$HELPERS/audit-flagless" map
	[ "$(jq -r '.namespaces[0].level' "$T/audit.json")" = 1 ]
	[ "$(jq -r '.namespaces[0].processes[0].exec_maps[0].mode' "$T/audit.json")" = 0666 ]
}

@test "audit-readonly (memfd mapped read-only): fine at 2, and really fine" {
	check_helper 0 "fine at 2" "no executable memfd" ok ok \
		"$HELPERS/audit-readonly"
	[ "$(jq '.namespaces[0].processes[0].exec_maps | length' "$T/audit.json")" = 0 ]
}

# ---- runc --------------------------------------------------------------------

# runc_as MODE BINARY: writes $T/runc, this test's runc command
# ([setpriv to $TEST_USER] BINARY --root $STATE).
runc_as() {
	MODE="$1"
	write_runc "$2"
}

# bundle FILTER: $T/b/config.json for MODE, running sleep, with the jq
# FILTER applied last.
bundle() {
	mkdir -p "$T/b"
	jq --arg root "$ROOTFS" "
		.root.path = \$root | .root.readonly = true |
		.process.terminal = false | .process.args = [\"sleep\", \"60\"] |
		$1" "$BUNDLE_DIR/$MODE.json" >"$T/b/config.json"
	chmod -R a+rX "$T/b"
}

# audit_container LEVEL [AUDIT ARGS...]: in a child PID namespace at
# LEVEL, runc create (as $T/runc), then audit --container-pid <its init>
# (JSON to $T/audit.json, text to $T/audit.txt, plus AUDIT ARGS runs to
# $T/extra.json), then delete -f.
audit_container() {
	local level="$1"
	shift
	at_level --proc "$level" sh -ec '
		"$T/runc" create -b "$T/b" "$ID" </dev/null >/dev/null 2>"$T/create.log" ||
			{ cat "$T/create.log" >&2; exit 1; }
		pid=$("$T/runc" state "$ID" | jq -r .pid)
		echo "$pid" >"$T/init.pid"
		"$MN" audit --json --container-pid "$pid" >"$T/audit.json"
		"$MN" audit --container-pid "$pid" >"$T/audit.txt"
		[ $# -eq 0 ] || "$MN" audit "$@" >"$T/extra.json"
		"$T/runc" delete -f "$ID"' sh "$@"
}

@test "stock runc 1.1.5 rootless: runc init runs from a flagless memfd, breaks at 1 and 2" {
	requires user userns
	[ -x "$STOCK_RUNC" ] || missing "Debian's runc at $STOCK_RUNC"
	runc_as rootless "$STOCK_RUNC"
	bundle .
	run audit_container 0
	assert_success
	field exe.path | grep -qE '^/memfd:runc_cloned:/proc/self/exe \(deleted\)$'
	[ "$(field comm)" = "runc:[2:INIT]" ]
	[ "$(field ns_pid)" = 1 ]
	assert_audit "breaks at 1 and 2" "worst case"
	# And it does break: the same rootless runc create at levels 1 and 2.
	local level
	for level in 1 2; do
		run at_level --proc "$level" "$T/runc" create -b "$T/b" "$ID-$level" </dev/null
		assert_failure # not created at this level
		assert_output --partial 'could not ensure we are a cloned binary: Permission denied'
	done
}

@test "stock runc 1.1.5 rootful: runc init is a bind-mount clone, fine at 2" {
	[ -x "$STOCK_RUNC" ] || missing "Debian's runc at $STOCK_RUNC"
	runc_as rootful "$STOCK_RUNC"
	bundle .
	run audit_container 0
	assert_success
	[ "$(field exe.memfd)" = false ]
	assert_audit "fine at 2" "no executable memfd"
	[ "$(jq -r '.namespaces[0].container.id' "$T/audit.json")" = "$ID" ]
	run at_level --proc 2 sh -ec '"$T/runc" create -b "$T/b" "$ID" </dev/null; "$T/runc" delete -f "$ID"'
	assert_success
}

# The lead's overlay method (runc init from a detached read-only overlayfs,
# no memfd) is to become the patched runc's default; until it lands, runc
# init runs from an MFD_EXEC + F_SEAL_EXEC memfd and this test fails with
# "breaks at 2 only".
@test "patched runc: runc init is fine at 2 (rootful and rootless, level 0)" {
	requires runc user userns
	local mode
	for mode in rootful rootless; do
		runc_as "$mode" "$RUNC"
		bundle .
		run audit_container 0
		assert_success
		echo "$mode: runc init runs from $(field exe.path)" >&2
		assert_audit "fine at 2" "no executable memfd"
		# Reality: it starts at level 2.
		run at_level --proc 2 sh -ec '"$T/runc" create -b "$T/b" "$ID" </dev/null; "$T/runc" delete -f "$ID"'
		assert_success
	done
}

@test "patched runc with memfd_noexec=2 in a namespace at 0: the audit reads 2 there" {
	requires runc
	runc_as rootful "$RUNC"
	bundle '.annotations.memfd_noexec = "2"'
	# Also from the host's side: --all in JSON, run while the container
	# exists, finds the container's namespace by its inode at level 2.
	at_level --proc 0 sh -ec '
		"$T/runc" create -b "$T/b" "$ID" </dev/null >/dev/null 2>"$T/create.log"
		pid=$("$T/runc" state "$ID" | jq -r .pid)
		"$MN" audit --json --container-pid "$pid" >"$T/audit.json"
		"$MN" audit --container-pid "$pid" >"$T/audit.txt"
		"$MN" audit --json >"$T/inner-all.json"
		readlink "/proc/$pid/ns/pid" >"$T/ns"
		until [ -e "$T/host-done" ]; do sleep 0.05; done
		"$T/runc" delete -f "$ID"' 3>&- &
	local inner=$! i=0 ino hostpid="" p host_rc=0 inner_rc=0
	until [ -s "$T/ns" ]; do
		i=$((i + 1))
		if [ $i -ge 200 ] || ! kill -0 "$inner" 2>/dev/null; then
			touch "$T/host-done"
			wait "$inner" || inner_rc=$?
			fail "the container's side stopped before its audits (exit status $inner_rc); runc create said: $(cat "$T/create.log" 2>/dev/null)"
			return
		fi
		sleep 0.05
	done
	ino=$(sed 's/^pid:\[\([0-9]*\)\]$/\1/' "$T/ns")
	# The container's init as the host's /proc shows it.
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/ns/pid" 2>/dev/null)" = "pid:[$ino]" ] &&
			hostpid=${p#/proc/} && break
	done
	# Let the container go whatever happens, then judge.
	"$MN" audit --json --container-pid "$hostpid" >"$T/host.json" || host_rc=$?
	touch "$T/host-done"
	wait "$inner" || inner_rc=$?
	[ "$inner_rc" -eq 0 ] || fail "the container's side (audits, runc delete) failed with exit status $inner_rc"
	[ "$host_rc" -eq 0 ] ||
		fail "memfd-noexec audit --container-pid '$hostpid' (the host's view) failed with exit status $host_rc"
	[ "$(jq -r '.namespaces[0].level' "$T/audit.json")" = 2 ]
	[ "$(jq -r '.namespaces[0].container.id' "$T/audit.json")" = "$ID" ]
	grep -qE "^PID namespace $ino, container $ID \\(runc \\(cgroupfs\\), cgroup /$ID\\): vm\\.memfd_noexec=2$" "$T/audit.txt"
	# The at_level namespace itself (the audit's own) stays at 0.
	[ "$(jq -r '.namespaces[] | select(.own) | .level' "$T/inner-all.json")" = 0 ]
	[ "$(jq -r ".namespaces[] | select(.pid_namespace == $ino) | .level" "$T/inner-all.json")" = 2 ]
	# From the host: the same namespace, two levels down, also reads 2.
	[ "$(jq -r '.namespaces[0].pid_namespace' "$T/host.json")" = "$ino" ]
	[ "$(jq -r '.namespaces[0].level' "$T/host.json")" = 2 ]
}

@test "container ids from the usual cgroup layouts" {
	requires runc
	runc_as rootful "$RUNC"
	local hex=0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef
	# cgroupsPath (runc's cgroupfs driver creates exactly it), then the
	# "runtime id" the audit must read from it; one container each, all
	# in one namespace and one audit.
	local -a rows=(
		"/$CGROUP_TOP/machine.slice/libpod-$hex.scope|podman $hex"
		"/$CGROUP_TOP/machine.slice/libpod-$hex.scope/container|podman $hex"
		"/$CGROUP_TOP/system.slice/docker-$hex.scope|docker $hex"
		"/$CGROUP_TOP/system.slice/runc-$ID.scope|runc $ID"
		"/$CGROUP_TOP/docker/$hex|docker $hex"
		"/$CGROUP_TOP/libpod_parent/libpod-$hex|podman $hex"
		"/$CGROUP_TOP/default/$ID|containerd $ID"
		"/$CGROUP_TOP/user.slice/session-1.scope|null null"
	)
	local i
	for i in "${!rows[@]}"; do
		bundle ".linux.cgroupsPath = \"${rows[i]%%|*}\""
		mv "$T/b" "$T/b$i"
	done
	at_level --proc 0 sh -ec '
		i=0
		while [ -d "$T/b$i" ]; do
			"$T/runc" create -b "$T/b$i" "$ID-$i" </dev/null >/dev/null
			"$T/runc" state "$ID-$i" | jq -r .pid >"$T/pid$i"
			i=$((i + 1))
		done
		"$MN" audit --json >"$T/audit.json"
		while [ $i -gt 0 ]; do
			i=$((i - 1))
			"$T/runc" delete -f "$ID-$i"
		done'
	local got
	for i in "${!rows[@]}"; do
		got=$(jq -r --argjson pid "$(cat "$T/pid$i")" '.namespaces[] |
			select(any(.processes[]; .pid == $pid)) |
			.container | "\(.runtime) \(.id)"' "$T/audit.json")
		[ "$got" = "${rows[i]#*|}" ] ||
			fail "cgroup ${rows[i]%%|*}: expected '${rows[i]#*|}', got '$got'"
	done
}

# ---- privileges, JSON, usage ----------------------------------------------------

@test "as a user, a root process is listed and counted as unreadable, never skipped" {
	requires user
	at_level --proc 0 sh -ec '
		"$HELPERS/audit-readonly" >"$T/held.out" &
		until grep -q ": ready" "$T/held.out"; do sleep 0.05; done
		echo $! >"$T/held.pid"
		setpriv --reuid='"$TEST_USER"' --regid='"$TEST_USER"' --init-groups \
			--inh-caps=-all -- "$MN" audit --json >"$T/audit.json"
		setpriv --reuid='"$TEST_USER"' --regid='"$TEST_USER"' --init-groups \
			--inh-caps=-all -- "$MN" audit >"$T/audit.txt"
		setpriv --reuid='"$TEST_USER"' --regid='"$TEST_USER"' --init-groups \
			--inh-caps=-all -- "$MN" audit --pid $! >"$T/pid.txt"'
	local pid
	pid=$(cat "$T/held.pid")
	jq -e --argjson pid "$pid" '.unreadable[] | select(.pid == $pid and .comm == "audit-readonly" and .error == "exe: Permission denied")' "$T/audit.json"
	# Every root process of the namespace (sh, the helper) is counted.
	[ "$(jq '.summary.unreadable' "$T/audit.json")" -ge 2 ]
	[ "$(jq '.summary.unreadable' "$T/audit.json")" = "$(jq '.unreadable | length' "$T/audit.json")" ]
	grep -qE "^unreadable: [0-9]+ processes, not audited" "$T/audit.txt"
	grep -qE "(^| )$pid audit-readonly \\(exe: Permission denied\\)" "$T/audit.txt"
	grep -qE '; [1-9][0-9]* unreadable$' "$T/audit.txt"
	grep -qE "^    $pid audit-readonly \\(exe: Permission denied\\)$" "$T/pid.txt"
}

@test "--json parses with jq and carries the text output's verdicts" {
	at_level --proc 0 sh -ec '
		"$HELPERS/audit-mfdexec" >"$T/h1" &
		"$HELPERS/audit-flagless" exec >"$T/h2" &
		"$HELPERS/audit-flagless" map >"$T/h3" &
		"$HELPERS/audit-readonly" >"$T/h4" &
		for f in h1 h2 h3 h4; do
			until grep -q ": ready" "$T/$f"; do sleep 0.05; done
		done
		"$MN" audit --json >"$T/audit.json"
		"$MN" audit >"$T/audit.txt"'
	jq -e . "$T/audit.json" >/dev/null
	# Every process the text lists, with the same verdict in the JSON.
	local n=0 pid comm verdict
	while read -r pid comm verdict; do
		[ "$(jq -r --argjson pid "$pid" '.namespaces[].processes[] | select(.pid == $pid) | .verdict' "$T/audit.json")" = "$verdict" ] ||
			fail "pid $pid ($comm): the text says '$verdict', the JSON disagrees"
		n=$((n + 1))
	done < <(sed -nE 's/^  ([0-9]+) ([^ :]+)[^:]*: (fine at 2|breaks at 2 only|breaks at 1 and 2)( \(worst case\))?$/\1 \2 \3/p' "$T/audit.txt")
	# --all lists the three with an executable memfd; audit-readonly is
	# among the processes it counts as fine.
	[ "$n" -eq 3 ] || fail "expected 3 processes with a verdict, the text lists $n: $(cat "$T/audit.txt")"
	grep -qE '^  [0-9]+ other processes: fine at 2 \(no executable memfd\)$' "$T/audit.txt"
	jq -e '[.namespaces[].processes[] | select(.comm == "audit-readonly")] | length == 1 and .[0].verdict == "fine at 2"' "$T/audit.json"
	# The summary line is the same in both.
	[ "summary: $(jq -r .summary.line "$T/audit.json")" = "$(tail -1 "$T/audit.txt")" ]
	[ "$(jq '.summary.break_at_2 | length' "$T/audit.json")" = 1 ]
	[ "$(jq '.summary.break_at_1 | length' "$T/audit.json")" = 1 ]
	grep -qE '^summary: 1 container, [0-9]+ processes audited; 1 would break at level 2: pidns:\[[0-9]+\] \(audit-flagless\[[0-9]+\]: runs from a memfd without F_SEAL_EXEC, worst case; and 2 more\); 1 would break at level 1: pidns:\[[0-9]+\]; 0 unreadable$' "$T/audit.txt"
}

# Each PID namespace's level is read through an fd of one of its
# processes; an audit may meet more namespaces than it may hold fds.
@test "more PID namespaces than open fds allow: every one is read" {
	run at_level --proc 0 sh -ec '
		"$HELPERS/audit-manyns" 100 >"$T/held.out" 2>&1 &
		i=0
		until grep -q ": ready pid=" "$T/held.out"; do
			i=$((i + 1))
			[ $i -lt 200 ] || { cat "$T/held.out" >&2; exit 1; }
			sleep 0.05
		done
		ulimit -n 48
		"$MN" audit --json'
	assert_success
	local n
	# The namespace of at_level's child is one more container.
	n=$(jq -e '.summary.containers' <<<"$output")
	[ "$n" -ge 101 ] || fail "the audit read $n PID namespaces, not the 100 of audit-manyns' children and at_level's, under ulimit -n 48"
}

@test "bad usage is refused with the allowed values" {
	run "$MN" audit --pid
	assert_failure 2
	assert_output --partial "option '--pid' needs a process ID"
	run "$MN" audit --pid 12x
	assert_failure 2
	assert_output --partial "invalid --pid '12x': a process ID is a decimal number"
	run "$MN" audit --all --pid 1
	assert_failure 2
	assert_output --partial "only one of --all, --pid N, --container-pid N"
	run "$MN" audit --bogus
	assert_failure 2
	assert_output --partial "unknown option '--bogus': allowed are --json, --all, --pid N, --container-pid N, --help"
	run "$MN" audit extra
	assert_failure 2
	assert_output --partial "unexpected argument 'extra'"
	run at_level --proc 0 "$MN" audit --pid 999999
	assert_failure 1
	assert_output --partial "no process 999999 in /proc"
	run "$MN" audit --container-pid $$
	assert_failure 1
	assert_output --partial "process $$ is in the initial PID namespace"
}

# ---- who could lower a level -------------------------------------------------

@test "audit: flags a process with CAP_SYS_ADMIN and no user namespace of its own in a namespace raised above its parent" {
	# Inside at_level 0 (A): namespace B raised to 2, with three sleeps:
	# root with every capability (flagged), root without CAP_SYS_ADMIN,
	# and root of a user namespace of its own (neither flagged); and
	# namespace C inside B, at 2 like its parent (nothing to lower to).
	# shellcheck disable=SC2016 # expanded by the inner shells
	at_level --proc 0 sh -ec '
		unshare --pid --fork --kill-child sh -ec "
			echo 2 >/proc/sys/vm/memfd_noexec
			sleep 1000 & echo \$! >$T/all
			setpriv --bounding-set=-sys_admin -- sleep 1000 & echo \$! >$T/noadmin
			unshare --user --map-root-user -- sleep 1000 & echo \$! >$T/userns
			unshare --pid --fork --kill-child -- sleep 1000 &
			wait" &
		for _ in $(seq 100); do
			[ -s "$T/userns" ] && [ "$(pgrep -c -x sleep)" -ge 4 ] && break
			sleep 0.05
		done
		"$MN" audit --json >"$T/audit.json" || echo "audit --json: $?" >"$T/rc"
		"$MN" audit >"$T/audit.txt" || echo "audit: $?" >>"$T/rc"
		kill -KILL $!' 3>&-
	[ ! -e "$T/rc" ] || fail "$(cat "$T/rc")"
	local all noadmin userns
	all=$(cat "$T/all") noadmin=$(cat "$T/noadmin") userns=$(cat "$T/userns")
	# In B, the flagged ones by their PID inside: B's init (sh), the
	# plain sleep and the unshare that made C; not the other two.
	run jq -r '.namespaces[] | select(.level == 2 and .parent_level == 0) | .processes[] | select(.can_lower) | [.ns_pid, .comm] | @tsv' "$T/audit.json"
	assert_line "$(printf '1\tsh')"
	assert_line "$(printf '%s\tsleep' "$all")"
	assert_line --regexp $'^[0-9]+\tunshare$'
	[ "${#lines[@]}" -eq 3 ]
	[ "$(jq -r '.summary.can_lower' "$T/audit.json")" = 3 ]
	run jq -r ".namespaces[] | select(.level == 2 and .parent_level == 0) | .processes[] | select(.ns_pid == $noadmin) | [.sys_admin, .can_lower] | @tsv" "$T/audit.json"
	assert_output "$(printf 'false\tfalse')"
	run jq -r ".namespaces[] | select(.level == 2 and .parent_level == 0) | .processes[] | select(.ns_pid == $userns) | [.sys_admin, .initial_user_namespace, .can_lower] | @tsv" "$T/audit.json"
	assert_output "$(printf 'true\tfalse\tfalse')"
	# B: 2 above its parent's 0; C: 2, its parent's 2, so its sleep
	# (with every capability) could lower nothing.
	run jq -r '.namespaces[] | select(.own | not) | [.level, .parent_level, .can_lower] | @tsv' "$T/audit.json"
	assert_line "$(printf '2\t0\t3')"
	assert_line "$(printf '2\t2\t0')"
	run cat "$T/audit.txt"
	assert_line --regexp '^    CAN LOWER THE LEVEL: it holds CAP_SYS_ADMIN in the initial user namespace \(the container has no user namespace of its own\), so it may write vm.memfd_noexec down from 2 to 0; drop CAP_SYS_ADMIN from it, or give the container a user namespace$'
	assert_output --regexp '; 3 processes could lower the level of their PID namespace$'
}
