#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The two halves of tests/bats/faults.bats (the fault sweep), kept here so that the bats file reads as a table of checks.
#
#   faults-case.sh syscalls TRACE PROGRAM
#       TRACE is `strace -f -k` output of a run of PROGRAM (a full path).
#       Prints "NAME PREMAIN TOTAL" for each distinct syscall on the path: from
#       PROGRAM's start up to each process's first successful exec of
#       something else (that is the program run from the clone, or the
#       command in the new PID namespace), in order of first use.  PREMAIN
#       counts the calls that the first process made before its first
#       call from PROGRAM's own code (a stack frame in PROGRAM): the
#       dynamic loader's and libc's start-up; TOTAL all calls on the path.
#
#   faults-case.sh run HOW SPEC -- CMD...
#       Runs CMD once in a private mount namespace, with no fd above 2,
#       stdin /dev/null.  The word @INJECT@ in CMD is replaced by the
#       injector: HOW fakekernel: `fakekernel --fail=SPEC --`; HOW preload:
#       the same rule loaded by the program's own start-up, past the
#       dynamic loader (tests/fakekernel/preload.c); HOW none: nothing.
#       CMD runs in a session of its own (setsid), and the program that
#       it finally runs must be tests/helpers/fault-pause.  Prints
#       key=value lines:
#         ran=yes|no|timeout   fault-pause was seen blocked in ppoll
#         (ran=yes) the lines of faults-inspect.py for it, and with
#         FAULTS_LEVEL=1 level=N, vm.memfd_noexec in its PID namespace
#         status=N             CMD's exit status (137 after our SIGKILL)
#         mounts=same, or mount+=LINE / mount-=LINE for each change
#         leftover=PATH        a new .cloned_binary* entry in /tmp, /run,
#                              /var/tmp or /dev/shm, or any entry in a
#                              directory of $FAULTS_EMPTY (space-separated)
#         stderr: LINE         CMD's standard error
#     Env: FAKEKERNEL and FAKEKERNEL_PRELOAD (paths), FAULTS_PPOLL_NR (ppoll's syscall number;
#     computed if unset); FAULTS_STDIN, a file for CMD's stdin (default
#     /dev/null); FAULTS_TARGET, a PID whose PID namespace's
#     vm.memfd_noexec is printed as target_level=N after CMD ended (the
#     container of `memfd-noexec hook`).
#
#   faults-case.sh serve HOW SPEC SOCKET TARGET CLIENT -- CMD...
#       The same for a service: CMD (`memfd-noexec serve --socket SOCKET`,
#       with @INJECT@) runs in a session of its own; once it listens (or
#       within 5 s), CLIENT (tests/helpers/serve-client) asks it once to
#       raise the PID namespace of TARGET; then CMD gets SIGTERM.  Prints
#         started=yes|no       SOCKET appeared and "listening on" was logged
#         reply=LINE           the client's reply (none: empty)
#         target_level=N       vm.memfd_noexec of TARGET's PID namespace
#         status=N|timeout     CMD's exit status after SIGTERM (5 s)
#         socket=left          SOCKET is still there afterwards
#       and mounts=..., leftover=..., stderr: ... as for run.
set -uo pipefail

here="$(cd "$(dirname "$0")" && pwd)"

syscalls() {
	local trace="$1" prog="$2"
	awk -v prog="$prog" '
	# "PID  name(args...) = ret", "PID  name(args <unfinished ...>",
	# "PID  <... name resumed>...", and " > frame" lines after a call.
	/^ > / {
		if (index($0, " > " prog "(") == 1 && !inmain) {
			inmain = 1
			premain[last]-- # this call is ours already
		}
		next
	}
	{
		pid = $1
		line = $0
		sub(/^[0-9]+ +/, "", line)
		if (line ~ /^<\.\.\. /) {
			# The end of a call already counted; an exec ends the path.
			if (line ~ /^<\.\.\. exec(ve|veat) resumed>.*= 0$/ && !(pid in done) && pid != first)
				done[pid] = 1
			next
		}
		if (!match(line, /^[a-z_0-9]+\(/))
			next
		name = substr(line, 1, RLENGTH - 1)
		if (first == "")
			first = pid
		if (pid in done)
			next
		if (!(name in seen)) {
			seen[name] = ++n
			order[n] = name
		}
		last = name
		total[name]++
		if (!inmain && pid == first)
			premain[name]++
		# An exec that succeeded: the tool itself at the start (the
		# first line of the first process), else the end of this path.
		if (name ~ /^exec(ve|veat)$/ && line ~ /= 0$/) {
			if (pid == first && !started)
				started = 1
			else
				done[pid] = 1
		}
	}
	END {
		for (i = 1; i <= n; i++)
			print order[i], premain[order[i]] + 0, total[order[i]]
	}' "$trace"
}

# find_pause SID: the processes of session SID that are blocked in ppoll
# (fault-pause running; no tool of ours calls ppoll before its exec).
find_pause() {
	local p
	for p in $(pgrep -s "$1"); do
		[ "$(cut -d' ' -f1 "/proc/$p/syscall" 2>/dev/null)" = "$FAULTS_PPOLL_NR" ] && echo "$p"
	done
}

watched() {
	local d
	for d in /tmp /run /var/tmp /dev/shm; do
		find "$d" -mindepth 1 -maxdepth 1 -name '.cloned_binary*' 2>/dev/null
	done
	for d in ${FAULTS_EMPTY:-}; do
		find "$d" -mindepth 1 -maxdepth 1 2>/dev/null
	done
	true
}

run_case() {
	local how="$1" spec="$2" a n pid pause="" status ran=timeout f
	local -a inject=() cmd=()
	shift 3
	case "$how" in
	fakekernel) inject=("$FAKEKERNEL" "--fail=$spec" --) ;;
	preload) inject=(env "LD_PRELOAD=$FAKEKERNEL_PRELOAD" "FAKEKERNEL_PRELOAD_FAIL=$spec") ;;
	none) ;;
	*) echo "faults-case: unknown HOW '$how'" >&2; return 2 ;;
	esac
	for a in "$@"; do
		if [ "$a" = @INJECT@ ]; then cmd+=("${inject[@]}"); else cmd+=("$a"); fi
	done
	: "${FAULTS_PPOLL_NR:=$(printf '#include <sys/syscall.h>\n' | gcc -E -dM - |
		awk '$2 == "__NR_ppoll" { print $3 }')}"
	# Only CMD's own fds: none of ours or of bats above 2.
	for f in /proc/$$/fd/*; do
		n=${f##*/}
		[ "$n" -gt 2 ] && eval "exec $n>&-" 2>/dev/null
	done

	local tmp
	tmp=$(mktemp -d /tmp/faults-case.XXXXXX) || return 1
	cat /proc/self/mountinfo >"$tmp/mounts.before"
	watched | sort >"$tmp/left.before"

	# No job control here, so CMD is no group leader and setsid does not
	# fork: $! leads the new session.
	setsid -- "${cmd[@]}" <"${FAULTS_STDIN:-/dev/null}" >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	for _ in $(seq "${FAULTS_POLLS:-300}"); do
		pause=$(find_pause "$pid" | head -1)
		[ -n "$pause" ] && { ran=yes; break; }
		kill -0 "$pid" 2>/dev/null || { ran=no; break; }
		sleep 0.01
	done
	# (a last look: it may have reached ppoll as we checked it had exited)
	[ "$ran" = no ] && pause=$(find_pause "$pid" | head -1) && [ -n "$pause" ] && ran=yes
	echo "ran=$ran"
	[ -z "${FAULTS_DEBUG:-}" ] || for p in $(pgrep -s "$pid"); do echo "debug: $p $(cut -d" " -f1 /proc/$p/syscall) $(readlink /proc/$p/exe) $(ls /proc/$p/fd | tr "\n" " ")"; done
	if [ "$ran" = yes ]; then
		python3 "$here/faults-inspect.py" "$pause" || echo "inspect=failed"
		[ "${FAULTS_LEVEL:-}" = 1 ] &&
			echo "level=$(nsenter -t "$pause" --pid -- cat /proc/sys/vm/memfd_noexec)"
		kill -KILL "$pause"
	fi
	if [ "$ran" = timeout ]; then
		kill -KILL -- "-$pid" 2>/dev/null
	fi
	wait "$pid" 2>/dev/null # (no "Killed" notice from bash)
	status=$?
	echo "status=$status"
	[ -z "${FAULTS_TARGET:-}" ] ||
		echo "target_level=$(nsenter -t "$FAULTS_TARGET" --pid -- cat /proc/sys/vm/memfd_noexec)"
	# Whatever CMD started is gone too before we look for leftovers.
	for _ in $(seq 200); do
		pgrep -s "$pid" >/dev/null || break
		sleep 0.01
	done

	cat /proc/self/mountinfo >"$tmp/mounts.after"
	if cmp -s "$tmp/mounts.before" "$tmp/mounts.after"; then
		echo "mounts=same"
	else
		diff "$tmp/mounts.before" "$tmp/mounts.after" | sed -n 's/^< /mount-=/p; s/^> /mount+=/p'
	fi
	watched | sort | comm -13 "$tmp/left.before" - | sed 's/^/leftover=/'
	sed 's/^/stderr: /' "$tmp/err"
	rm -rf -- "$tmp"
}

# inject_cmd HOW SPEC CMD...: $CMD, CMD with @INJECT@ replaced.
inject_cmd() {
	local how="$1" spec="$2" a
	local -a inject=()
	shift 2
	case "$how" in
	fakekernel) inject=("$FAKEKERNEL" "--fail=$spec" --) ;;
	preload) inject=(env "LD_PRELOAD=$FAKEKERNEL_PRELOAD" "FAKEKERNEL_PRELOAD_FAIL=$spec") ;;
	none) ;;
	*) echo "faults-case: unknown HOW '$how'" >&2; return 2 ;;
	esac
	CMD=()
	for a in "$@"; do
		if [ "$a" = @INJECT@ ]; then CMD+=("${inject[@]}"); else CMD+=("$a"); fi
	done
}

serve_case() {
	local how="$1" spec="$2" sock="$3" target="$4" client="$5" pid started=no status=timeout reply="" tmp
	shift 6
	inject_cmd "$how" "$spec" "$@" || return 2
	tmp=$(mktemp -d /tmp/faults-case.XXXXXX) || return 1
	cat /proc/self/mountinfo >"$tmp/mounts.before"
	setsid -- "${CMD[@]}" </dev/null >"$tmp/out" 2>"$tmp/err" &
	pid=$!
	for _ in $(seq 250); do
		# (write=...: it cannot log; the socket alone says it listens)
		[ -S "$sock" ] && { grep -q "listening on" "$tmp/err" || [ "${spec%%=*}" = write ]; } &&
			{ started=yes; sleep 0.1; break; }
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.02
	done
	echo "started=$started"
	if [ "$started" = yes ]; then
		reply=$(timeout 5 "$client" -p "$target" "$sock" 2>/dev/null | head -1)
		echo "reply=$reply"
	fi
	echo "target_level=$(nsenter -t "$target" --pid -- cat /proc/sys/vm/memfd_noexec)"
	kill -TERM "$pid" 2>/dev/null
	for _ in $(seq 250); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.02
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL -- "-$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	else
		wait "$pid" 2>/dev/null
		status=$?
	fi
	echo "status=$status"
	for _ in $(seq 200); do
		pgrep -s "$pid" >/dev/null || break
		sleep 0.01
	done
	[ ! -e "$sock" ] || echo "socket=left"
	cat /proc/self/mountinfo >"$tmp/mounts.after"
	if cmp -s "$tmp/mounts.before" "$tmp/mounts.after"; then
		echo "mounts=same"
	else
		diff "$tmp/mounts.before" "$tmp/mounts.after" | sed -n 's/^< /mount-=/p; s/^> /mount+=/p'
	fi
	sed 's/^/stderr: /' "$tmp/err"
	rm -rf -- "$tmp"
}

case "${1:-}" in
syscalls)
	syscalls "$2" "$3" ;;
run)
	shift
	if [ -z "${FAULTS_IN_NS:-}" ]; then
		# A private mount namespace: a mount left behind shows up here,
		# and no one else's mounts come and go meanwhile.
		FAULTS_IN_NS=1 exec unshare --mount --propagation private -- "$0" run "$@"
	fi
	run_case "$@" ;;
serve)
	shift
	if [ -z "${FAULTS_IN_NS:-}" ]; then
		FAULTS_IN_NS=1 exec unshare --mount --propagation private -- "$0" serve "$@"
	fi
	serve_case "$@" ;;
*)
	echo "usage: faults-case.sh syscalls TRACE PROGRAM | run HOW SPEC -- CMD... | serve HOW SPEC SOCKET TARGET CLIENT -- CMD..." >&2
	exit 2 ;;
esac
