# SPDX-License-Identifier: Apache-2.0
# memfd-noexec: run, status and the OCI hook, against the real kernel.
# Every write of vm.memfd_noexec happens in a child PID namespace; teardown
# checks that the host's value did not move.

bats_require_minimum_version 1.5.0
load helpers
load syslog

MEMFD_NOEXEC="$BUILD_DIR/memfd-noexec/memfd-noexec"
MEMFDPROBE="$BUILD_DIR/tests/helpers/memfdprobe"

setup_file() {
	stage_user_binaries
}

teardown_file() {
	unstage_user_binaries
}

setup() {
	[ -x "$MEMFD_NOEXEC" ] || {
		echo "memfd-noexec not built at $MEMFD_NOEXEC (set BUILD_DIR)" >&2
		return 1
	}
	[ -x "$MEMFDPROBE" ] || {
		echo "memfdprobe not built at $MEMFDPROBE (set BUILD_DIR)" >&2
		return 1
	}
	TEST_TMP="$(mktemp -d "${BATS_TMPDIR:-/tmp}/memfd-noexec.XXXXXX")"
	BG_PIDS=()
	HOST_LEVEL_BEFORE="$(host_level)"
}

teardown() {
	local i p n
	# Newest first: a namespace's sleep before the unshare that reaps it,
	# and give that unshare a moment to reap, so that no zombie is left
	# to init.
	for ((i = ${#BG_PIDS[@]} - 1; i >= 0; i--)); do
		p="${BG_PIDS[i]}"
		for n in $(seq 40); do
			kill -0 "$p" 2>/dev/null || break
			# A zombie of ours is reaped by wait below; one of the
			# unshare's is reaped by the unshare.
			[ "$(awk '{print $3 " " $4}' "/proc/$p/stat" 2>/dev/null)" = "Z $BASHPID" ] && break
			[ "$n" -gt 1 ] || kill -KILL "$p" 2>/dev/null || true
			sleep 0.05
		done
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	[ -n "${TEST_TMP:-}" ] && rm -rf "$TEST_TMP"
	assert_host_level_unchanged "${HOST_LEVEL_BEFORE:-}"
}

# start_sleeper [LEVEL]: starts `sleep` as PID 1 of a new PID namespace
# (first set to LEVEL, if given) in the background; sets SLEEPER to the
# sleep's PID and records both processes for teardown.
start_sleeper() {
	local level="${1:-}" u i c
	if [ -n "$level" ]; then
		unshare --pid --fork --kill-child -- sh -c \
			'echo "$0" > /proc/sys/vm/memfd_noexec && exec sleep 1000' \
			"$level" >/dev/null 2>&1 3>&- &
	else
		unshare --pid --fork --kill-child -- sleep 1000 >/dev/null 2>&1 3>&- &
	fi
	u=$!
	BG_PIDS+=("$u")
	SLEEPER=
	for i in $(seq 100); do
		c="$(cat "/proc/$u/task/$u/children" 2>/dev/null | awk '{print $1}')"
		if [ -n "$c" ] && [ "$(readlink "/proc/$c/exe" 2>/dev/null)" = "$(readlink -f "$(command -v sleep)")" ]; then
			SLEEPER="$c"
			BG_PIDS+=("$c")
			return 0
		fi
		sleep 0.05
	done
	echo "sleeper did not start" >&2
	return 1
}

# start_host_sleeper: a sleep in the host's PID namespace.
start_host_sleeper() {
	sleep 1000 >/dev/null 2>&1 3>&- &
	SLEEPER=$!
	BG_PIDS+=("$SLEEPER")
}

# ns_level PID: vm.memfd_noexec as seen from inside PID's namespace
# (nsenter forks for --pid, so cat runs in the namespace).
ns_level() {
	nsenter --target "$1" --pid -- cat /proc/sys/vm/memfd_noexec
}

# proc_on_proc: the proc mounts on /proc in this mount namespace.
proc_on_proc() {
	awk '$5 == "/proc" && / - proc /' /proc/self/mountinfo
}

# make_bundle JSON: writes $TEST_TMP/bundle/config.json.
make_bundle() {
	mkdir -p "$TEST_TMP/bundle"
	printf '%s\n' "$1" > "$TEST_TMP/bundle/config.json"
	BUNDLE="$TEST_TMP/bundle"
}

# The bounding set that `runc spec` writes: no CAP_SYS_ADMIN.
CAPS='"process":{"capabilities":{"bounding":["CAP_AUDIT_WRITE","CAP_KILL","CAP_NET_BIND_SERVICE"]}}'


# state PID [STATUS]: an OCI state document for the hook's stdin.
state() {
	printf '{"ociVersion":"1.0.2","id":"bats","status":"%s","pid":%s,"bundle":"%s","annotations":{}}\n' \
		"${2:-creating}" "$1" "$BUNDLE"
}

# ---- usage -------------------------------------------------------------------

@test "memfd-noexec --version and --help" {
	run "$MEMFD_NOEXEC" --version
	assert_success
	assert_output --partial "memfd-noexec 0."

	run "$MEMFD_NOEXEC" --help
	assert_success
	assert_output --partial "status [--json]"
	assert_output --partial "run --level N"
	assert_output --partial "hook"

	for c in status run hook; do
		run "$MEMFD_NOEXEC" "$c" --help
		assert_success
		assert_output --partial "Usage: memfd-noexec $c"
	done
}

@test "memfd-noexec: bad usage exits 2 naming the argument" {
	run "$MEMFD_NOEXEC"
	assert_failure 2

	run "$MEMFD_NOEXEC" frobnicate
	assert_failure 2
	assert_output --partial "unknown command 'frobnicate'"
	assert_output --partial "status, run, hook"

	run "$MEMFD_NOEXEC" run --level 3 -- true
	assert_failure 2
	assert_output --partial "invalid --level '3'"
	assert_output --partial "0, 1 or 2"

	run "$MEMFD_NOEXEC" run --level " 2" -- true
	assert_failure 2
	assert_output --partial "invalid --level ' 2'"

	run "$MEMFD_NOEXEC" run -- true
	assert_failure 2
	assert_output --partial "missing --level"

	run "$MEMFD_NOEXEC" run --level 1
	assert_failure 2
	assert_output --partial "missing the command"

	run "$MEMFD_NOEXEC" run --level
	assert_failure 2
	assert_output --partial "needs a value"

	run "$MEMFD_NOEXEC" status --bogus
	assert_failure 2
	assert_output --partial "unknown option '--bogus'"

	run "$MEMFD_NOEXEC" hook extra
	assert_failure 2
	assert_output --partial "unexpected argument 'extra'"
}

# ---- run ---------------------------------------------------------------------

@test "run --level 2: MFD_EXEC fails with EACCES inside, host unchanged" {
	requires root memfd_noexec
	local before
	before="$(host_level)"

	run "$MEMFD_NOEXEC" run --level 2 -- cat /proc/sys/vm/memfd_noexec
	assert_success
	assert_output 2

	run "$MEMFD_NOEXEC" run --level 2 -- "$MEMFDPROBE" exec
	assert_success
	assert_output --partial "memfdprobe: flags=exec result=EACCES"

	run "$MEMFD_NOEXEC" run --level 2 -- "$MEMFDPROBE" none
	assert_success
	assert_output --partial "result=ok mode=0666"
	assert_output --partial "exec_seal=yes"

	run "$MEMFD_NOEXEC" run --level 2 -- "$MEMFDPROBE" exec-run
	assert_output --partial "flags=exec-run result=EACCES"

	[ "$(host_level)" = "$before" ]
}

@test "run --proc: a /proc of the new PID namespace, in a mount namespace of its own" {
	requires root memfd_noexec
	# What --proc could leak out here: a proc mounted on /proc in this
	# mount namespace (others mount proc elsewhere meanwhile).
	local mounts_before
	mounts_before=$(proc_on_proc)
	# Inside, /proc shows the new namespace: the shell is PID 1 there.
	run "$MEMFD_NOEXEC" run --level 2 --proc -- sh -c \
		'echo "self=$(readlink /proc/self) level=$(cat /proc/sys/vm/memfd_noexec)"; ls /proc | grep -c "^[0-9]"'
	assert_success
	assert_output --partial "level=2"
	[ "$(tail -1 <<<"$output")" -le 3 ]
	# Without --proc, /proc is the caller's: many more processes.
	run "$MEMFD_NOEXEC" run --level 2 -- sh -c 'ls /proc | grep -c "^[0-9]"'
	assert_success
	[ "$output" -gt 3 ]
	# Nothing was mounted out here.
	[ "$(proc_on_proc)" = "$mounts_before" ] ||
		fail "a proc was mounted on /proc outside memfd-noexec run --proc: $(proc_on_proc)"
}

@test "run --level 1: plain memfd is 0666 and exec-sealed, MFD_EXEC works" {
	requires root memfd_noexec

	run "$MEMFD_NOEXEC" run --level 1 -- "$MEMFDPROBE" none
	assert_success
	assert_output --partial "flags=none result=ok mode=0666"
	assert_output --partial "exec_seal=yes"

	run "$MEMFD_NOEXEC" run --level 1 -- "$MEMFDPROBE" exec
	assert_success
	assert_output --partial "flags=exec result=ok mode=0777"

	run "$MEMFD_NOEXEC" run --level 1 -- "$MEMFDPROBE" exec-run
	assert_success
	assert_output --partial "flags=exec-run result=ok exec=ok"

	run "$MEMFD_NOEXEC" run --level 1 -- cat /proc/sys/vm/memfd_noexec
	assert_success
	assert_output 1
}

@test "run --level 0: executable memfd at 0, the host's stricter value otherwise" {
	requires root memfd_noexec

	MEMFD_NOEXEC_DEBUG=1 run "$MEMFD_NOEXEC" run --level 0 -- "$MEMFDPROBE" none
	assert_success
	if [ "$(host_level)" = 0 ]; then
		assert_output --partial "flags=none result=ok mode=0777"
		assert_output --partial "memfd-noexec: kept 0"
		refute_output --partial "notice"
	else
		assert_output --partial "kept stricter inherited value $(host_level) (asked for 0)"
		assert_output --partial "mode=0666"
	fi
}

@test "run: nested inheritance keeps the stricter parent's 1, with a notice" {
	requires root memfd_noexec

	# /proc here is the host's: memfd-noexec must find its child through
	# a pidfd, not /proc/<pid>.
	MEMFD_NOEXEC_DEBUG=1 run at_level 1 "$MEMFD_NOEXEC" run --level 0 -- cat /proc/sys/vm/memfd_noexec
	assert_success
	assert_output --partial "kept stricter inherited value 1 (asked for 0)"
	assert_output --partial "memfd-noexec: kept 1"
	assert_line 1

	MEMFD_NOEXEC_DEBUG=1 run at_level 1 "$MEMFD_NOEXEC" run --level 2 -- "$MEMFDPROBE" exec
	assert_success
	assert_output --partial "memfd-noexec: wrote 2"
	assert_output --partial "flags=exec result=EACCES"
	refute_output --partial "notice"
}

# hugetlbfs ignores F_SEAL_EXEC: where CMD really runs at 2, asked for or
# inherited, run adds the MFD_HUGETLB rule for CMD and all it starts.
@test "run: memfd_create(MFD_HUGETLB) fails with EPERM where the real level is 2, asked for or inherited; not at 0 or 1" {
	requires root memfd_noexec
	MEMFD_NOEXEC_DEBUG=1 run "$MEMFD_NOEXEC" run --level 2 -- sh -c '"$0" hugetlb; "$0" none' "$MEMFDPROBE"
	assert_success
	assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	assert_line --regexp '^memfdprobe: flags=none result=ok mode=0666 '
	assert_output --partial 'vm.memfd_noexec=2: memfd_create(MFD_HUGETLB) refused (seccomp)'
	# Asked for 1 (or 0) inside a parent namespace at 2: runs at 2, the rule.
	local want
	for want in 1 0; do
		run unshare --pid --fork --kill-child -- sh -c \
			'echo 2 >/proc/sys/vm/memfd_noexec && exec "$0" run --level "$1" -- "$2" hugetlb' \
			"$MEMFD_NOEXEC" "$want" "$MEMFDPROBE"
		assert_success
		assert_output --partial "kept stricter inherited value 2 (asked for $want)"
		assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	done
	# Really at 1 or 0 (under a parent at 0): no rule.
	for want in 1 0; do
		MEMFD_NOEXEC_DEBUG=1 run unshare --pid --fork --kill-child -- sh -c \
			'echo 0 >/proc/sys/vm/memfd_noexec && exec "$0" run --level "$1" -- "$2" hugetlb' \
			"$MEMFD_NOEXEC" "$want" "$MEMFDPROBE"
		if [ "$(host_level)" = 0 ]; then
			assert_success
			assert_line --regexp '^memfdprobe: flags=hugetlb result=ok '
			assert_output --partial "vm.memfd_noexec=$want: no MFD_HUGETLB rule needed"
		fi
	done
}

@test "run: exit status of the command, 127/126 when it cannot run" {
	requires root memfd_noexec

	run "$MEMFD_NOEXEC" run --level 1 -- sh -c 'exit 7'
	assert_failure 7

	run -127 "$MEMFD_NOEXEC" run --level 1 -- /nonexistent/cmd
	assert_output --partial "Failed to execute /nonexistent/cmd: No such file or directory"

	printf 'data\n' > "$TEST_TMP/not-executable"
	chmod 0644 "$TEST_TMP/not-executable"
	run -126 "$MEMFD_NOEXEC" run --level 1 -- "$TEST_TMP/not-executable"
	assert_output --partial "Permission denied"
}

@test "run: a command killed by a signal gives 128+N" {
	requires root memfd_noexec
	local r c i

	"$MEMFD_NOEXEC" run --level 1 -- sleep 1000 >/dev/null 2>&1 3>&- &
	r=$!
	BG_PIDS+=("$r")
	for i in $(seq 100); do
		c="$(cat "/proc/$r/task/$r/children" 2>/dev/null | awk '{print $1}')"
		[ -n "$c" ] && [ "$(readlink "/proc/$c/exe")" = "$(readlink -f "$(command -v sleep)")" ] && break
		sleep 0.05
	done
	[ -n "$c" ] || { fail "memfd-noexec run did not start sleep"; return; }
	kill -KILL "$c"
	local rc=0
	wait "$r" || rc=$?
	[ "$rc" -eq 137 ] || fail "memfd-noexec run exited $rc after its command got SIGKILL, expected 137"
}

@test "run: rootless fails closed and says why" {
	requires root user userns memfd_noexec

	# Root of a user namespace is not global root: EACCES at open().
	run as_user unshare --user --map-root-user -- "$U_MEMFD_NOEXEC" run --level 1 -- true
	assert_failure 125
	assert_output --partial "Failed to set vm.memfd_noexec=1"
	assert_output --partial "rootless runtimes cannot set it"
	assert_output --partial "inherit"

	# Without any namespace privilege, unshare itself fails.
	run as_user "$U_MEMFD_NOEXEC" run --level 1 -- true
	assert_failure 125
	assert_output --partial "Failed to create a PID namespace"
}

# ---- status ------------------------------------------------------------------

@test "status: fields, as lines and as JSON" {
	requires root memfd_noexec

	run "$MEMFD_NOEXEC" status
	assert_success
	for k in memfd_create mfd_exec seal_exec memfd_noexec o_tmpfile execveat level pid_namespace semantics can_raise; do
		assert_line --regexp "^$k: "
	done
	assert_output --partial "memfd_create: yes"
	assert_output --partial "mfd_exec: yes"
	assert_output --partial "seal_exec: yes"
	assert_output --partial "memfd_noexec: yes"
	assert_output --partial "level: $(host_level)"
	assert_output --partial "pid_namespace: initial"
	assert_output --partial "can_raise: yes"
	assert_line --regexp '^semantics: (hierarchy|ratchet) \('

	run "$MEMFD_NOEXEC" status --json
	assert_success
	[ "$(wc -l <<<"$output")" -eq 1 ]
	# Without jq these checks would not run: jq is required, not optional.
	requires cmd:jq || return 1
	[ "$(jq -r .level <<<"$output")" = "$(host_level)" ]
	[ "$(jq -r .mfd_exec <<<"$output")" = true ]
	[ "$(jq -r .pid_namespace <<<"$output")" = initial ]
	[ "$(jq -r .can_raise <<<"$output")" = true ]
	jq -e '.semantics == "hierarchy" or .semantics == "ratchet"' <<<"$output"

	run "$MEMFD_NOEXEC" status --no-probe
	assert_success
	assert_output --partial "semantics: not probed"
}

@test "status: inside a level-2 namespace, and unprivileged" {
	requires root memfd_noexec

	run at_level 2 "$MEMFD_NOEXEC" status
	assert_success
	assert_output --partial "level: 2"
	assert_output --partial "pid_namespace: child"
	assert_output --partial "semantics: unknown (the level here is already 2"

	requires user
	run as_user "$U_MEMFD_NOEXEC" status
	assert_success
	assert_output --partial "can_raise: no (euid is not 0"
	assert_output --partial "semantics: unknown (no privilege"
}

@test "status: MEMFD_TOOLKIT_FEATURES turns features off, and refuses a bad name" {
	MEMFD_TOOLKIT_FEATURES=-mfd_exec,-memfd_noexec run "$MEMFD_NOEXEC" status
	assert_success
	assert_output --partial "mfd_exec: no"
	assert_output --partial "memfd_noexec: no"
	assert_output --partial "semantics: absent"
	# One parser for every tool: sealexec refuses the same way.
	MEMFD_TOOLKIT_FEATURES=-sysctl run "$MEMFD_NOEXEC" status
	assert_failure 2
	assert_output --partial "Refusing MEMFD_TOOLKIT_FEATURES=-sysctl: '-sysctl' is not one of"
}

# ---- hook --------------------------------------------------------------------

@test "hook: annotation 2 sets the target's PID namespace to 2" {
	requires root memfd_noexec
	start_sleeper
	[ "$(ns_level "$SLEEPER")" = "$(host_level)" ]
	make_bundle '{"ociVersion":"1.0.2","process":{"args":["sh"],"capabilities":{"bounding":["CAP_KILL"]}},"annotations":{"memfd_noexec":"2"}}'

	MEMFD_NOEXEC_DEBUG=1 run "$MEMFD_NOEXEC" hook < <(state "$SLEEPER")
	assert_success
	assert_output --partial "memfd-noexec: wrote 2"
	[ "$(ns_level "$SLEEPER")" = 2 ]

	# And memfd_create in there obeys it.
	run nsenter --target "$SLEEPER" --pid -- "$MEMFDPROBE" exec
	assert_output --partial "flags=exec result=EACCES"
}

@test "hook: linux.sysctl vm.memfd_noexec is the same request" {
	requires root memfd_noexec
	start_sleeper
	make_bundle "{$CAPS,\"linux\":{\"sysctl\":{\"vm.memfd_noexec\":\"1\"}}}"

	run "$MEMFD_NOEXEC" hook < <(state "$SLEEPER" created)
	assert_success
	[ "$(ns_level "$SLEEPER")" = 1 ]
}

@test "hook: a stricter value already in place is kept, with a notice" {
	requires root memfd_noexec
	start_sleeper 2
	make_bundle "{$CAPS,\"annotations\":{\"memfd_noexec\":\"1\"}}"

	run "$MEMFD_NOEXEC" hook < <(state "$SLEEPER")
	assert_success
	assert_output --partial "kept stricter inherited value 2 (asked for 1)"
	[ "$(ns_level "$SLEEPER")" = 2 ]
}

@test "hook: refuses a target in the host PID namespace" {
	requires root memfd_noexec
	start_host_sleeper
	make_bundle "{$CAPS,\"annotations\":{\"memfd_noexec\":\"2\"}}"

	# The sleeper only joins the host's namespace: checked, never written.
	run "$MEMFD_NOEXEC" hook < <(state "$SLEEPER")
	assert_failure 1
	assert_output --partial "Refusing vm.memfd_noexec=2 for process $SLEEPER: it joins the initial PID namespace (the host's), pid:[4026531836], which is at level $(host_level)"
	[ "$(host_level)" = "$HOST_LEVEL_BEFORE" ]

	run "$MEMFD_NOEXEC" hook < <(state "$$")
	assert_failure 1
	assert_output --partial "Refusing vm.memfd_noexec=2 for process $$: it joins the initial PID namespace"
}

@test "hook: bad values fail closed and leave the target alone" {
	requires root memfd_noexec
	start_sleeper
	local before
	before="$(ns_level "$SLEEPER")"

	make_bundle '{"annotations":{"memfd_noexec":"3"}}'
	run "$MEMFD_NOEXEC" hook < <(state "$SLEEPER")
	assert_failure 1
	assert_output --partial 'annotations["memfd_noexec"] = "3"'
	assert_output --partial '"0", "1" or "2"'
	assert_output --partial "$BUNDLE/config.json"

	make_bundle '{"annotations":{"memfd_noexec":2}}'
	run "$MEMFD_NOEXEC" hook < <(state "$SLEEPER")
	assert_failure 1
	assert_output --partial "JSON number 2"

	make_bundle '{"annotations":{"memfd_noexec":"2","memfd_noexec":"0"}}'
	run "$MEMFD_NOEXEC" hook < <(state "$SLEEPER")
	assert_failure 1
	assert_output --partial 'duplicate key "memfd_noexec"'

	make_bundle '{"annotations":{"memfd_noexec":"2"},"linux":{"sysctl":{"vm.memfd_noexec":"1"}}}'
	run "$MEMFD_NOEXEC" hook < <(state "$SLEEPER")
	assert_failure 1
	assert_output --partial "different vm.memfd_noexec levels"

	make_bundle '{"annotations":{"memfd_noexec":"2"}'
	run "$MEMFD_NOEXEC" hook < <(state "$SLEEPER")
	assert_failure 1
	assert_output --partial "Failed to parse $BUNDLE/config.json: invalid JSON"

	[ "$(ns_level "$SLEEPER")" = "$before" ]
}

@test "hook: a refusal also goes to syslog, with the container's id and the reason" {
	requires root memfd_noexec cmd:unshare || return 1
	[ -x /usr/bin/python3 ] || missing "/usr/bin/python3" || return 1
	start_sleeper
	make_bundle '{"annotations":{"memfd_noexec":"3"}}'
	# An id with a newline and an escape: escaped, one line.
	printf '{"ociVersion":"1.0.2","id":"ctr-1\\n\\u001b[31m","status":"creating","pid":%s,"bundle":"%s","annotations":{}}\n' \
		"$SLEEPER" "$BUNDLE" >"$TEST_TMP/state.json"
	run with_dev_log "$TEST_TMP/syslog" "$MEMFD_NOEXEC" hook <"$TEST_TMP/state.json"
	assert_failure 1
	assert_output --partial 'annotations["memfd_noexec"] = "3"'
	# <27>: LOG_DAEMON | LOG_ERR.
	with_output "$(cat "$TEST_TMP/syslog")" assert_line --regexp \
		"^<27>.* memfd-noexec\[[0-9]+\]: hook refused container ctr-1\\\\n\\\\u001b\[31m \(pid $SLEEPER\): .*annotations\[\"memfd_noexec\"\] = \"3\".*\"0\", \"1\" or \"2\""
	[ "$(wc -l <"$TEST_TMP/syslog")" -eq 1 ]

	# A state it cannot read: no id, still logged.
	run with_dev_log "$TEST_TMP/syslog2" "$MEMFD_NOEXEC" hook <<<'{"pid":'
	assert_failure 1
	with_output "$(cat "$TEST_TMP/syslog2")" assert_line --regexp \
		'^<27>.* memfd-noexec\[[0-9]+\]: hook refused container \(no id\): .*invalid JSON'

	# Success, and no request: nothing in syslog.
	make_bundle '{"annotations":{}}'
	run with_dev_log "$TEST_TMP/syslog3" "$MEMFD_NOEXEC" hook < <(state "$SLEEPER")
	assert_success
	[ ! -s "$TEST_TMP/syslog3" ]
	rm -rf "$TEST_TMP"/syslog*
}

@test "check: for crun, says where the hook's refusals are (crun hides them)" {
	requires root memfd_noexec || return 1
	[ -x /usr/bin/crun ] || missing "Debian's crun at /usr/bin/crun" || return 1
	local notice='notice: crun shows a failing OCI hook only as "error executing hook ... (exit code: 1)", even with --debug: the reason for a refusal by memfd-noexec hook is in syslog (journalctl -t memfd-noexec), or in FILE with the container annotation run.oci.hooks.stderr=FILE'
	run "$MEMFD_NOEXEC" check --runtime /usr/bin/crun
	assert_failure 1
	assert_output --partial 'verdict: ignores'
	assert_output --partial "$notice"
	run "$MEMFD_NOEXEC" check --help
	assert_success
	assert_output --partial "journalctl -t memfd-noexec"
	# Not for runc, which shows a hook's stderr.
	[ -x /usr/sbin/runc ] || return 0
	run "$MEMFD_NOEXEC" check --runtime /usr/sbin/runc
	refute_output --partial "journalctl"
}

@test "hook: no request exits 0 silently" {
	requires root memfd_noexec
	start_sleeper
	make_bundle '{"ociVersion":"1.0.2","annotations":{"other":"x"}}'

	run "$MEMFD_NOEXEC" hook < <(state "$SLEEPER")
	assert_success
	refute_output

	MEMFD_NOEXEC_DEBUG=1 run "$MEMFD_NOEXEC" hook < <(state "$SLEEPER")
	assert_success
	assert_output --partial "memfd-noexec: no request"
}

@test "hook: bad OCI state and wrong stage fail" {
	requires root memfd_noexec
	start_sleeper
	make_bundle '{"annotations":{"memfd_noexec":"2"}}'

	run "$MEMFD_NOEXEC" hook <<<'{"pid":'
	assert_failure 1
	assert_output --partial "Failed to parse the OCI state"

	run "$MEMFD_NOEXEC" hook <<<"{\"bundle\":\"$BUNDLE\"}"
	assert_failure 1
	assert_output --partial 'no "pid"'

	run "$MEMFD_NOEXEC" hook <<<"{\"pid\":\"$SLEEPER\",\"bundle\":\"$BUNDLE\"}"
	assert_failure 1
	assert_output --partial '"pid" is a JSON string'

	run "$MEMFD_NOEXEC" hook < <(state "$SLEEPER" running)
	assert_failure 1
	assert_output --partial 'status "running"'

	run "$MEMFD_NOEXEC" hook < <(state 2147483647)
	assert_failure 1
	assert_output --partial "no such process"

	[ "$(ns_level "$SLEEPER")" = "$(host_level)" ]
}

# ---- the hook: its state, joined namespaces, kept privileges -------------------

# state_with PID VALUE [STATUS]: an OCI state whose own annotations carry
# memfd_noexec=VALUE (a JSON value).
state_with() {
	printf '{"ociVersion":"1.0.2","id":"bats","status":"%s","pid":%s,"bundle":"%s","annotations":{"memfd_noexec":%s}}\n' \
		"${3:-creating}" "$1" "$BUNDLE" "$2"
}

# join_sleeper: JOINER, a second process in SLEEPER's PID namespace (not
# its init, as a container started with --pid=container:X is).
join_sleeper() {
	local n i c
	nsenter --target "$SLEEPER" --pid -- sleep 1000 >/dev/null 2>&1 3>&- &
	n=$!
	BG_PIDS+=("$n")
	for i in $(seq 100); do
		c="$(cat "/proc/$n/task/$n/children" 2>/dev/null | awk '{print $1}')"
		if [ -n "$c" ]; then
			JOINER="$c"
			BG_PIDS+=("$c")
			[ "$(awk '/^NSpid/ {print $NF}' "/proc/$c/status")" != 1 ]
			return
		fi
		sleep 0.05
	done
	echo "joiner did not start" >&2
	return 1
}

@test "the hook honours the state's own annotation when config.json lacks it" {
	requires root memfd_noexec
	start_sleeper
	# An earlier hook renamed the key in config.json; the runtime's state
	# still reports the request.
	make_bundle "{$CAPS,\"annotations\":{\"memfd_noexec_renamed\":\"2\"}}"
	MEMFD_NOEXEC_DEBUG=1 run "$MEMFD_NOEXEC" hook < <(state_with "$SLEEPER" '"2"')
	assert_success
	assert_output --partial "memfd-noexec: wrote 2"
	[ "$(ns_level "$SLEEPER")" = 2 ]
}

@test "a state and a config.json that disagree, or a bad state value, are refused" {
	requires root memfd_noexec
	start_sleeper
	make_bundle "{$CAPS,\"annotations\":{\"memfd_noexec\":\"1\"}}"
	run "$MEMFD_NOEXEC" hook < <(state_with "$SLEEPER" '"2"')
	assert_failure 1
	assert_output --partial "annotations[\"memfd_noexec\"] = \"2\" differs from the \"1\" that $BUNDLE/config.json asks for"
	run "$MEMFD_NOEXEC" hook < <(state_with "$SLEEPER" '"3"')
	assert_failure 1
	assert_output --partial 'Refusing annotations["memfd_noexec"] = "3" in the OCI state'
	assert_output --partial '"0", "1" or "2"'
	[ "$(ns_level "$SLEEPER")" = "$(host_level)" ]
}

@test "the hook never changes a PID namespace the container only joins" {
	requires root memfd_noexec
	start_sleeper
	join_sleeper
	local ino
	ino=$(stat -L -c %i "/proc/$SLEEPER/ns/pid")
	make_bundle "{$CAPS,\"annotations\":{\"memfd_noexec\":\"2\"}}"
	run "$MEMFD_NOEXEC" hook < <(state "$JOINER")
	assert_failure 1
	assert_output --partial "Refusing vm.memfd_noexec=2 for process $JOINER: it joins the existing PID namespace, pid:[$ino], which is at level 0"
	assert_output --partial "Raise the level where that namespace is created"
	# The other "container" is untouched.
	[ "$(ns_level "$SLEEPER")" = 0 ]
	# Its own init, the namespace's creator, may still raise it.
	run "$MEMFD_NOEXEC" hook < <(state "$SLEEPER")
	assert_success
	[ "$(ns_level "$SLEEPER")" = 2 ]
}

@test "a joined PID namespace already at the level is accepted, with a notice" {
	requires root memfd_noexec
	start_sleeper 2
	join_sleeper
	local ino
	ino=$(stat -L -c %i "/proc/$SLEEPER/ns/pid")
	for want in 2 1; do
		make_bundle "{$CAPS,\"annotations\":{\"memfd_noexec\":\"$want\"}}"
		MEMFD_NOEXEC_DEBUG=1 run "$MEMFD_NOEXEC" hook < <(state "$JOINER")
		assert_success
		assert_output --partial "notice: the container joins the existing PID namespace pid:[$ino], already at 2 (asked for $want); it is left unchanged"
		assert_output --partial "memfd-noexec: joined 2"
	done
	[ "$(ns_level "$SLEEPER")" = 2 ]
}

@test "a container that keeps CAP_SYS_ADMIN without a user namespace is refused" {
	requires root memfd_noexec
	start_sleeper
	make_bundle '{"process":{"capabilities":{"bounding":["CAP_KILL","CAP_SYS_ADMIN"]}},"annotations":{"memfd_noexec":"2"}}'
	run "$MEMFD_NOEXEC" hook < <(state "$SLEEPER")
	assert_failure 1
	assert_output --partial "Refusing vm.memfd_noexec=2 for process $SLEEPER: the container keeps CAP_SYS_ADMIN in its bounding set and has no user namespace"
	assert_output --partial "down to its parent's $(host_level)"
	assert_output --partial "Drop CAP_SYS_ADMIN"
	# Without process.capabilities the runtime leaves every capability.
	make_bundle '{"annotations":{"memfd_noexec":"2"}}'
	run "$MEMFD_NOEXEC" hook < <(state "$SLEEPER")
	assert_failure 1
	assert_output --partial "keeps CAP_SYS_ADMIN"
	[ "$(ns_level "$SLEEPER")" = "$(host_level)" ]
}

# Level 1 asks the same question as 2: a container that keeps CAP_SYS_ADMIN
# could lower 1 to 0 too, so a bounding entry that cannot be read is refused
# at 1 as well, before anything is written.
@test "at level 1 too, a bounding entry that no runtime accepts is refused" {
	requires root memfd_noexec
	start_sleeper
	local before entry
	before="$(ns_level "$SLEEPER")"
	for entry in '"CAP_FOO"' '21' '" CAP_SYS_ADMIN"'; do
		make_bundle "{\"process\":{\"capabilities\":{\"bounding\":[\"CAP_KILL\",$entry]}},\"annotations\":{\"memfd_noexec\":\"1\"}}"
		run "$MEMFD_NOEXEC" hook < <(state "$SLEEPER")
		assert_failure 1
		assert_output --partial "process.capabilities.bounding[1]"
		assert_output --partial "vm.memfd_noexec=1 request"
		assert_output --partial "$BUNDLE/config.json"
	done
	[ "$(ns_level "$SLEEPER")" = "$before" ]
}

@test "the undo is real, and a user namespace (or a parent at the level) makes the request safe" {
	requires root memfd_noexec
	# What the refusal prevents: root with CAP_SYS_ADMIN in a level-2
	# child of a level-0 parent lowers its own value back to 0.
	run unshare --pid --fork --mount-proc -- sh -c \
		'echo 2 >/proc/sys/vm/memfd_noexec && echo 0 >/proc/sys/vm/memfd_noexec && cat /proc/sys/vm/memfd_noexec'
	assert_success
	assert_output 0

	# A user namespace that maps container root to uid 100000: accepted.
	unshare --user --pid --fork --kill-child -- sleep 1000 >/dev/null 2>&1 3>&- &
	local u=$! c i
	BG_PIDS+=("$u")
	for i in $(seq 100); do
		c="$(cat "/proc/$u/task/$u/children" 2>/dev/null | awk '{print $1}')"
		[ -n "$c" ] && break
		sleep 0.05
	done
	BG_PIDS+=("$c")
	echo "0 100000 65536" >"/proc/$c/uid_map"
	echo "0 100000 65536" >"/proc/$c/gid_map"
	make_bundle '{"annotations":{"memfd_noexec":"2"}}'
	run "$MEMFD_NOEXEC" hook < <(state "$c")
	assert_success
	[ "$(ns_level "$c")" = 2 ]

	# A parent namespace already at 2: lowering is impossible, accepted.
	at_level 2 unshare --pid --fork --kill-child -- sleep 1000 >/dev/null 2>&1 3>&- &
	u=$!
	BG_PIDS+=("$u")
	for i in $(seq 100); do
		c=$(pgrep -P "$(pgrep -P "$(pgrep -P "$u" | head -1)" | head -1)" 2>/dev/null | head -1)
		[ -n "$c" ] && [ "$(readlink "/proc/$c/exe")" = "$(readlink -f "$(command -v sleep)")" ] && break
		sleep 0.05
	done
	BG_PIDS+=("$c")
	run "$MEMFD_NOEXEC" hook < <(state "$c")
	assert_success
	[ "$(ns_level "$c")" = 2 ]
}

@test "a user namespace that maps root to root is no protection" {
	requires root memfd_noexec
	unshare --user --map-root-user --pid --fork --kill-child -- sleep 1000 >/dev/null 2>&1 3>&- &
	local u=$! c i
	BG_PIDS+=("$u")
	for i in $(seq 100); do
		c="$(cat "/proc/$u/task/$u/children" 2>/dev/null | awk '{print $1}')"
		[ -n "$c" ] && break
		sleep 0.05
	done
	BG_PIDS+=("$c")
	make_bundle '{"annotations":{"memfd_noexec":"2"}}'
	run "$MEMFD_NOEXEC" hook < <(state "$c")
	assert_failure 1
	assert_output --partial "keeps CAP_SYS_ADMIN"
}

@test "inside a child namespace the hook names the namespace it means" {
	requires root memfd_noexec
	# The hook runs in a child PID namespace with its own /proc; the
	# target shares that namespace, which is not the initial one.
	make_bundle "{$CAPS,\"annotations\":{\"memfd_noexec\":\"2\"}}"
	cat >"$TEST_TMP/inner.sh" <<'EOF'
sleep 1000 &
s=$!
printf '{"pid":%s,"bundle":"%s"}' "$s" "$2" | "$1" hook
rc=$?
kill "$s"
exit $rc
EOF
	run unshare --pid --fork --kill-child --mount-proc -- sh "$TEST_TMP/inner.sh" "$MEMFD_NOEXEC" "$BUNDLE"
	# Level 0 here is below 2: refused, and named right.
	assert_failure 1
	assert_output --partial "it joins the PID namespace of the caller (the runtime), pid:["
	refute_output --partial "initial"
}

@test "nsexec's re-read decides when the write fails (fakekernel)" {
	requires root memfd_noexec fakekernel seccomp
	# Every 2-byte write gets EINVAL, "2\n" among them: the value stays 0,
	# so the re-read must refuse instead of running the command.
	run "$FAKEKERNEL" --fail='write[2==2]=EINVAL' -- "$MEMFD_NOEXEC" run --level 2 -- echo ran
	assert_failure 125
	assert_output --partial "the kernel refused the value (EINVAL) and it still reads"
	refute_output --partial "ran"
}

@test "hook: the OCI state's strings reach its messages escaped" {
	make_bundle "{$CAPS,\"annotations\":{\"memfd_noexec\":\"1\"}}"
	run "$MEMFD_NOEXEC" hook < <(state 1 '\u001b[2Jrunning')
	assert_failure 1
	assert_output --partial 'in status "\u001b[2Jrunning"'
	refute_output --partial $'\e'

	# A bundle whose name holds an escape sequence, and a state that
	# asks for another level than its config.json.
	mkdir "$TEST_TMP/b"$'\e'"[2J"
	cp "$BUNDLE/config.json" "$TEST_TMP/b"$'\e'"[2J/"
	run "$MEMFD_NOEXEC" hook <<<"{\"pid\":1,\"bundle\":\"$TEST_TMP/b\\u001b[2J\",\"annotations\":{\"memfd_noexec\":\"2\"}}"
	assert_failure 1
	assert_output --partial "differs from the \"1\" that $TEST_TMP/b\\u001b[2J/config.json asks for"
	refute_output --partial $'\e'
}
