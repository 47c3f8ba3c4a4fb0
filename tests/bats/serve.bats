# SPDX-License-Identifier: Apache-2.0
# memfd-noexec serve: the raise-only service for rootless containers.
# Each test starts its own service on a socket in a temp dir and
# stops it by PID (no systemd here).  Every level is written by the service
# inside a child PID namespace only; teardown checks that the host's value
# did not move, and that no process of the test is left.

bats_require_minimum_version 1.5.0
load helpers

MEMFD_NOEXEC="$BUILD_DIR/memfd-noexec/memfd-noexec"
MEMFDPROBE="$BUILD_DIR/tests/helpers/memfdprobe"
CLIENT="$BUILD_DIR/tests/helpers/serve-client"
FLOOD="$BUILD_DIR/tests/helpers/serve-flood"
LIAR="$BUILD_DIR/tests/helpers/lying-service"
# The second unprivileged user, for "user A names user B's container".
TEST_USER2="${TEST_USER2:-cbtest2}"
UNITS="$REPO_ROOT/contrib/systemd"
# Debian's, which the test users can run (not a shim under /root).
PYTHON3=/usr/bin/python3

setup_file() {
	stage_user_binaries
	[ ! -x "$CLIENT" ] || install -m 0755 "$CLIENT" "$USER_BIN/"
}

teardown_file() {
	unstage_user_binaries
}

setup() {
	local b
	for b in "$MEMFD_NOEXEC" "$MEMFDPROBE" "$CLIENT"; do
		[ -x "$b" ] || {
			echo "$b not built (set BUILD_DIR)" >&2
			return 1
		}
	done
	requires root memfd_noexec cmd:nsenter cmd:python3 || return 1
	[ -x "$PYTHON3" ] || missing "$PYTHON3 (contrib/install-deps.sh test)" || return 1
	T="$(mktemp -d /tmp/serve-bats.XXXXXX)"
	chmod 0755 "$T" # the test users connect to $T/sock
	SOCK="$T/sock"
	U_CLIENT="$USER_BIN/serve-client"
	BG_PIDS=()
	SERVE_PID=
	HOST_LEVEL_BEFORE="$(host_level)"
}

teardown() {
	local i p n
	if [ -n "$SERVE_PID" ] && kill -0 "$SERVE_PID" 2>/dev/null; then
		kill -TERM "$SERVE_PID" 2>/dev/null || true
		wait "$SERVE_PID" 2>/dev/null || true
	fi
	# Newest first: a namespace's sleep (PID 1 there: only SIGKILL
	# reaches it) before the unshare that reaps it.
	for ((i = ${#BG_PIDS[@]} - 1; i >= 0; i--)); do
		p="${BG_PIDS[i]}"
		for n in $(seq 40); do
			kill -0 "$p" 2>/dev/null || break
			[ "$(awk '{print $3 " " $4}' "/proc/$p/stat" 2>/dev/null)" = "Z $BASHPID" ] && break
			[ "$n" -gt 1 ] || kill -KILL "$p" 2>/dev/null || true
			sleep 0.05
		done
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	[ -n "${T:-}" ] && rm -rf "$T"
	assert_host_level_unchanged "${HOST_LEVEL_BEFORE:-}"
}

# ---- helpers -----------------------------------------------------------------

# ensure_user2: the second unprivileged user, made once, as ensure_test_user
# makes the first.
ensure_user2() {
	id -u "$TEST_USER2" >/dev/null 2>&1 && return 0
	useradd --system --create-home --home-dir "/var/lib/$TEST_USER2" \
		--shell /bin/sh "$TEST_USER2" >/dev/null 2>&1 || id -u "$TEST_USER2" >/dev/null 2>&1
}

requires_users() {
	requires user userns || return 1
	ensure_user2 || missing "a second unprivileged user $TEST_USER2" || return 1
}

# The raise tests need a host below 2, or "raise 2" is always "kept".
requires_host_below_2() {
	[ "$(host_level)" != 2 ] || missing "a host vm.memfd_noexec below 2" || return 1
}

# run_as USER CMD...: CMD as USER (root: as it is), without capabilities.
run_as() {
	local who="$1"
	shift
	if [ "$who" = root ]; then
		"$@"
	else
		setpriv --reuid="$who" --regid="$who" --init-groups --inh-caps=-all -- "$@"
	fi
}

# client_as USER ARGS...: serve-client as USER (the staged copy for users).
client_as() {
	local who="$1"
	shift
	if [ "$who" = root ]; then
		"$CLIENT" "$@"
	else
		run_as "$who" "$U_CLIENT" "$@"
	fi
}

# wait_for_socket PID PATH: until PATH is a socket, while PID lives.
wait_for_socket() {
	local i
	for i in $(seq 100); do
		[ -S "$2" ] && grep -q "listening on" "$T/log" 2>/dev/null && return 0
		kill -0 "$1" 2>/dev/null || break
		sleep 0.05
	done
	echo "the service did not start; its log:" >&2
	cat "$T/log" >&2
	return 1
}

# start_service [ARGS...]: memfd-noexec serve --socket $SOCK ARGS in the
# background, logging to $T/log; sets SERVE_PID.
start_service() {
	"$MEMFD_NOEXEC" serve --socket "$SOCK" "$@" 2>"$T/log" 3>&- &
	SERVE_PID=$!
	wait_for_socket "$SERVE_PID" "$SOCK"
}

# stop_service [SIGNAL]: stops it by PID; it must exit 0.
stop_service() {
	local rc=0
	kill -"${1:-TERM}" "$SERVE_PID"
	wait "$SERVE_PID" || rc=$?
	SERVE_PID=
	[ "$rc" -eq 0 ] || fail "the service exited $rc; its log: $(cat "$T/log")"
}

# find_sleep PID: sets CPID to the first `sleep` among PID's descendants
# (breadth first), waiting up to 5 s for it to appear.
find_sleep() {
	local i p c queue sleep_bin
	sleep_bin="$(readlink -f "$(command -v sleep)")"
	for i in $(seq 100); do
		queue=("$1")
		while [ ${#queue[@]} -gt 0 ]; do
			p="${queue[0]}"
			queue=("${queue[@]:1}")
			if [ "$p" != "$1" ] && [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$sleep_bin" ]; then
				CPID="$p"
				BG_PIDS+=("$p")
				return 0
			fi
			for c in $(cat "/proc/$p/task/$p/children" 2>/dev/null); do
				queue+=("$c")
			done
		done
		sleep 0.05
	done
	echo "the container's sleep did not start" >&2
	return 1
}

# start_container USER: `sleep` as PID 1 of a new PID namespace.  For a
# user, as a rootless runtime makes it: the PID namespace is owned by a
# new user namespace of that user (unshare --user --map-root-user).  Sets
# CPID to the sleep's PID.
start_container() {
	local who="$1"
	if [ "$who" = root ]; then
		unshare --pid --fork --kill-child -- sleep 1000 >/dev/null 2>&1 3>&- &
	else
		# setpriv itself, not run_as: $! must be the unshare.
		setpriv --reuid="$who" --regid="$who" --init-groups --inh-caps=-all -- \
			unshare --user --map-root-user --pid --fork --kill-child -- \
			sleep 1000 >/dev/null 2>&1 3>&- &
	fi
	BG_PIDS+=("$!")
	find_sleep "$!"
}

# ns_level PID: vm.memfd_noexec inside PID's namespace, read as root.
ns_level() {
	nsenter --target "$1" --pid -- cat /proc/sys/vm/memfd_noexec
}

# ns_ino PID: the inode of PID's PID namespace, as the log names it.
ns_ino() {
	stat -L -c %i "/proc/$1/ns/pid"
}

# assert_log ERE: a line of the service's log ($T/log) matches ERE.
assert_log() {
	with_output "$(cat "$T/log")" assert_line --regexp "$1"
}

# still_serving USER: the service answers USER's request for USER's own
# fresh container with "ok 2".
still_serving() {
	kill -0 "$SERVE_PID" || { fail "the service died; its log: $(cat "$T/log")"; return; }
	start_container "$1"
	run client_as "$1" -p "$CPID" "$SOCK"
	assert_success
	assert_line --regexp '^ok 2$'
}

# ---- the user's own container ------------------------------------------------

@test "serve: raises the user's own container to 2, never the host; then kept" {
	requires_users || return 1
	requires_host_below_2 || return 1
	start_service
	start_container "$TEST_USER"
	[ "$(ns_level "$CPID")" = "$HOST_LEVEL_BEFORE" ]

	run client_as "$TEST_USER" -p "$CPID" "$SOCK"
	assert_success
	assert_line --regexp '^ok 2$'
	[ "$(ns_level "$CPID")" = 2 ]
	run nsenter --target "$CPID" --pid -- "$MEMFDPROBE" exec
	assert_output --partial "memfdprobe: flags=exec result=EACCES"
	[ "$(host_level)" = "$HOST_LEVEL_BEFORE" ]
	assert_log "uid $(id -u "$TEST_USER") pid [0-9]+: raise 2 pid:\[$(ns_ino "$CPID")\]: ok: now 2 \(was $HOST_LEVEL_BEFORE\)$"

	# Never lowered: 1 (and 0) afterwards are "kept 2".
	run client_as "$TEST_USER" -m "raise 1" -p "$CPID" "$SOCK"
	assert_line --regexp '^kept 2$'
	run client_as "$TEST_USER" -m "raise 0" -p "$CPID" "$SOCK"
	assert_line --regexp '^kept 2$'
	[ "$(ns_level "$CPID")" = 2 ]
	assert_log "raise 1 pid:\[$(ns_ino "$CPID")\]: kept: already 2$"
	stop_service
}

@test "serve: raise 1 gives 1 (not more), and a process in a namespace below counts" {
	requires_users || return 1
	[ "$(host_level)" = 0 ] || missing "a host vm.memfd_noexec of 0" || return 1
	start_service
	start_container "$TEST_USER"
	run client_as "$TEST_USER" -m "raise 1" -p "$CPID" "$SOCK"
	assert_line --regexp '^ok 1$'
	[ "$(ns_level "$CPID")" = 1 ]
	run nsenter --target "$CPID" --pid -- "$MEMFDPROBE" exec
	assert_output --partial "result=ok"
	run nsenter --target "$CPID" --pid -- "$MEMFDPROBE" none
	assert_output --partial "exec_seal=yes"
	stop_service
}

# ---- refusals: whose namespace -----------------------------------------------

@test "serve: refuses user A naming user B's container; B's level stays" {
	requires_users || return 1
	requires_host_below_2 || return 1
	start_service
	start_container "$TEST_USER2"
	local b="$CPID"

	run client_as "$TEST_USER" -p "$b" "$SOCK"
	assert_success
	# The reply names no other user's uid; the log (root's) does.
	assert_line --regexp "^error 1 the target's PID namespace belongs to a user namespace that another uid created, not the client's uid $(id -u "$TEST_USER")$"
	refute_output --partial "uid $(id -u "$TEST_USER2")"
	[ "$(ns_level "$b")" = "$HOST_LEVEL_BEFORE" ]
	assert_log "uid $(id -u "$TEST_USER") pid [0-9]+: raise 2 pid:\[$(ns_ino "$b")\]: refused: .*another uid created, not the client's uid $(id -u "$TEST_USER") \(created by uid $(id -u "$TEST_USER2")\)$"

	# B may.
	run client_as "$TEST_USER2" -p "$b" "$SOCK"
	assert_line --regexp '^ok 2$'
	still_serving "$TEST_USER"
	stop_service
}

@test "serve: refuses the host's PID namespace (a plain host process)" {
	requires_users || return 1
	start_service
	local host_pid target
	sleep 1000 >/dev/null 2>&1 3>&- &
	host_pid=$!
	BG_PIDS+=("$host_pid")

	for target in "-p $host_pid" "-s"; do
		# shellcheck disable=SC2086
		run client_as "$TEST_USER" $target "$SOCK"
		assert_success
		assert_line --regexp '^error 1 the target is in the initial PID namespace \(the host.s\), which this service never changes$'
	done
	run client_as root -s "$SOCK"
	assert_line --regexp '^error 1 the target is in the initial PID namespace'
	[ "$(host_level)" = "$HOST_LEVEL_BEFORE" ]
	still_serving "$TEST_USER"
	stop_service
}

@test "serve: refuses the client's own PID namespace" {
	requires_users || return 1
	requires_host_below_2 || return 1
	start_service
	# -u: the client runs as PID 1 of a new user and PID namespace of its
	# own, and names itself.
	run client_as "$TEST_USER" -u -s "$SOCK"
	assert_success
	assert_line --regexp "^error 1 the target is in the client's own PID namespace; only a PID namespace below it \(a container's\) may be raised$"
	run client_as root -u -s "$SOCK"
	assert_line --regexp "^error 1 the target is in the client's own PID namespace"
	still_serving "$TEST_USER"
	stop_service
}

@test "serve: refuses a sibling namespace: root's, and the client's own uid's" {
	requires_users || return 1
	requires_host_below_2 || return 1
	start_service
	start_container root
	local r="$CPID"
	run client_as "$TEST_USER" -p "$r" "$SOCK"
	assert_line --regexp "^error 1 the target's PID namespace belongs to a user namespace that another uid created, not the client's uid $(id -u "$TEST_USER")$"
	[ "$(ns_level "$r")" = "$HOST_LEVEL_BEFORE" ]

	# The user's own container, but named from another PID namespace of
	# the user's (a sibling, not a parent): rule 2 alone refuses it.
	start_container "$TEST_USER"
	local c="$CPID"
	run client_as "$TEST_USER" -u -p "$c" "$SOCK"
	assert_line --regexp "^error 1 the target's PID namespace is not below the client's own, pid:\[[0-9]+\]$"
	[ "$(ns_level "$c")" = "$HOST_LEVEL_BEFORE" ]
	# The same for root, whose uid owns the sibling.
	run client_as root -u -p "$r" "$SOCK"
	assert_line --regexp "^error 1 the target's PID namespace is not below the client's own"
	[ "$(ns_level "$r")" = "$HOST_LEVEL_BEFORE" ]

	# Root, from the host, may raise root's container.
	run client_as root -p "$r" "$SOCK"
	assert_line --regexp '^ok 2$'
	still_serving "$TEST_USER"
	stop_service
}

@test "serve: refuses the service's own PID namespace" {
	requires_users || return 1
	requires_host_below_2 || return 1
	local u i
	# The service as PID 1 of a child PID namespace, with its own /proc.
	unshare --pid --fork --kill-child --mount-proc -- \
		"$MEMFD_NOEXEC" serve --socket "$SOCK" 2>"$T/log" 3>&- &
	u=$!
	BG_PIDS+=("$u")
	for i in $(seq 100); do
		SERVE_PID="$(awk '{print $1}' "/proc/$u/task/$u/children" 2>/dev/null)"
		[ -n "$SERVE_PID" ] && [ -S "$SOCK" ] && break
		sleep 0.05
	done
	BG_PIDS+=("$SERVE_PID")
	wait_for_socket "$SERVE_PID" "$SOCK"
	local level
	level="$(ns_level "$SERVE_PID")"

	run client_as root -p "$SERVE_PID" "$SOCK"
	assert_line --regexp '^error 1 the target is in the service.s own PID namespace, which this service never changes$'
	[ "$(ns_level "$SERVE_PID")" = "$level" ]
	# It serves clients in its namespace, for containers below it.
	nsenter --target "$SERVE_PID" --pid -- \
		unshare --pid --fork --kill-child -- sleep 1000 >/dev/null 2>&1 3>&- &
	BG_PIDS+=("$!")
	find_sleep "$!"
	local inner
	inner="$(awk '/^NSpid:/ {print $3}' "/proc/$CPID/status")"
	run nsenter --target "$SERVE_PID" --pid -- "$CLIENT" -p "$inner" "$SOCK"
	assert_line --regexp '^ok 2$'
	[ "$(ns_level "$CPID")" = 2 ]
	# A client above the service's namespace is refused: from there,
	# NS_GET_PARENT cannot see that the target lies below the client.
	nsenter --target "$SERVE_PID" --pid -- \
		unshare --pid --fork --kill-child -- sleep 1000 >/dev/null 2>&1 3>&- &
	BG_PIDS+=("$!")
	find_sleep "$!"
	run client_as root -p "$CPID" "$SOCK"
	assert_line --regexp "^error 1 the target's PID namespace is not below the client's own"
	[ "$(ns_level "$CPID")" = "$level" ]
	# But not the host's containers, which it cannot see.
	start_container root
	run client_as root -p "$CPID" "$SOCK"
	assert_line --regexp '^error 3 the process of the attached pidfd has exited \(or is outside the service.s PID namespace\)$'
	SERVE_PID= # PID 1 there: teardown kills it
}

# ---- refusals: what was sent -------------------------------------------------

@test "serve: refuses a bare PID (in the text, or a non-pidfd fd), no fd, two fds" {
	requires_users || return 1
	requires_host_below_2 || return 1
	start_service
	start_container "$TEST_USER"

	run client_as "$TEST_USER" -m "raise 2 $CPID" "$SOCK"
	assert_line --regexp "^error 22 the request \"raise 2 $CPID\" is not exactly \"raise 0\", \"raise 1\" or \"raise 2\"$"
	run client_as "$TEST_USER" -m "raise 2" "$SOCK"
	assert_line --regexp '^error 9 the request carries no fd; it must carry exactly one pidfd'
	run client_as "$TEST_USER" -m "raise 2 $CPID" -p "$CPID" "$SOCK"
	assert_line --regexp '^error 22 the request "raise 2 [0-9]+" is not exactly'
	for f in "/proc/$CPID" "/proc/$CPID/ns/pid" /etc/passwd /dev/null; do
		run client_as root -f "$f" "$SOCK"
		assert_line --regexp '^error 9 the attached fd is not a pidfd: attach a pidfd \(pidfd_open\(2\)\) of a process in the PID namespace to raise, never a PID$'
	done
	run client_as "$TEST_USER" -p "$CPID" -p "$CPID" "$SOCK"
	assert_line --regexp '^error 22 the request carries 2 fds; it must carry exactly one pidfd$'
	run client_as "$TEST_USER" -p "$CPID" -f /etc/passwd "$SOCK"
	assert_line --regexp '^error 22 the request carries 2 fds'
	local many=()
	for i in $(seq 20); do many+=(-p "$CPID"); done
	run client_as "$TEST_USER" "${many[@]}" "$SOCK"
	assert_line --regexp '^error 22 the request carries more than 16 fds'

	[ "$(ns_level "$CPID")" = "$HOST_LEVEL_BEFORE" ]
	still_serving "$TEST_USER"
	stop_service
}

@test "serve: refuses a pidfd of a process that has exited" {
	requires_users || return 1
	start_service
	run client_as "$TEST_USER" -e "$SOCK"
	assert_success
	assert_line --regexp '^error 3 the process of the attached pidfd has exited \(or is outside the service.s PID namespace\)$'
	assert_log "uid $(id -u "$TEST_USER") pid [0-9]+: raise 2 pid:\[\?\]: refused: the process of the attached pidfd has exited \(or is outside the service.s PID namespace\)$"
	still_serving "$TEST_USER"
	stop_service
}

@test "serve: refuses every request text but exactly \"raise 0|1|2\"" {
	requires_users || return 1
	requires_host_below_2 || return 1
	start_service
	start_container "$TEST_USER"
	local m
	for m in "raise 3" "raise -1" $'raise 2\n' "raise 02" "raise  2" " raise 2" \
		"raise 2 " "RAISE 2" "raise" "raise " "lower 0" "raise 2x" "raise +2" \
		"raise 1;2" "raise ２"; do
		run client_as "$TEST_USER" -m "$m" -p "$CPID" "$SOCK"
		assert_success
		assert_line --regexp '^error 22 the request ".*" is not exactly "raise 0", "raise 1" or "raise 2"$'
	done
	# Garbage bytes, a NUL after the digit, an empty message.
	for h in 00 ff00fe7f0a0d1b5b 7261697365203200 ""; do
		run client_as "$TEST_USER" -x "$h" -p "$CPID" "$SOCK"
		assert_line --regexp '^error 22 the request ".*" is not exactly'
	done
	run client_as "$TEST_USER" -x 7261697365203200 -p "$CPID" "$SOCK"
	assert_line --regexp '^error 22 the request "raise 2\\u0000" is not exactly'
	# Longer than a message may be.
	run client_as "$TEST_USER" -m "raise 2$(printf '%*s' 2000 '')" -p "$CPID" "$SOCK"
	assert_line --regexp '^error 90 the request is longer than 1024 bytes'
	# A newline in the request never reaches the log as a line of its own.
	run client_as "$TEST_USER" -m $'raise 2\nmemfd-noexec serve: forged' -p "$CPID" "$SOCK"
	assert_line --regexp '^error 22 the request "raise 2\\nmemfd-noexec serve: forged" is not exactly'
	with_output "$(cat "$T/log")" refute_line --regexp '^memfd-noexec serve: forged'

	[ "$(ns_level "$CPID")" = "$HOST_LEVEL_BEFORE" ]
	# A connection that says nothing gets an error after about a second.
	run client_as "$TEST_USER" -q "$SOCK"
	assert_line --regexp '^error 110 no request within 1000 ms$'
	still_serving "$TEST_USER"
	stop_service
}

@test "serve: a silent client does not hold up the others" {
	requires_users || return 1
	requires_host_below_2 || return 1
	start_service
	start_container "$TEST_USER"
	client_as "$TEST_USER" -q "$SOCK" >"$T/silent" 2>/dev/null 3>&- &
	BG_PIDS+=("$!")
	local silent=$! t0 t1
	sleep 0.2
	t0=$(date +%s%N)
	run client_as "$TEST_USER" -p "$CPID" "$SOCK"
	t1=$(date +%s%N)
	assert_line --regexp '^ok 2$'
	# Answered well before the silent one's 1 s timeout.
	[ $(((t1 - t0) / 1000000)) -lt 700 ] ||
		fail "the reply took $(((t1 - t0) / 1000000)) ms, with a silent client waiting"
	wait "$silent"
	grep -qx 'error 110 no request within 1000 ms' "$T/silent"
	stop_service
}

# ---- the allow-list ----------------------------------------------------------

@test "serve: --allow-user/--allow-group refuse everyone else" {
	requires_users || return 1
	requires_host_below_2 || return 1
	start_service --allow-user root
	start_container "$TEST_USER"
	run client_as "$TEST_USER" -p "$CPID" "$SOCK"
	assert_line --regexp "^error 13 uid $(id -u "$TEST_USER") may not use this service: it is not among its --allow-user and --allow-group; ask the administrator$"
	[ "$(ns_level "$CPID")" = "$HOST_LEVEL_BEFORE" ]
	assert_log "uid $(id -u "$TEST_USER") pid [0-9]+: raise \? pid:\[\?\]: refused: uid [0-9]+ may not use this service"
	start_container root
	run client_as root -p "$CPID" "$SOCK"
	assert_line --regexp '^ok 2$'
	stop_service

	# By number, and by group (the user's primary group).
	start_service --allow-user "$(id -u "$TEST_USER2")" --allow-group "$(id -gn "$TEST_USER")"
	start_container "$TEST_USER"
	run client_as "$TEST_USER" -p "$CPID" "$SOCK"
	assert_line --regexp '^ok 2$'
	start_container "$TEST_USER2"
	run client_as "$TEST_USER2" -p "$CPID" "$SOCK"
	assert_line --regexp '^ok 2$'
	run client_as root -s "$SOCK"
	assert_line --regexp '^error 13 uid 0 may not use this service'
	stop_service

	# A supplementary group counts too (SO_PEERGROUPS).
	start_service --allow-group "$(id -gn "$TEST_USER")"
	start_container "$TEST_USER2"
	run setpriv --reuid="$TEST_USER2" --regid="$TEST_USER2" \
		--groups="$(id -g "$TEST_USER")" --inh-caps=-all -- "$U_CLIENT" -p "$CPID" "$SOCK"
	assert_line --regexp '^ok 2$'
	run client_as "$TEST_USER2" -p "$CPID" "$SOCK"
	assert_line --regexp '^error 13 '
	stop_service
}

@test "serve: unknown users and groups, bad options: refused at start" {
	run timeout 10 "$MEMFD_NOEXEC" serve --socket "$SOCK" --allow-user no-such-user-xyz
	assert_failure 2
	assert_output --partial "unknown user 'no-such-user-xyz' in --allow-user"
	run timeout 10 "$MEMFD_NOEXEC" serve --socket "$SOCK" --allow-group no-such-group-xyz
	assert_failure 2
	assert_output --partial "unknown group 'no-such-group-xyz' in --allow-group"
	run timeout 10 "$MEMFD_NOEXEC" serve --socket "$SOCK" --allow-user 4294967295
	assert_failure 2
	run timeout 10 "$MEMFD_NOEXEC" serve --socket "$SOCK" --bogus
	assert_failure 2
	assert_output --partial "unknown option '--bogus'"
	run timeout 10 "$MEMFD_NOEXEC" serve --socket "$SOCK" extra
	assert_failure 2
	run timeout 10 "$MEMFD_NOEXEC" serve --socket "$T/$(printf '%*s' 120 '' | tr ' ' x)"
	assert_failure 2
	assert_output --partial "invalid --socket"
	run timeout 10 env MEMFD_TOOLKIT_FEATURES=-bogus "$MEMFD_NOEXEC" serve --socket "$SOCK"
	assert_failure 2
	assert_output --partial "Refusing MEMFD_TOOLKIT_FEATURES=-bogus: '-bogus' is not one of"
	[ ! -e "$SOCK" ]
	run "$MEMFD_NOEXEC" serve --help
	assert_success
	assert_output --partial "Usage: memfd-noexec serve"
	run "$MEMFD_NOEXEC" --help
	assert_success
	assert_output --partial "serve [--socket PATH]"
}

@test "serve: refuses to run unless global root" {
	requires_users || return 1
	run timeout 10 setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups --inh-caps=-all -- "$U_MEMFD_NOEXEC" serve --socket "$SOCK"
	assert_failure 1
	assert_output --partial "must run as global root"
	assert_output --partial "euid is not 0"
	run timeout 10 setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups --inh-caps=-all -- unshare --user --map-root-user -- "$U_MEMFD_NOEXEC" serve --socket "$SOCK"
	assert_failure 1
	assert_output --partial "in a user namespace, whose root is not global root"
	run timeout 10 unshare --user --map-root-user -- "$MEMFD_NOEXEC" serve --socket "$SOCK"
	assert_failure 1
	assert_output --partial "must run as global root"
	run timeout 10 setpriv --inh-caps=-all --bounding-set=-sys_admin -- "$MEMFD_NOEXEC" serve --socket "$SOCK"
	assert_failure 1
	assert_output --partial "CAP_SYS_ADMIN"
	[ ! -e "$SOCK" ]
}

# ---- load --------------------------------------------------------------------

@test "serve: 200 parallel requests, valid and invalid, all answered; no fd leak" {
	requires_users || return 1
	requires_host_below_2 || return 1
	start_service
	start_container "$TEST_USER"
	local before after i pids=() out
	before="$(ls "/proc/$SERVE_PID/fd" | wc -l)"

	for i in $(seq 200); do
		case $((i % 10)) in
		0 | 1 | 2) client_as "$TEST_USER" -p "$CPID" "$SOCK" ;;
		3) client_as "$TEST_USER" -m garbage -p "$CPID" "$SOCK" ;;
		4) client_as "$TEST_USER2" -p "$CPID" "$SOCK" ;;
		5) client_as "$TEST_USER" -e "$SOCK" ;;
		6) client_as root -x 00ff -p 1 -p 1 "$SOCK" ;;
		7) client_as "$TEST_USER" -m "raise 2" "$SOCK" ;;
		8) client_as "$TEST_USER" -s "$SOCK" ;;
		9) client_as root -q "$SOCK" ;;
		esac >"$T/out.$i" 2>/dev/null 3>&- &
		pids+=("$!")
	done
	for i in "${pids[@]}"; do
		wait "$i" || { fail "a client got no reply"; return; }
	done
	out="$(cat "$T"/out.*)"
	[ "$(grep -cE '^(ok 2|kept 2|error [0-9]+ .+)$' <<<"$out")" -eq 200 ]
	[ "$(grep -c '^ok 2$' <<<"$out")" -eq 1 ]
	[ "$(grep -c '^kept 2$' <<<"$out")" -eq 59 ]
	[ "$(grep -c '^error 110 ' <<<"$out")" -eq 20 ]
	[ "$(grep -c '^error 1 ' <<<"$out")" -eq 40 ]
	[ "$(grep -c '^error 22 ' <<<"$out")" -eq 40 ]
	[ "$(grep -c '^error 3 ' <<<"$out")" -eq 20 ]
	[ "$(grep -c '^error 9 ' <<<"$out")" -eq 20 ]
	[ "$(grep -c ': raise' "$T/log")" -eq 200 ]

	after="$(ls "/proc/$SERVE_PID/fd" | wc -l)"
	[ "$after" -eq "$before" ] ||
		fail "the service has $after fds after the requests, $before before: $(ls -l "/proc/$SERVE_PID/fd")"
	[ "$(ns_level "$CPID")" = 2 ]
	still_serving "$TEST_USER"
	stop_service
}

@test "serve: one uid's silent connections cannot fill the table" {
	requires_users || return 1
	requires_host_below_2 || return 1
	start_service
	# 70 connections at once, none of which sends anything.
	client_as "$TEST_USER" -q -n 70 "$SOCK" >"$T/silent" 2>/dev/null 3>&- &
	BG_PIDS+=("$!")
	local silent=$! i
	# The 65th and later are refused at once; the first 64 wait.
	for i in $(seq 100); do
		[ "$(grep -c 'connections without a request' "$T/log")" -ge 6 ] && break
		sleep 0.02
	done
	# Meanwhile another uid is served, without waiting for them.
	start_container "$TEST_USER2"
	run timeout 0.9 "$CLIENT" -p "$CPID" "$SOCK"
	assert_line --regexp '^error 1 ' # root: the container is cbtest2's
	run client_as "$TEST_USER2" -p "$CPID" "$SOCK"
	assert_line --regexp '^ok 2$'
	wait "$silent"
	[ "$(grep -c "^error 16 the service is busy for user $(id -u "$TEST_USER"): it has 64 connections without a request; send the request right after connecting$" "$T/silent")" -eq 6 ]
	[ "$(grep -c '^error 110 no request within 1000 ms$' "$T/silent")" -eq 64 ]
	stop_service
}

@test "serve: one uid's flood of valid requests does not hold up another uid" {
	requires_users || return 1
	requires_host_below_2 || return 1
	start_service
	start_container "$TEST_USER"
	local flood="$CPID" i p pids=()
	# Three clients of one uid, each sending 1000 well-formed requests at
	# once (each a raise: two forks, ~12 ms), round after round until
	# stopped: served one at a time, minutes of work.
	# setpriv itself, not run_as: $! must be the loop, which stops its
	# client when it is stopped (wait returns on a signal; a foreground
	# child would keep it alive until its replies came).
	for i in 1 2 3; do
		# shellcheck disable=SC2016 # expanded by the inner bash
		setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups --inh-caps=-all -- \
			bash -c 'trap "kill \$c 2>/dev/null; exit 0" TERM
				ulimit -n 4096 || exit 1
				while :; do "$0" -E -n 1000 -p "$1" "$2" & c=$!; wait "$c" || exit 1; done' \
			"$U_CLIENT" "$flood" "$SOCK" >"$T/flood.$i" 2>/dev/null 3>&- &
		pids+=("$!")
		BG_PIDS+=("$!")
	done
	for i in $(seq 250); do
		[ "$(grep -c ": raise 2 pid:\[$(ns_ino "$flood")\]: " "$T/log")" -ge 100 ] && break
		sleep 0.02
	done
	# Another uid's request, three times while the flood goes on: each is
	# answered within a second.
	start_container "$TEST_USER2"
	for i in 1 2 3; do
		run run_as "$TEST_USER2" timeout 1 "$U_CLIENT" -p "$CPID" "$SOCK"
		assert_success
		assert_line --regexp '^(ok|kept) 2$'
	done
	for p in "${pids[@]}"; do
		kill -0 "$p" 2>/dev/null || fail "a flood client stopped before the other uid was answered: $(sort "$T"/flood.* | uniq -c)"
		kill -TERM "$p"
		wait "$p"
	done
	# The flood itself: at most SERVE_MAX_QUEUED_PER_UID (64) of its
	# requests wait at once; the others are refused at once, and say why.
	with_output "$(sort "$T"/flood.* | uniq -c)" \
		assert_line --regexp "^ +[0-9]+ error 16 the service is busy for user $(id -u "$TEST_USER"): 64 requests of that user wait for their turn already; try again when they are answered$"
	with_output "$(sort "$T"/flood.* | uniq -c)" \
		assert_line --regexp '^ +[0-9]+ kept 2$'
	still_serving "$TEST_USER2"
	stop_service
}

# flood_then_other K [-U]: serve-flood's flood, 3000 requests always in
# flight from K subordinate uids of $TEST_USER (a user namespace with
# 65536 uids, mapped by root), or with -U from K distinct users
# $FLOOD_USERS.. of the initial user namespace; then one request of
# $TEST_USER2, which must be answered "ok 2" in under 2 s.  serve-flood
# stops by itself (-t) and kills what it started.  Sets OTHER_MS.
flood_then_other() {
	local from who
	if [ "${2:-}" = -U ]; then
		from="$1 users from uid $FLOOD_USERS" who="$FLOOD_USERS"
	else
		from="$1 subordinate uids of uid $(id -u "$TEST_USER")" who="$(id -u "$TEST_USER")"
	fi
	run timeout 120 "$FLOOD" -t 100 ${2:+"$2"} -k "$1" -n 3000 "$SOCK" "$who" "$(id -u "$TEST_USER2")"
	assert_success
	assert_line --regexp "^flood: 3000 requests from $from sent in [0-9]+ ms$"
	assert_line --regexp "^other: uid $(id -u "$TEST_USER2") answered in [0-9]+ ms: ok 2$"
	OTHER_MS="$(sed -n 's/^other: uid [0-9]* answered in \([0-9]*\) ms: .*/\1/p' <<<"$output")"
	echo "# $from: uid $(id -u "$TEST_USER2") answered in $OTHER_MS ms" >&3
	[ "$OTHER_MS" -lt 2000 ] || fail "another user waited $OTHER_MS ms behind the flood (at most 2000)"
}

@test "serve: a user's subordinate uids share one quota: another user is answered in under 2 s" {
	requires_users || return 1
	requires_host_below_2 || return 1
	[ -x "$FLOOD" ] || fail "$FLOOD not built"
	start_service
	# The flood a review ran: 8 subordinate uids, 3000 requests ahead.
	flood_then_other 8
	# 48 subordinate uids: with a quota per uid each of them would stay
	# within it, so all 3000 requests would wait their turn (minutes).
	flood_then_other 48
	# The flood's requests count against its owner: refused as busy, and
	# told with the user (one by one up to the log's limit).
	assert_log "^memfd-noexec serve: uid [0-9]+ \(user $(id -u "$TEST_USER")\) pid [0-9]+: raise \? pid:\[\?\]: refused: the service is busy for user $(id -u "$TEST_USER"): 64 requests of that user wait for their turn already; try again when they are answered$"
	still_serving "$TEST_USER2"
	stop_service
}

# Eight users of the initial user namespace (uids without a passwd entry:
# the kernel and the service need none), far from any real one.
FLOOD_USERS=3100001

@test "serve: eight users fill the table: a ninth user still gets a place, answered in under 2 s" {
	requires_users || return 1
	requires_host_below_2 || return 1
	[ -x "$FLOOD" ] || fail "$FLOOD not built"
	local t0 t1 lines limit
	start_service
	t0=$(date +%s)
	# 8 users x 64 waiting requests: all 512 places.  Without a place
	# taken from the user with the most, the ninth is answered "busy".
	flood_then_other 8 -U
	# Again, with eight other users: the first eight's fds may still be
	# in flight, which the kernel counts per user (ETOOMANYREFS).
	FLOOD_USERS=3100101 flood_then_other 8 -U
	t1=$(date +%s)
	# Each of the eight was held to its quota (one by one within the
	# log's limit, the rest in the summary).
	assert_log "^memfd-noexec serve: uid (3100[01][0-9]{2}) pid [0-9]+: raise \? pid:\[\?\]: refused: the service is busy for user \1: 64 requests of that user wait for their turn already"
	still_serving "$TEST_USER2"
	stop_service
	# The log's limit: thousands of busy answers, but at most 200 request
	# lines per 10 s window (and the raises that wrote), and a summary.
	assert_log "^memfd-noexec serve: [0-9]+ more requests in the last 10000 ms not logged one by one \(at most 200 are\), [0-9]+ of them refused busy; the most, [0-9]+, of user 3100[01][0-9]{2}$"
	lines="$(grep -c ': raise ' "$T/log")"
	limit=$(((t1 - t0 + 9) / 10 * 200 + 200 + 20))
	echo "# $lines request lines in $((t1 - t0)) s (limit $limit)" >&3
	[ "$lines" -le "$limit" ] || fail "$lines request lines in $((t1 - t0)) s: not limited (at most $limit)"
}

@test "serve: a refused request is logged with the client's uid and pid" {
	requires_users || return 1
	start_service
	run --separate-stderr client_as "$TEST_USER" -m garbage "$SOCK"
	assert_line --regexp '^error 22 '
	local pid
	# shellcheck disable=SC2154 # bats' run --separate-stderr sets $stderr
	pid="$(sed -n 's/^client pid //p' <<<"$stderr")"
	[ -n "$pid" ] || fail "serve-client printed no 'client pid' line: $stderr"
	with_output "$(cat "$T/log")" \
		assert_line "memfd-noexec serve: uid $(id -u "$TEST_USER") pid $pid: raise ? pid:[?]: refused: the request \"garbage\" is not exactly \"raise 0\", \"raise 1\" or \"raise 2\""
	# From a child PID namespace: the PID as the service sees it.
	run --separate-stderr client_as "$TEST_USER" -u -s "$SOCK"
	pid="$(sed -n 's/^client pid //p' <<<"$stderr")"
	assert_log "^memfd-noexec serve: uid $(id -u "$TEST_USER") pid $pid: raise 2 pid:\[[0-9]+\]: refused: the target is in the client's own PID namespace"
	stop_service
	assert_log '^memfd-noexec serve: stopped by SIGTERM$'
}

# ---- the socket --------------------------------------------------------------

@test "serve: binds 0666, removes its socket on SIGTERM and SIGINT" {
	requires_users || return 1
	start_service
	[ "$(stat -c %a "$SOCK")" = 666 ]
	[ "$(stat -c %F "$SOCK")" = socket ]
	stop_service TERM
	[ ! -e "$SOCK" ]
	assert_log "removed $SOCK"
	start_service
	stop_service INT
	[ ! -e "$SOCK" ]
	assert_log '^memfd-noexec serve: stopped by SIGINT$'
}

@test "serve: replaces only a stale socket of its own" {
	requires_users || return 1
	# A file: refused, left alone.
	echo precious >"$SOCK"
	run timeout 10 "$MEMFD_NOEXEC" serve --socket "$SOCK"
	assert_failure 1
	assert_output --partial "Refusing to replace $SOCK: it is not a socket of ours (a file owned by uid 0)"
	[ "$(cat "$SOCK")" = precious ]
	rm "$SOCK"
	# A symlink to a socket: refused.
	python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET).bind(sys.argv[1])' "$T/real"
	ln -s "$T/real" "$SOCK"
	run timeout 10 "$MEMFD_NOEXEC" serve --socket "$SOCK"
	assert_failure 1
	assert_output --partial "not a socket of ours"
	rm "$SOCK"
	# Another user's stale socket: refused.
	install -d -o "$TEST_USER" -m 0755 "$T/u"
	run_as "$TEST_USER" "$PYTHON3" -c 'import socket,sys; socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET).bind(sys.argv[1])' "$T/u/sock"
	run timeout 10 "$MEMFD_NOEXEC" serve --socket "$T/u/sock"
	assert_failure 1
	assert_output --partial "(a socket owned by uid $(id -u "$TEST_USER"))"
	[ -S "$T/u/sock" ]
	# Our own stale one: replaced.
	python3 -c 'import socket,sys; socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET).bind(sys.argv[1])' "$SOCK"
	start_service
	# A live one: refused, and the live one keeps serving.
	run timeout 10 "$MEMFD_NOEXEC" serve --socket "$SOCK"
	assert_failure 1
	assert_output --partial "Refusing to replace the socket $SOCK: a service listens there"
	[ -S "$SOCK" ]
	still_serving "$TEST_USER"
	stop_service
}

# activate TYPE PATH CMD...: CMD with a listening TYPE (seqpacket or stream)
# Unix socket at PATH passed as systemd does: fd 3, LISTEN_FDS=1, LISTEN_PID.
# It execs, so that in the background $! is the service's PID.
ACTIVATE_PY='
import os, socket, sys
kind = {"seqpacket": socket.SOCK_SEQPACKET, "stream": socket.SOCK_STREAM}[sys.argv[1]]
s = socket.socket(socket.AF_UNIX, kind)
s.bind(sys.argv[2])
os.chmod(sys.argv[2], 0o666)
s.listen(64)
if s.fileno() != 3:
    os.dup2(s.fileno(), 3)
os.set_inheritable(3, True)
os.environ["LISTEN_FDS"] = "1"
os.environ["LISTEN_PID"] = str(os.getpid())
os.execv(sys.argv[3], sys.argv[3:])
'
activate() {
	exec python3 -c "$ACTIVATE_PY" "$@"
}

@test "serve: socket activation (LISTEN_FDS=1, LISTEN_PID ours, fd 3)" {
	requires_users || return 1
	requires_host_below_2 || return 1
	activate seqpacket "$SOCK" "$MEMFD_NOEXEC" serve 2>"$T/log" 3>&- &
	SERVE_PID=$!
	wait_for_socket "$SERVE_PID" "$SOCK"
	assert_log "listening on fd 3 \(socket activation\), for every local user"
	[[ "$(readlink "/proc/$SERVE_PID/fd/3")" == socket:* ]]
	still_serving "$TEST_USER"
	stop_service
	# The socket is systemd's (RemoveOnStop=): the service leaves it.
	[ -S "$SOCK" ]
	rm "$SOCK"

	# Not a SOCK_SEQPACKET socket: refused.
	run timeout 10 python3 -c "$ACTIVATE_PY" stream "$SOCK" "$MEMFD_NOEXEC" serve 3>&-
	assert_failure 1
	assert_output --partial "fd 3 from socket activation is not a SOCK_SEQPACKET Unix socket"
	rm "$SOCK"
	# Both --socket and activation: refused.
	run timeout 10 python3 -c "$ACTIVATE_PY" seqpacket "$SOCK" "$MEMFD_NOEXEC" serve --socket "$T/other" 3>&-
	assert_failure 1
	assert_output --partial "both --socket $T/other and socket activation"
	rm "$SOCK"
	# LISTEN_PID names another process: not ours, so it binds --socket.
	LISTEN_FDS=1 LISTEN_PID=1 "$MEMFD_NOEXEC" serve --socket "$SOCK" 2>"$T/log" 3>&- &
	SERVE_PID=$!
	wait_for_socket "$SERVE_PID" "$SOCK"
	assert_log "listening on $SOCK \(bound\)"
	stop_service
}

# ---- a lying service ----------------------------------------------------------

# hook_with_service SERVICE...: in a private mount namespace with a tmpfs on
# /run, SERVICE... listens on the default socket (the clients always ask
# there), and $TEST_USER's `memfd-noexec hook` asks it for the user's
# container $CPID (annotation 2).  Prints the hook's output, then "hook
# exit N" and "level N" (read as root afterwards).
hook_with_service() {
	local bundle="$T/bundle"
	mkdir -p "$bundle"
	printf '%s\n' '{"ociVersion":"1.0.2","process":{"args":["sh"],"capabilities":{"bounding":["CAP_KILL"]}},"annotations":{"memfd_noexec":"2"}}' >"$bundle/config.json"
	chmod -R a+rX "$bundle"
	printf '{"ociVersion":"1.0.2","id":"bats","status":"creating","pid":%s,"bundle":"%s","annotations":{}}\n' \
		"$CPID" "$bundle" >"$T/state.json"
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare --mount --propagation private -- bash -c '
		mount -t tmpfs -o mode=0755 tmpfs /run || exit 1
		"$@" 2>"$T/service.log" 3>&- &
		svc=$!
		for _ in $(seq 100); do
			[ -S /run/memfd-noexec.sock ] && grep -q listening "$T/service.log" && break
			sleep 0.05
		done
		setpriv --reuid="$TEST_USER" --regid="$TEST_USER" --init-groups --inh-caps=-all -- \
			"$U_MEMFD_NOEXEC" hook <"$T/state.json" 2>&1
		echo "hook exit $?"
		echo "level $(nsenter --target "$CPID" --pid -- cat /proc/sys/vm/memfd_noexec)"
		kill -TERM "$svc"
		wait "$svc"' bash "$@"
}

@test "serve: a rootless hook reads the level back: a service that says ok without raising is not believed" {
	requires_users || return 1
	requires_host_below_2 || return 1
	[ -x "$LIAR" ] || fail "$LIAR not built"
	export T TEST_USER U_MEMFD_NOEXEC CPID
	start_container "$TEST_USER"
	run hook_with_service "$LIAR" /run/memfd-noexec.sock "ok 2"
	assert_line "hook exit 1"
	assert_line "level $HOST_LEVEL_BEFORE"
	assert_output --regexp "memfd-noexec hook: Failed to set vm.memfd_noexec=2 in the PID namespace of process [0-9]+: the memfd-noexec service answered 2, but it reads $HOST_LEVEL_BEFORE \(too low\); refusing to go on\."
	grep -q 'lying-service: answered "ok 2" (1)' "$T/service.log"
	# "kept 2" is no better.
	run hook_with_service "$LIAR" /run/memfd-noexec.sock "kept 2"
	assert_line "hook exit 1"
	assert_line "level $HOST_LEVEL_BEFORE"
	# The real service, on the same path, raises it: the hook succeeds.
	run hook_with_service "$MEMFD_NOEXEC" serve
	assert_line "hook exit 0"
	assert_line "level 2"
}

# ---- fallbacks and deployment ------------------------------------------------

@test "serve: without SO_PEERPIDFD and PIDFD_GET_PID_NAMESPACE (the fallbacks)" {
	requires_users || return 1
	requires_host_below_2 || return 1
	MEMFD_NOEXEC_DEBUG=1 MEMFD_TOOLKIT_FEATURES=-so_peerpidfd,-pidfd_get_pid_namespace \
		start_service
	start_container "$TEST_USER"
	run client_as "$TEST_USER" -p "$CPID" "$SOCK"
	assert_line --regexp '^ok 2$'
	assert_log '^memfd-noexec: using pidfd_open for the client$'
	assert_log '^memfd-noexec: using /proc for a PID namespace$'
	assert_log '^memfd-noexec: using /proc for a user namespace$'
	run client_as "$TEST_USER2" -p "$CPID" "$SOCK"
	assert_line --regexp "^error 1 the target's PID namespace belongs to a user namespace that another uid created, not the client's uid $(id -u "$TEST_USER2")$"
	assert_log "refused: .* \(created by uid $(id -u "$TEST_USER")\)$"
	run client_as "$TEST_USER" -u -s "$SOCK"
	assert_line --regexp "^error 1 the target is in the client's own PID namespace"
	start_container "$TEST_USER"
	run client_as "$TEST_USER" -u -p "$CPID" "$SOCK"
	assert_line --regexp "^error 1 the target's PID namespace is not below the client's own"
	run client_as "$TEST_USER" -e "$SOCK"
	assert_line --regexp '^error 3 '
	stop_service
}

# The bounding set of contrib/systemd/memfd-noexec.service, for setpriv.
unit_bounding_set() {
	local caps
	caps="$(sed -n 's/^CapabilityBoundingSet=//p' "$UNITS/memfd-noexec.service")"
	[ -n "$caps" ] || return 1
	printf -- '-all'
	for c in $caps; do
		c="${c#CAP_}"
		printf ',+%s' "${c,,}"
	done
}

@test "serve: works with only the capabilities the systemd unit keeps" {
	requires_users || return 1
	requires_host_below_2 || return 1
	local set
	set="$(unit_bounding_set)"
	setpriv --bounding-set="$set" --inh-caps=-all -- \
		"$MEMFD_NOEXEC" serve --socket "$SOCK" 2>"$T/log" 3>&- &
	SERVE_PID=$!
	wait_for_socket "$SERVE_PID" "$SOCK"
	still_serving "$TEST_USER"
	start_container "$TEST_USER2"
	run client_as "$TEST_USER" -p "$CPID" "$SOCK"
	assert_line --regexp '^error 1 '
	stop_service
}

@test "serve: the systemd units pass systemd-analyze verify" {
	requires cmd:systemd-analyze || return 1
	cp "$UNITS/memfd-noexec.socket" "$UNITS/memfd-noexec.service" "$T/"
	# verify wants ExecStart= to exist: point it at the build.
	sed -i "s|^ExecStart=/usr/local/bin/memfd-noexec |ExecStart=$MEMFD_NOEXEC |" "$T/memfd-noexec.service"
	grep -q "^ExecStart=$MEMFD_NOEXEC serve$" "$T/memfd-noexec.service"
	run systemd-analyze verify "$T/memfd-noexec.socket" "$T/memfd-noexec.service"
	assert_success
	refute_output # systemd-analyze verify complains on stdout/stderr
	grep -qx 'ListenSequentialPacket=/run/memfd-noexec.sock' "$UNITS/memfd-noexec.socket"
	grep -qx 'SocketMode=0666' "$UNITS/memfd-noexec.socket"
	grep -qx 'Accept=no' "$UNITS/memfd-noexec.socket"
	grep -qx 'ExecStart=/usr/local/bin/memfd-noexec serve' "$UNITS/memfd-noexec.service"
	# Settings that would break it must stay out.
	with_output "$(cat "$UNITS/memfd-noexec.service")" refute_line --regexp \
		'^(ProtectKernelTunables=yes|ProtectProc=invisible|ProcSubset=pid|PrivatePIDs=yes|PrivateUsers=yes|DynamicUser=yes)'
}
