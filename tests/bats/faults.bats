#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The fault sweep.  Under fakekernel's errno rules,
# every syscall on the loader path (each sealexec method) and on the apply
# path (memfd-noexec run) fails in turn, every call of it.  Each time:
# either the program runs from a sealed clone (or in a PID namespace at
# the level asked), or the tool fails with an error that names the step;
# never an unsealed exec or a wrong level, and no fd, mount, directory or
# file is left, nor a host device's owner or mode changed (teardown).
#
# The syscalls come from an strace -k trace of the same command, made at
# test time (tests/faults-case.sh syscalls), so the list cannot go stale.
# Left out: the calls that only the dynamic loader and libc's start-up
# make, before the tool's own code runs (no stack frame of the tool yet).
# Failing them tests ld.so, not us.  A syscall that the start-up and our
# code both use (openat, mmap, read, ...) is failed from a constructor
# (tests/fakekernel/preload.c) so that the failure reaches our code; the
# others through fakekernel itself.  close() is left out too: Linux
# releases the fd whatever close() returns, but a filter that fails it
# leaves the fd open, a state no kernel produces (a sealexec then waits
# for ever on a pipe whose write end it "closed").  The program run is fault-pause, which
# makes no syscall but ppoll: faults-case.sh inspects it from outside the
# filter (tests/faults-inspect.py).

load helpers

CASE="$REPO_ROOT/tests/faults-case.sh"
PAUSE="$BUILD_DIR/tests/helpers/fault-pause"
MNX="$BUILD_DIR/memfd-noexec/memfd-noexec"
FAKEKERNEL_PRELOAD="$BUILD_DIR/tests/fakekernel/fakekernel-preload.so"
export FAKEKERNEL FAKEKERNEL_PRELOAD

setup() {
	requires root seccomp fakekernel memfd_noexec cmd:strace cmd:python3 cmd:nsenter cmd:gcc ||
		return 1
	[ -x "$PAUSE" ] && [ -e "$FAKEKERNEL_PRELOAD" ] ||
		{ echo "fault-pause or fakekernel-preload.so not built in $BUILD_DIR" >&2; return 1; }
	HOST_LEVEL_BEFORE="$(host_level)"
	HOST_DEVICES_BEFORE="$(host_devices)"
	FAULTS_PPOLL_NR=$(printf '#include <sys/syscall.h>\n' | gcc -E -dM - |
		awk '$2 == "__NR_ppoll" { print $3 }')
	export FAULTS_PPOLL_NR
	T=$(mktemp -d /tmp/faults.XXXXXX)
	mkdir -m 0700 "$T/tmpdir"
}

teardown() {
	local rc=0 # teardown runs without errexit: each check counts through rc
	[ -z "${T:-}" ] || rm -rf -- "$T"
	assert_host_level_unchanged "${HOST_LEVEL_BEFORE:-}" || rc=1
	assert_host_devices_unchanged "${HOST_DEVICES_BEFORE:-}" || rc=1
	return "$rc"
}

# trace_syscalls PROGRAM CMD...: $SYSCALLS, the "NAME PREMAIN TOTAL" lines
# of the path in $T/trace, which CMD (an strace -f -k) writes; PROGRAM:
# the tool whose own code starts the path.
trace_syscalls() {
	local prog="$1"
	shift
	"$@" >/dev/null 2>&1 ||
		{ fail "the traced run failed: $*"; return; }
	SYSCALLS=$("$CASE" syscalls "$T/trace" "$prog")
	grep -q . <<<"$SYSCALLS" || fail "no syscalls on the path of $*"
}

# fault_case HOW SPEC CMD...: $CASE_OUT, faults-case.sh's report.
fault_case() {
	local how="$1" spec="$2"
	shift 2
	CASE_OUT=$("$CASE" run "$how" "$spec" -- "$@" 2>&1)
}

# field KEY: the value of KEY=... in $CASE_OUT.
field() {
	sed -n "s/^$1=//p" <<<"$CASE_OUT" | head -1
}

# judge SPEC ERRNO WANT_METHOD STEP_RE: appends to $BAD what is wrong with
# $CASE_OUT.  WANT_METHOD: the method a run must have used (any: any
# sealed one; level: a PID namespace at 2).  STEP_RE: an ERE that a
# failure's message must match (it names the step); the injected errno's
# text must follow somewhere on that line unless $ANY_ERRNO is set.
judge() {
	local spec="$1" errno="$2" want="$3" step="$4" ran status errtext
	ran=$(field ran)
	status=$(field status)
	errtext=$(python3 -c 'import errno, os, sys; print(os.strerror(getattr(errno, sys.argv[1])))' "$errno")
	case "$ran" in
	yes)
		if [ "$want" = level ]; then
			[ "$(field level)" = 2 ] || BAD+=("$spec: ran at level '$(field level)', not 2")
		else
			case "$(field method)" in
			none | "") BAD+=("$spec: ran from an unsealed file: $(field exe) $(grep '^seals=' <<<"$CASE_OUT")") ;;
			"$want") ;;
			*) [ "$want" = any ] || BAD+=("$spec: ran by $(field method), not $want") ;;
			esac
		fi
		[ "$(field fds)" = 0,1,2 ] || BAD+=("$spec: the program has fds $(field fds)")
		;;
	no)
		if [ "$status" = 0 ]; then
			BAD+=("$spec: exited 0 without running the program")
		elif [ "${spec%%=*}" = write ]; then
			: # nothing can be written to stderr: the exit status says it
		elif ! grep -qE "^stderr: ${step}" <<<"$CASE_OUT" ||
			{ [ -z "${ANY_ERRNO:-}" ] && ! grep -E "^stderr: ${step}" <<<"$CASE_OUT" | grep -qF "$errtext"; }; then
			BAD+=("$spec: exit $status without an error naming the step (${step}...: $errtext): $(grep '^stderr: ' <<<"$CASE_OUT" | tr '\n' '|')")
		fi
		;;
	*) BAD+=("$spec: ran=$ran (no exit and no fault-pause within 5 s)") ;;
	esac
	grep -q '^inspect=failed' <<<"$CASE_OUT" && BAD+=("$spec: faults-inspect.py failed")
	grep -q '^mounts=same$' <<<"$CASE_OUT" || BAD+=("$spec: mounts changed: $(grep '^mount[+-]=' <<<"$CASE_OUT" | tr '\n' '|')")
	if grep -q '^leftover=' <<<"$CASE_OUT"; then
		BAD+=("$spec: left $(grep '^leftover=' <<<"$CASE_OUT" | tr '\n' ' ')")
	fi
	true
}

# sweep ERRNOS NAME_RE WANT STEP_RE CMD...: each syscall of $SYSCALLS
# whose name matches NAME_RE fails with each of ERRNOS in turn (CMD has
# @INJECT@ where the injector goes); fails listing every bad case.
sweep() {
	local errnos="$1" name_re="$2" want="$3" step="$4" name premain total errno how n=0
	shift 4
	BAD=()
	while read -r name premain total; do
		[[ "$name" =~ $name_re ]] || continue
		# Only the loader's start-up makes it: not our code's call.
		[ "$total" -gt "$premain" ] || continue
		[ "$name" != close ] || continue # see the top of the file
		how=fakekernel
		[ "$premain" -eq 0 ] || how=preload
		for errno in $errnos; do
			fault_case "$how" "$name=$errno" "$@"
			judge "$name=$errno" "$errno" "$want" "$step"
			n=$((n + 1))
		done
	done <<<"$SYSCALLS"
	echo "# swept $n cases: $(awk '$3 > $2 { printf "%s ", $1 }' <<<"$SYSCALLS")" >&3
	[ "$n" -gt 0 ] || fail "no syscall swept"
	[ "${#BAD[@]}" -eq 0 ] || fail "$(printf '%s\n' "${BAD[@]}")"
}

# The sealexec messages: "Failed to make a sealed copy of P: Failed to
# STEP: ERR" (or "Refusing ..."), "Failed to execute the sealed copy
# of P (METHOD): Failed to STEP: ERR", "Failed to open program P: ERR".
SEAL_STEP='sealexec: (Failed to (make a sealed copy|execute the sealed copy) of [^:]+: (Failed to|Refusing) [a-z/]|(Failed to|Refusing) [a-z ]+ program [^:]+: .)'

# baseline METHOD WANT: without a fault, fault-pause runs by WANT with
# nothing left.
baseline() {
	fault_case none - "$SEALEXEC" --method="$1" --tmpdir="$T/tmpdir" -- @INJECT@ "$PAUSE"
	BAD=()
	judge baseline EIO "$2" -
	[ "$(field ran)" = yes ] || BAD+=("baseline: the program did not run: $CASE_OUT")
	[ "${#BAD[@]}" -eq 0 ] || fail "$(printf '%s\n' "${BAD[@]}")"
}

loader_sweep() {
	local method="$1" want="$2" errnos="${3:-EIO}" name_re="${4:-.}"
	trace_syscalls "$SEALEXEC" strace -f -qq -k -o "$T/trace" "$SEALEXEC" --method="$method" --tmpdir="$T/tmpdir" -- /bin/true
	baseline "$method" "$want"
	FAULTS_EMPTY="$T/tmpdir" sweep "$errnos" "$name_re" "$want" "$SEAL_STEP" \
		@INJECT@ "$SEALEXEC" --method="$method" --tmpdir="$T/tmpdir" -- "$PAUSE"
}

@test "fault sweep: sealexec --method=overlay, each syscall fails (EIO)" {
	loader_sweep overlay overlay
}

@test "fault sweep: sealexec --method=memfd, each syscall fails (EIO)" {
	loader_sweep memfd memfd
}

@test "fault sweep: sealexec --method=tmpfile, each syscall fails (EIO)" {
	loader_sweep tmpfile tmpfile
}

@test "fault sweep: sealexec --method=auto, each syscall fails (EIO), or falls back" {
	loader_sweep auto any
}

@test "fault sweep: sealexec --method=auto, the memfd and mount calls fail with EPERM, ENOSYS, EINVAL" {
	loader_sweep auto any "EPERM ENOSYS EINVAL" '^(memfd_create|fsopen|fsconfig|fsmount|open_tree|mount_setattr|execveat|fcntl)$'
}

# memfd-noexec's messages: "memfd-noexec run: Failed to STEP: ...".  The
# errno itself need not be in it: where the namespace's init fails first,
# the helper that sets the level reports that init went away.
RUN_STEP='memfd-noexec( run)?: (Failed|Refusing) to [a-z][^:]+: .'

@test "fault sweep: memfd-noexec run --level 2, each syscall fails (EIO)" {
	[ "$HOST_LEVEL_BEFORE" != 2 ] || fail "the host is at 2: a level read inside proves nothing"
	# (strace inside the PID namespace: it traces memfd-noexec, not unshare)
	trace_syscalls "$MNX" unshare --pid --fork --mount-proc -- \
		strace -f -qq -k -o "$T/trace" "$MNX" run --level 2 -- /bin/true
	local -a cmd=(unshare --pid --fork --mount-proc --kill-child -- @INJECT@ "$MNX" run --level 2 -- "$PAUSE")
	FAULTS_LEVEL=1 fault_case none - "${cmd[@]}"
	BAD=()
	judge baseline EIO level -
	[ "$(field ran)" = yes ] || BAD+=("baseline: the command did not run: $CASE_OUT")
	[ "${#BAD[@]}" -eq 0 ] || fail "$(printf '%s\n' "${BAD[@]}")"
	ANY_ERRNO=1 FAULTS_LEVEL=1 sweep EIO . level "$RUN_STEP" "${cmd[@]}"
}

# ---- memfd-noexec hook and serve --------------------------------------------

# start_container: sleep as the init of a new PID namespace (root's), a
# container for the hook and the service to raise; sets CPID and
# CONTAINER (the unshare); stop_container ends it.
start_container() {
	local sleep_bin
	sleep_bin="$(readlink -f "$(command -v sleep)")"
	unshare --pid --fork --kill-child -- sleep 1000 </dev/null >/dev/null 2>&1 3>&- &
	CONTAINER=$!
	for _ in $(seq 250); do
		CPID=$(awk '{print $1}' "/proc/$CONTAINER/task/$CONTAINER/children" 2>/dev/null)
		[ -n "$CPID" ] && [ "$(readlink "/proc/$CPID/exe")" = "$sleep_bin" ] && return 0
		sleep 0.02
	done
	fail "the container's sleep did not start"
}

stop_container() {
	kill -KILL "$CPID" 2>/dev/null || true
	wait "$CONTAINER" 2>/dev/null || true
}

# The hook's messages: "memfd-noexec hook: Failed to STEP: ..." (or
# "Refusing ..."), or the check it could not make ("Refusing
# vm.memfd_noexec=2 for process P: cannot tell whether ... (ERR)"); the
# injected errno's text must be on a line of its error.
HOOK_STEP='memfd-noexec( hook)?: ((Failed|Refusing) to [a-z][^:]+: .|Refusing vm\.memfd_noexec=2 for process [0-9]+: cannot tell [^(]+\()'

# judge_hook SPEC: appends to $BAD what is wrong with $CASE_OUT of a hook
# run: exit 0 only with the container at 2, else an error naming the
# step; nothing left.
judge_hook() {
	local spec="$1" status level
	status=$(field status)
	level=$(field target_level)
	if [ "$status" = 0 ]; then
		[ "$level" = 2 ] || BAD+=("$spec: the hook exited 0 with the container at '$level'")
	elif [ "${spec%%=*}" != write ] && { ! grep -qE "^stderr: $HOOK_STEP" <<<"$CASE_OUT" || ! grep -E "^stderr: $HOOK_STEP" <<<"$CASE_OUT" | grep -qF "Input/output error"; }; then
		BAD+=("$spec: exit $status without an error naming the step and EIO: $(grep '^stderr: ' <<<"$CASE_OUT" | tr '\n' '|')")
	fi
	grep -q '^mounts=same$' <<<"$CASE_OUT" || BAD+=("$spec: mounts changed")
	if grep -q '^leftover=' <<<"$CASE_OUT"; then
		BAD+=("$spec: left $(grep '^leftover=' <<<"$CASE_OUT" | tr '\n' ' ')")
	fi
	true
}

# hook_state: the bundle (annotation 2) and $T/state.json for $CPID.
hook_state() {
	mkdir -p "$T/bundle"
	printf '%s\n' '{"ociVersion":"1.0.2","process":{"args":["sh"],"capabilities":{"bounding":["CAP_KILL"]}},"annotations":{"memfd_noexec":"2"}}' >"$T/bundle/config.json"
	printf '{"ociVersion":"1.0.2","id":"faults","status":"creating","pid":%s,"bundle":"%s","annotations":{}}\n' \
		"$CPID" "$T/bundle" >"$T/state.json"
}

@test "fault sweep: memfd-noexec hook (annotation 2), each syscall fails (EIO)" {
	[ "$HOST_LEVEL_BEFORE" != 2 ] || fail "the host is at 2: a level read inside proves nothing"
	local name premain total how n=0
	start_container
	hook_state
	# shellcheck disable=SC2016 # expanded by the inner bash
	trace_syscalls "$MNX" bash -c 'exec strace -f -qq -k -o "$1" "$2" hook <"$3"' bash \
		"$T/trace" "$MNX" "$T/state.json"
	stop_container
	BAD=()
	start_container
	hook_state
	FAULTS_STDIN="$T/state.json" FAULTS_TARGET="$CPID" fault_case none - @INJECT@ "$MNX" hook
	judge_hook baseline
	[ "$(field status)" = 0 ] || BAD+=("baseline: the hook failed: $CASE_OUT")
	stop_container
	while read -r name premain total; do
		[ "$total" -gt "$premain" ] || continue
		case "$name" in
		close | getpid) continue ;; # see the top of the file; getpid cannot fail
		esac
		how=fakekernel
		[ "$premain" -eq 0 ] || how=preload
		start_container
		hook_state
		FAULTS_STDIN="$T/state.json" FAULTS_TARGET="$CPID" fault_case "$how" "$name=EIO" @INJECT@ "$MNX" hook
		judge_hook "$name=EIO"
		stop_container
		n=$((n + 1))
	done <<<"$SYSCALLS"
	echo "# swept $n cases: $(awk '$3 > $2 { printf "%s ", $1 }' <<<"$SYSCALLS")" >&3
	[ "$n" -gt 0 ] || fail "no syscall swept"
	[ "${#BAD[@]}" -eq 0 ] || fail "$(printf '%s\n' "${BAD[@]}")"
}

# The service's messages on stderr: "memfd-noexec serve: Failed to STEP:
# ..." (or a refusal to start), or a request's one line that ends with
# the step that failed after it was served ("uid U pid P: raise ...: ok:
# ...; Failed to send the answer: ..."); in an answer: "error N Failed to
# STEP: ..." or what it could not find out about the client.
SERVE_STEP='memfd-noexec( serve)?: (Failed to [a-z][^:]+: .|must run as global root|this kernel has no|uid [0-9]+ pid [0-9]+: .*; Failed to [a-z][^:]+: .)'
REPLY_STEP='(Failed to [a-z][^:]+: .|the client \(pid [0-9]+\) exited|out of memory)'

# judge_serve SPEC: appends to $BAD what is wrong with $CASE_OUT of a
# service run: it started, answered the one request and stopped on
# SIGTERM, or says which step failed; "ok"/"kept" only with the container
# at 2; its socket removed, or an error that says it was not.
judge_serve() {
	local spec="$1" started reply status level
	started=$(field started)
	reply=$(field reply)
	status=$(field status)
	level=$(field target_level)
	if [ "$started" = no ]; then
		[ "$status" != 0 ] || BAD+=("$spec: it did not start, yet exited 0")
	fi
	case "$started:$reply" in
	no:*) ;;
	*:"ok 2" | *:"kept 2")
		[ "$level" = 2 ] || BAD+=("$spec: it answered '$reply' with the container at '$level'") ;;
	*:error\ *)
		grep -qE "^error [0-9]+ $REPLY_STEP" <<<"$reply" ||
			BAD+=("$spec: an answer that names no step: $reply") ;;
	*:) ;; # no answer: its log must say why (below)
	*) BAD+=("$spec: an answer outside the protocol: $reply") ;;
	esac
	if [ "${spec%%=*}" != write ] && { [ "$started" = no ] || [ -z "$reply" ] || [ "$status" != 0 ]; } && ! grep -qE "^stderr: $SERVE_STEP" <<<"$CASE_OUT"; then
		BAD+=("$spec: started=$started reply='$reply' exit $status without an error naming the step: $(grep '^stderr: ' <<<"$CASE_OUT" | tr '\n' '|')")
	fi
	if grep -q '^socket=left$' <<<"$CASE_OUT" && ! grep -qE '^stderr: memfd-noexec serve: Failed to (remove|look at) ' <<<"$CASE_OUT"; then
		BAD+=("$spec: left its socket without saying so (exit $status)")
	fi
	grep -q '^mounts=same$' <<<"$CASE_OUT" || BAD+=("$spec: mounts changed")
	true
}

@test "fault sweep: memfd-noexec serve, each syscall fails (EIO)" {
	[ "$HOST_LEVEL_BEFORE" != 2 ] || fail "the host is at 2: a level read inside proves nothing"
	local client="$BUILD_DIR/tests/helpers/serve-client" name premain total how n=0 spid
	[ -x "$client" ] || fail "$client not built"
	# The path: start, one request (a raise), SIGTERM.
	start_container
	strace -f -qq -k -o "$T/trace" "$MNX" serve --socket "$T/sock" 2>"$T/log" 3>&- &
	for _ in $(seq 250); do
		[ -S "$T/sock" ] && grep -q "listening on" "$T/log" && break
		sleep 0.02
	done
	"$client" -p "$CPID" "$T/sock" >/dev/null 2>&1 || fail "the traced service did not answer: $(cat "$T/log")"
	spid=$(pgrep -P "$!" | head -1)
	kill -TERM "$spid"
	wait "$!" || fail "the traced service failed: $(cat "$T/log")"
	stop_container
	SYSCALLS=$("$CASE" syscalls "$T/trace" "$MNX")
	BAD=()
	start_container
	CASE_OUT=$("$CASE" serve none - "$T/sock" "$CPID" "$client" -- "$MNX" serve --socket "$T/sock" 2>&1)
	judge_serve baseline
	[ "$(field reply)" = "ok 2" ] && [ "$(field status)" = 0 ] || BAD+=("baseline: $CASE_OUT")
	stop_container
	while read -r name premain total; do
		[ "$total" -gt "$premain" ] || continue
		case "$name" in
		close | getpid | rt_sigreturn | exit_group) continue ;; # no kernel fails them
		esac
		how=fakekernel
		[ "$premain" -eq 0 ] || how=preload
		start_container
		CASE_OUT=$("$CASE" serve "$how" "$name=EIO" "$T/sock" "$CPID" "$client" -- \
			@INJECT@ "$MNX" serve --socket "$T/sock" 2>&1)
		judge_serve "$name=EIO"
		stop_container
		rm -f "$T/sock"
		n=$((n + 1))
	done <<<"$SYSCALLS"
	echo "# swept $n cases: $(awk '$3 > $2 { printf "%s ", $1 }' <<<"$SYSCALLS")" >&3
	[ "$n" -gt 0 ] || fail "no syscall swept"
	[ "${#BAD[@]}" -eq 0 ] || fail "$(printf '%s\n' "${BAD[@]}")"
}
