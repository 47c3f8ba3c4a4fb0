#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# crun rebuilt by contrib/crun/build.sh: 1.8.1 from Debian 12's source
# (build/crun), or with CRUN_REBUILD=1.21 crun 1.21 from Debian 13's orig
# tarball (build/crun-1.21/crun); CRUN= overrides the binary.  Both get
# the same tests (tests/run-all.sh runs the suite once for each):
# memfd-toolkit's loader in place of crun's
# cloned_binary.c, and the memfd_noexec annotation (or linux.sysctl
# "vm.memfd_noexec") applied to the container's PID namespace by
# nsexec_apply_memfd_noexec() before the container's process runs, with
# the runc rules: created vs joined, CAP_SYS_ADMIN, rootless through the
# memfd-noexec service, fail closed, bad values refused before anything is
# created.
#
# Every crun runs inside `crun_ns N` (crun.bash: a child PID namespace at
# N without the hybrid layout's cgroup2 mount), never in the initial
# namespace.  Each test checks that nothing is left (state, cgroups) and
# teardown that the host's value did not move.  The last test runs the
# rebuilt crun as rootless podman 4.3.1's default runtime.

bats_require_minimum_version 1.5.0

load helpers
load podman
load crun

# Which rebuild: its version, as --version prints it, and where build.sh
# puts it.
CRUN_REBUILD="${CRUN_REBUILD:-1.8.1}"
case "$CRUN_REBUILD" in
1.8.1) CRUN="${CRUN:-$REPO_ROOT/build/crun}" ;;
1.21) CRUN="${CRUN:-$REPO_ROOT/build/crun-1.21/crun}" ;;
*) CRUN="CRUN_REBUILD=$CRUN_REBUILD is not 1.8.1 or 1.21" ;;
esac
U_CRUN="${STAGED_USER_BIN:+$STAGED_USER_BIN/crun}"
# The rebuilt crun's markers: the loader's method, the level it set.
# shellcheck disable=SC2034 # crun.bash's as reads it
CRUN_ENV=(CRUN_MEMFD_TOOLKIT_DEBUG=1)

setup_file() {
	[ -x "$CRUN" ] || return 0
	crun_stage || return 0
	install -m 0755 "$CRUN" "$USER_BIN/crun"
	if command -v podman >/dev/null && [ -e /proc/sys/vm/memfd_noexec ]; then
		podman_stage
		write_logged_runtime "$USER_BIN/crun-logged" "$USER_BIN/crun" \
			"$PODMAN_T/rootless/crun.log" CRUN_MEMFD_TOOLKIT_DEBUG=1
		# The same crun at its packaged path, bound there by rpodman.
		write_logged_runtime "$USER_BIN/crun-packaged-logged" /usr/bin/crun \
			"$PODMAN_T/rootless/crun-packaged.log" CRUN_MEMFD_TOOLKIT_DEBUG=1
		write_crun_containers_conf "$PODMAN_T/rootless/containers.conf" \
			"$USER_BIN/crun-logged"
		chown "$TEST_USER:" "$PODMAN_T/rootless/containers.conf"
	fi
}

teardown_file() {
	podman_unstage
	unstage_user_binaries
}

setup() {
	[ -x "$CRUN" ] || missing "the rebuilt crun $CRUN_REBUILD at $CRUN (contrib/crun/build.sh $CRUN_REBUILD)" || return 1
	crun_setup || return 1
	[ -x "$U_CRUN" ] || {
		echo "setup_file did not stage $CRUN" >&2
		return 1
	}
}

teardown() {
	crun_teardown
}

# The shim's lines about the level (crun_loader_shim.c), as EREs.
set_msg() { printf 'memfd-toolkit: vm\\.memfd_noexec: set %s \\(was %s\\)' "$1" "$2"; }
already_msg() { printf 'memfd-toolkit: vm\\.memfd_noexec: already %s \\(was %s\\)' "$1" "$1"; }
kept_msg() { printf 'memfd-toolkit: vm\\.memfd_noexec: kept stricter inherited %s \\(asked for %s\\)' "$1" "$2"; }
joined_msg() { printf 'memfd-toolkit: vm\\.memfd_noexec: joined a namespace already at %s \\(asked for %s\\)' "$1" "$2"; }

# assert_level_matrix MODE: for host levels 0, 1 and 2 and annotations
# none, "0", "1" and "2", a `crun run` of the probes in MODE: the
# container reads the stricter of the two, the shim says which of set,
# already, kept it did, the loader ran from the overlay, nothing is left.
assert_level_matrix() {
	local host ann want
	as "$1" "$U_CRUN"
	for host in 0 1 2; do
		for ann in none 0 1 2; do
			echo "row: $1, host level $host, annotation $ann" >&2 # shown if it fails
			if [ "$ann" = none ]; then
				bundle b .
			else
				bundle b ".annotations.memfd_noexec = \"$ann\""
			fi
			run crun_ns "$host" "$T/runc" run -b "$T/b" "$ID"
			assert_success
			assert_marker overlay
			[ "$1" = rootful ] || assert_rootless_map
			want=$host
			if [ "$ann" = none ]; then
				refute_output --partial 'vm.memfd_noexec:'
			elif [ "$ann" -gt "$host" ]; then
				want=$ann
				assert_line --regexp "^$(set_msg "$ann" "$host")\$"
			elif [ "$ann" -eq "$host" ]; then
				assert_line --regexp "^$(already_msg "$ann")\$"
			else
				assert_line --regexp "^$(kept_msg "$host" "$ann")\$"
			fi
			assert_memfd_level "$want"
			assert_nothing_left
		done
	done
}

# ---- what the binary is --------------------------------------------------------

@test "crun --version names the loader; memfd-noexec check: the rebuilt crun honours the annotation, stock crun ignores it" {
	run "$U_CRUN" --version
	assert_success
	assert_line --index 0 "crun version $CRUN_REBUILD"
	assert_line --regexp '^loader: sealed W\^X \(memfd-toolkit [0-9]+\.[0-9]+\.[0-9]+.*\)$'
	run "$MEMFD_NOEXEC" check --runtime "$U_CRUN"
	assert_success
	assert_output --partial 'annotation "2": ran at level 2 (MFD_EXEC: EACCES)'
	assert_output --partial 'verdict: honours'
	run "$MEMFD_NOEXEC" check --runtime "$STOCK_CRUN"
	assert_failure 1
	assert_output --partial 'annotation "2": ran at level 0 (MFD_EXEC: ok)'
	assert_output --partial 'verdict: ignores'
}

@test "contrib/crun/build.sh refuses a version it has no series for, before it installs or fetches anything" {
	local v
	for v in 1.28 1.8 "1.21 "; do
		run "$REPO_ROOT/contrib/crun/build.sh" "$v"
		assert_failure 1
		assert_output "build.sh: no patch series for crun '$v'; allowed: 1.8.1 (Debian 12, the default) or 1.21 (Debian 13). Each version has its own series in contrib/crun/VERSION/patches/, written against that source: a series applied to another version's source would fail or, worse, apply in the wrong places"
	done
	run "$REPO_ROOT/contrib/crun/build.sh" 1.21 1.8.1
	assert_failure 1
	assert_output 'build.sh: too many arguments (1.21 1.8.1); usage: build.sh [1.8.1|1.21]'
	# Each version's series is there, and only those.
	[ "$(ls "$REPO_ROOT"/contrib/crun/1.8.1/patches/*.patch | wc -l)" -eq 6 ]
	[ "$(ls "$REPO_ROOT"/contrib/crun/1.21/patches/*.patch | wc -l)" -eq 6 ]
}

@test "a container created by the rebuilt crun holds no copy of crun: its init runs from the read-only overlay, rootful and rootless" {
	local mode level
	for mode in rootful rootless; do
		as "$mode" "$U_CRUN"
		bundle b . sleep 60
		for level in 0 2; do
			echo "row: $mode, level $level" >&2 # shown if it fails
			run crun_ns "$level" sh -c "$CREATED" b "$U_SEALEXEC"
			assert_success
			refute_line --regexp '^exe=/memfd:'
			assert_line fstype=overlayfs
			# root cannot prove another process's detached overlay on
			# 6.15+ and says so (fail-closed; crun.bash, CREATED); the
			# loader's unit and sealexec tests hold the proof.
			assert_line --regexp '^/proc/[0-9]+/exe: (not a )?sealed clone$'
			assert_line --regexp '^write=.*Read-only file system$'
			assert_nothing_left
		done
	done
}

# ---- the level, rootful ----------------------------------------------------------

@test "rootful: host levels 0, 1, 2 x annotations none, 0, 1, 2: the container reads the stricter" {
	assert_level_matrix rootful
}

@test "linux.sysctl vm.memfd_noexec works like the annotation, in both spellings; disagreeing with the annotation fails" {
	as rootful "$U_CRUN"
	bundle b '.linux.sysctl["vm.memfd_noexec"] = "2"'
	run crun_ns 0 "$T/runc" run -b "$T/b" "$ID"
	assert_success
	assert_memfd_level 2
	assert_line --regexp "^$(set_msg 2 0)\$"
	bundle b '.linux.sysctl["vm/memfd_noexec"] = "1" | .annotations.memfd_noexec = "1"'
	run crun_ns 0 "$T/runc" run -b "$T/b" "$ID"
	assert_success
	assert_memfd_level 1
	assert_line --regexp "^$(set_msg 1 0)\$"
	# crun's own sysctl code never sees the key: other keys still work.
	bundle b '.linux.sysctl["vm.memfd_noexec"] = "2" | .linux.sysctl["kernel.domainname"] = "mt.example"' \
		/bin/sh -c "cat /proc/sys/kernel/domainname; $PROBE"
	run crun_ns 0 "$T/runc" run -b "$T/b" "$ID"
	assert_success
	assert_line mt.example
	assert_memfd_level 2
	bundle b '.linux.sysctl["vm.memfd_noexec"] = "1" | .annotations.memfd_noexec = "2"'
	run crun_ns 0 "$T/runc" run -b "$T/b" "$ID"
	assert_failure 1
	assert_output --partial 'annotations["memfd_noexec"] = "2" and linux.sysctl["vm.memfd_noexec"] = "1" ask for different vm.memfd_noexec levels'
	refute_output --partial 'memfdprobe:'
	assert_nothing_left
}

# Invalid requests: a JSON value for annotations["memfd_noexec"] (in
# $T/value.json), then what the refusal must quote.  A value that is no
# JSON string never reaches the shim: crun's own parser refuses it with
# its own message, naming the key.
BAD_VALUES=(
	'"3"'		'Refusing annotations["memfd_noexec"] = "3" in config.json: allowed values are "0", "1" or "2"'
	'"-1"'		'annotations["memfd_noexec"] = "-1" in config.json'
	'""'		'annotations["memfd_noexec"] = "" in config.json'
	'" 2"'		'annotations["memfd_noexec"] = " 2" in config.json'
	'"2\n"'		'annotations["memfd_noexec"] = "2\n" in config.json'
	'2'		"Invalid value with type 'string' for key 'memfd_noexec'"
	'dup'		'duplicate key "memfd_noexec" in the object at annotations'
)

@test "bad values, rootful and rootless: crun run fails before anything is created, quoting the value" {
	local mode i value want
	for mode in rootful rootless; do
		as "$mode" "$U_CRUN"
		for ((i = 0; i < ${#BAD_VALUES[@]}; i += 2)); do
			value="${BAD_VALUES[i]}" want="${BAD_VALUES[i + 1]}"
			case "$value" in
			dup) echo '"2"' ;;
			*) printf '%s' "$value" ;;
			esac >"$T/value.json"
			bundle b '.annotations.memfd_noexec = $v'
			if [ "$value" = dup ]; then
				jq -c . "$T/b/config.json" |
					sed 's/"memfd_noexec":"2"/&,"memfd_noexec":"0"/' >"$T/b/c" &&
					mv "$T/b/c" "$T/b/config.json"
				grep -qF '"memfd_noexec":"2","memfd_noexec":"0"' "$T/b/config.json"
			fi
			echo "row: $mode $value" >&2 # shown if the row fails
			run crun_ns 0 "$T/runc" run -b "$T/b" "$ID"
			assert_failure 1
			assert_output --partial "$want"
			refute_output --partial 'memfdprobe:'
			assert_nothing_left
		done
	done
	rm "$T/value.json"
	bundle b '.linux.sysctl["vm.memfd_noexec"] = "3"'
	run crun_ns 0 "$T/runc" run -b "$T/b" "$ID"
	assert_failure 1
	assert_output --partial 'linux.sysctl["vm.memfd_noexec"] = "3" in config.json'
	assert_nothing_left
}

@test "a PID namespace the container only joins is never changed: refused below the level, accepted at it" {
	as rootful "$U_CRUN"
	# No PID namespace of its own: it would join crun's (crun_ns's, at 0).
	bundle b '.annotations.memfd_noexec = "2" | .linux.namespaces |= map(select(.type != "pid"))'
	run crun_ns 0 "$T/runc" run -b "$T/b" "$ID"
	assert_failure 1
	assert_output --partial 'it joins the PID namespace of the caller (the runtime), pid:['
	assert_output --partial 'which is at level 0. A namespace that the container only joins is never changed'
	refute_output --partial 'memfdprobe:'
	assert_nothing_left
	# Already at the level: accepted, with the notice.
	run crun_ns 2 "$T/runc" run -b "$T/b" "$ID"
	assert_success
	assert_memfd_level 2
	assert_line --regexp "^$(joined_msg 2 2)\$"
	assert_nothing_left
	# Another process's namespace, by path: refused, and left at 0.
	bundle b '.annotations.memfd_noexec = "2"'
	# shellcheck disable=SC2016 # expanded by the inner sh
	run crun_ns 0 sh -c '
		unshare --pid --fork --kill-child sleep 1000 &
		until s=$(pgrep -P $! sleep); do sleep 0.05; done
		jq --arg p "/proc/$s/ns/pid" ".linux.namespaces |= map(if .type == \"pid\" then .path = \$p else . end)" \
			"$T/b/config.json" >"$T/b/c" && mv "$T/b/c" "$T/b/config.json"
		"$T/runc" run -b "$T/b" "$ID" </dev/null || echo "run=$?"
		echo "other=$(nsenter --target "$s" --pid cat /proc/sys/vm/memfd_noexec)"
		kill $!'
	assert_line run=1
	assert_line other=0
	assert_output --partial 'it joins the existing PID namespace, pid:['
	refute_output --partial 'memfdprobe:'
	assert_nothing_left
}

# crun 1.8.1 acts on every entry of linux.namespaces and accepts a type
# twice: with [{"type":"pid"}, {"type":"pid","path":P}] it joined P, and a
# shim that read only the first entry raised P's namespace.  Every
# ordering of two pid entries (created, joined) is refused before the
# container runs (1.8.1 by the shim, 1.21 by crun itself, which refuses
# duplicates), and the namespace at P stays at 0.
@test "duplicate pid entries in linux.namespaces, in every order, are refused and never raise the joined namespace" {
	as rootful "$U_CRUN"
	local order
	for order in 'new joined' 'joined new' 'joined joined' 'new new'; do
		echo "row: pid entries $order" >&2 # shown if it fails
		# With a user namespace, as in the finding: without one crun
		# 1.8.1 fails to join by itself (setns EINVAL) before the shim.
		bundle b '.annotations.memfd_noexec = "2" |
			.linux.namespaces += [{"type": "user"}] |
			.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] |
			.linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'
		# shellcheck disable=SC2016 # expanded by the inner sh
		run crun_ns 0 sh -c '
			unshare --pid --fork --kill-child sleep 1000 &
			until s=$(pgrep -P $! sleep); do sleep 0.05; done
			entries=
			for e in $1; do
				case $e in
				new) entries="$entries{\"type\": \"pid\"}," ;;
				joined) entries="$entries{\"type\": \"pid\", \"path\": \"/proc/$s/ns/pid\"}," ;;
				esac
			done
			jq --argjson pids "[${entries%,}]" ".linux.namespaces |= (map(select(.type != \"pid\")) | \$pids + .)" \
				"$T/b/config.json" >"$T/b/c" && mv "$T/b/c" "$T/b/config.json"
			jq -c "[.linux.namespaces[].type]" "$T/b/config.json"
			"$T/runc" run -b "$T/b" "$ID" </dev/null || echo "run=$?"
			echo "other=$(nsenter --target "$s" --pid cat /proc/sys/vm/memfd_noexec)"
			kill $!' sh "$order"
		assert_line --regexp '^\["pid","pid",("[a-z]+",?)+\]$'
		assert_line run=1
		assert_line other=0
		assert_output --regexp 'linux\.namespaces lists the type "pid" twice \(entries 0 and 1\)|duplicate namespace type: `pid`'
		refute_output --partial 'memfdprobe:'
		assert_nothing_left
	done
}

@test "a container that keeps CAP_SYS_ADMIN without a user namespace is refused, in every spelling; with one it is accepted" {
	as rootful "$U_CRUN"
	local keep
	for keep in '.process.capabilities.bounding += ["CAP_SYS_ADMIN"]' \
		'del(.process.capabilities)' 'del(.process.capabilities.bounding)' \
		'.process.capabilities.bounding += ["cap_sys_admin"]' \
		'.process.capabilities.bounding += ["21"]'; do
		echo "row: $keep" >&2 # shown if it fails
		bundle b ".annotations.memfd_noexec = \"2\" | $keep"
		run crun_ns 0 "$T/runc" run -b "$T/b" "$ID"
		assert_failure 1
		assert_output --partial 'keeps CAP_SYS_ADMIN in its bounding set and has no user namespace'
		assert_output --partial 'Drop CAP_SYS_ADMIN'
		refute_output --partial 'memfdprobe:'
		assert_nothing_left
	done
	# With a user namespace that maps root to 100000, it is accepted.
	bundle b '.annotations.memfd_noexec = "2" |
		.process.capabilities.bounding += ["CAP_SYS_ADMIN"] |
		.linux.namespaces += [{"type": "user"}] |
		.linux.uidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}] |
		.linux.gidMappings = [{"containerID": 0, "hostID": 100000, "size": 65536}]'
	run crun_ns 0 "$T/runc" run -b "$T/b" "$ID"
	assert_success
	assert_line --regexp '^ +0 +100000 +65536$'
	assert_memfd_level 2
	assert_nothing_left
}

# Stock crun chowns every standard stream that is not a terminal to a
# user-namespaced container's root, devices included (crun.bats shows
# it); patch 0006 chowns only regular files, pipes and sockets.  The
# device is a copy of /dev/null (crun.bash, ON_DEV_NULL_COPY), and
# teardown checks that the host's nodes kept owner and mode.
@test "a rootful container in a user namespace with its streams on /dev/null leaves the device alone; a file and a pipe still go to its root" {
	as rootful "$U_CRUN"
	bundle b "$USERNS_100000" /bin/sh -c "$CHMOD_DEV_NULL"
	run crun_ns 0 sh -c "$ON_DEV_NULL_COPY" b
	assert_success
	assert_line status=0
	# not chowned, so the container's chmod of it failed
	assert_line 'node=0:0 666 1:3'
	assert_nothing_left
	# What the container may own is still handed to its root (as stock
	# crun does): a regular file as stdin and stderr, a pipe as stdout
	# (its owner read by the reader once crun has exited).
	: >"$T/in"
	bundle b "$USERNS_100000" /bin/sh -c "$IN_USERNS_100000"
	run crun_ns 0 sh -c '
		{ "$T/runc" run -b "$T/b" "$ID" <"$T/in" 2>"$T/err"; echo "status=$?" >"$T/status"; } |
			{ cat; stat -L -c "pipe=%u:%g" /proc/self/fd/0; }
		cat "$T/status"
		stat -c "in=%u:%g" "$T/in"
		stat -c "err=%u:%g" "$T/err"'
	assert_success
	assert_line status=0
	assert_line pipe=100000:100000
	assert_line in=100000:100000
	assert_line err=100000:100000
	assert_nothing_left
}

# The rule above, at create only, let crun exec add CAP_SYS_ADMIN later
# (issue 41, item 3): such a process could remount /proc/sys and lower the
# level to its parent's.  crun exec now refuses a process that keeps it
# (--cap, or a --process whose bounding set has it) in a container that
# asked for a level and has no user namespace of its own, unless the
# parent already enforces the level; a plain exec still works.
@test "crun exec that adds CAP_SYS_ADMIN to a container that asked for a level without a user namespace is refused; a plain exec works" {
	as rootful "$U_CRUN"
	bundle b '.annotations.memfd_noexec = "2"' /bin/sleep 60
	jq -n '{terminal: false, cwd: "/", user: {uid: 0, gid: 0}, args: ["/bin/memfdprobe", "level"],
		capabilities: {bounding: ["CAP_SYS_ADMIN"], effective: ["CAP_SYS_ADMIN"], permitted: ["CAP_SYS_ADMIN"]}}' >"$T/process.json"
	chmod a+r "$T/process.json"
	local level out
	for level in 0 2; do
		echo "row: parent level $level" >&2 # shown if it fails
		# shellcheck disable=SC2016 # expanded by the inner sh
		run crun_ns "$level" sh -c '
			"$T/runc" create -b "$T/b" "$ID" </dev/null >/dev/null 2>"$T/create.log" ||
				{ cat "$T/create.log"; exit 1; }
			"$T/runc" start "$ID"
			echo ---- cap
			"$T/runc" exec --cap CAP_SYS_ADMIN "$ID" /bin/memfdprobe level </dev/null 2>&1 || echo "exec=$?"
			echo ---- process
			"$T/runc" exec --process "$T/process.json" "$ID" </dev/null 2>&1 || echo "exec=$?"
			echo ---- plain
			"$T/runc" exec "$ID" /bin/memfdprobe level </dev/null 2>&1 || echo "exec=$?"
			"$T/runc" delete -f "$ID"'
		assert_success
		local cap="${output#*---- cap}" process="${output#*---- process}" plain="${output#*---- plain}"
		cap="${cap%%---- process*}" process="${process%%---- plain*}"
		with_output "$plain" assert_line 'memfdprobe: level=2'
		if [ "$level" -eq 0 ]; then
			for out in "$cap" "$process"; do
				with_output "$out" assert_line --regexp '^exec=[1-9]'
				with_output "$out" assert_output --partial 'Refusing to add a process that keeps CAP_SYS_ADMIN in its bounding set to the container of process'
				with_output "$out" assert_output --partial 'lower the level again, down to its parent'"'"'s 0'
				with_output "$out" refute_output --partial 'memfdprobe:'
			done
		else
			# The parent enforces 2: nothing to lower.
			with_output "$cap" assert_line 'memfdprobe: level=2'
			with_output "$process" assert_line 'memfdprobe: level=2'
		fi
		assert_nothing_left
	done
}

# hugetlbfs ignores F_SEAL_EXEC, so level 2 alone would leave MFD_HUGETLB
# memfds executable; the rebuilt crun adds a seccomp rule at 2 only, to
# the container's process and to every crun exec.
@test "annotation 2: memfd_create(MFD_HUGETLB) fails with EPERM, in crun exec too; at 1 it is allowed" {
	as rootful "$U_CRUN"
	bundle two '.annotations.memfd_noexec = "2"' \
		/bin/sh -c 'memfdprobe hugetlb; memfdprobe none; exec sleep 60'
	bundle one '.annotations.memfd_noexec = "1"' /bin/memfdprobe hugetlb
	# shellcheck disable=SC2016 # expanded by the inner sh
	run crun_ns 0 sh -ec '
		"$T/runc" create -b "$T/two" "$ID" </dev/null >"$T/init.out" 2>"$T/create.log"
		"$T/runc" start "$ID"
		i=0
		until grep -q "flags=none" "$T/init.out"; do
			i=$((i + 1))
			[ $i -lt 100 ] || { echo "the container did not report"; cat "$T/create.log"; exit 1; }
			sleep 0.1
		done
		echo ---- exec
		"$T/runc" exec "$ID" /bin/memfdprobe hugetlb 2>&1
		"$T/runc" delete -f "$ID"
		echo ---- level 1
		"$T/runc" run -b "$T/one" "$ID-1" </dev/null 2>&1'
	assert_success
	with_output "$(cat "$T/init.out")" assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	with_output "$(cat "$T/init.out")" assert_line --regexp '^memfdprobe: flags=none result=ok mode=0666 '
	local exec_out="${output#*---- exec}"
	with_output "${exec_out%%---- level 1*}" assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	with_output "${output#*---- level 1}" assert_line --regexp '^memfdprobe: flags=hugetlb result=ok '
	assert_nothing_left
	ID="$ID-1" assert_nothing_left
}

# The rule follows the level the container really runs at, read in its
# own PID namespace, not the one it asked for: a stricter level inherited
# from the parent namespace, a namespace joined at 2, or 2 with no request
# at all all get it.
@test "the MFD_HUGETLB rule follows the real level: inherited 2, joined at 2, or 2 without a request give EPERM" {
	as rootful "$U_CRUN"
	bundle one '.annotations.memfd_noexec = "1"' /bin/memfdprobe hugetlb
	echo "row: asks for 1 in a new namespace below one at 2" >&2
	run crun_ns 2 "$T/runc" run -b "$T/one" "$ID"
	assert_success
	assert_line --regexp "^$(kept_msg 2 1)\$"
	assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	assert_nothing_left
	echo "row: asks for 1 and joins a namespace at 2" >&2
	bundle joined '.annotations.memfd_noexec = "1" | .linux.namespaces |= map(select(.type != "pid"))' \
		/bin/memfdprobe hugetlb
	run crun_ns 2 "$T/runc" run -b "$T/joined" "$ID"
	assert_success
	assert_line --regexp "^$(joined_msg 2 1)\$"
	assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	assert_nothing_left
	echo "row: no request, in a namespace at 2" >&2
	bundle none . /bin/memfdprobe hugetlb
	run crun_ns 2 "$T/runc" run -b "$T/none" "$ID"
	assert_success
	assert_line 'memfdprobe: flags=hugetlb result=EPERM'
	assert_nothing_left
	echo "row: control, asks for 1 at 1" >&2
	run crun_ns 1 "$T/runc" run -b "$T/one" "$ID"
	assert_success
	assert_line --regexp '^memfdprobe: flags=hugetlb result=ok '
	assert_nothing_left
}

# A config that bind-mounts another procfs file holding 0 (laptop_mode)
# over /proc/sys/vm/memfd_noexec spoofs the container's own view of the
# level, and a rule decided from that view was left out while the
# container ran at an inherited 2 (issue "One narrow runtime interface",
# case c).  The level that decides comes through an fd crun opened on its
# own procfs before the container's namespaces and mounts: the init and a
# crun exec both keep the rule, rootful and rootless.
@test "a config bind mount over /proc/sys/vm/memfd_noexec does not remove the MFD_HUGETLB rule at an inherited 2, in crun exec neither" {
	local mode
	for mode in rootful rootless; do
		echo "row: $mode" >&2 # shown if it fails
		as "$mode" "$U_CRUN"
		bundle b '.mounts += [{"destination": "/proc/sys/vm/memfd_noexec", "type": "bind",
			"source": "/proc/sys/vm/laptop_mode", "options": ["bind", "ro"]}]' \
			/bin/sh -c 'echo "spoofed=$(cat /proc/sys/vm/memfd_noexec)"; memfdprobe hugetlb; exec sleep 60'
		# shellcheck disable=SC2016 # expanded by the inner sh
		run crun_ns 2 sh -ec '
			"$T/runc" create -b "$T/b" "$ID" </dev/null >"$T/init.out" 2>"$T/create.log" ||
				{ cat "$T/create.log"; exit 1; }
			"$T/runc" start "$ID"
			i=0
			until grep -q "flags=hugetlb" "$T/init.out"; do
				i=$((i + 1))
				[ $i -lt 100 ] || { echo "the container did not report"; cat "$T/create.log"; exit 1; }
				sleep 0.1
			done
			echo ---- exec
			"$T/runc" exec "$ID" /bin/sh -c "echo exec-spoofed=\$(cat /proc/sys/vm/memfd_noexec); memfdprobe hugetlb" 2>&1
			"$T/runc" delete -f "$ID"'
		assert_success
		# The spoof is in place: the container's own file reads 0.
		with_output "$(cat "$T/init.out")" assert_line spoofed=0
		with_output "$(cat "$T/init.out")" assert_line 'memfdprobe: flags=hugetlb result=EPERM'
		assert_line exec-spoofed=0
		local exec_out="${output#*---- exec}"
		with_output "$exec_out" assert_line 'memfdprobe: flags=hugetlb result=EPERM'
		assert_nothing_left
	done
}

# restore would recreate the processes from CRIU's images and nothing would
# set the level, so patch 0003 refuses it.  Debian builds crun without
# CRIU, so there restore is no command at all; a build with CRIU must show
# the refusal.
@test "crun restore: refused with a request where crun has CRIU; no command at all in Debian's build" {
	as rootful "$U_CRUN"
	bundle b '.annotations.memfd_noexec = "2"'
	run crun_ns 0 "$T/runc" restore --image-path "$T/no-image" -b "$T/b" "$ID" </dev/null
	assert_failure
	if "$T/runc" --version | grep -q '+CRIU'; then
		assert_output --partial 'refusing to restore: the container asks for vm.memfd_noexec=2'
	else
		assert_output --partial 'unknown command restore'
	fi
	assert_nothing_left
}

@test "a kernel without vm.memfd_noexec (fakekernel) fails closed, nothing left" {
	requires fakekernel || return 1
	as rootful "$U_CRUN" "$U_FAKEKERNEL" --memfd-noexec=hide --
	bundle b '.annotations.memfd_noexec = "2"'
	run crun_ns 0 "$T/runc" run -b "$T/b" "$ID"
	assert_failure 1
	assert_output --partial 'this kernel lacks /proc/sys/vm/memfd_noexec (it needs Linux 6.3 or later'
	refute_output --partial 'memfdprobe:'
	assert_nothing_left
}

# ---- the level, rootless ---------------------------------------------------------

@test "rootless without the service: a stricter parent is inherited with the notice; raising fails closed, naming the service" {
	no_default_service || return 1
	as rootless "$U_CRUN"
	bundle b '.annotations.memfd_noexec = "1"'
	run crun_ns 2 "$T/runc" run -b "$T/b" "$ID"
	assert_success
	assert_rootless_map
	assert_memfd_level 2
	assert_line --regexp "^$(kept_msg 2 1)\$"
	assert_nothing_left
	bundle b '.annotations.memfd_noexec = "2"'
	run crun_ns 0 "$T/runc" run -b "$T/b" "$ID"
	assert_failure 1
	assert_output --partial 'Failed to set vm.memfd_noexec=2 in the PID namespace of process '
	assert_output --partial 'so rootless runtimes cannot set it; a rootless container inherits the level of the PID namespace it starts in, which is 0 here.'
	assert_output --partial 'The memfd-noexec service, which could raise it, is not running at /run/memfd-noexec.sock'
	refute_output --partial 'memfdprobe:'
	assert_nothing_left
}

# A rootless crun cannot open the PID namespace of its container's process
# (it is not dumpable), so that process sends its own, opened through
# /proc/self/ns/pid in whatever mount namespace it is in by then: one the
# config joins, which another container may have shaped.  Here that mount
# namespace has a tmpfs on /proc whose self/ns/pid is another namespace
# already at 2, so a request for 2 would have been taken as met while the
# container ran at 0.  The library takes the namespace only where the
# kernel's view of the process (its pidfd's NSpid, NS_GET_PID_IN_PIDNS,
# NS_GET_PARENT) proves it to be the process's own.
@test "rootless: a PID namespace the container's process sends is refused unless the kernel says it is that process's own" {
	as rootless "$U_CRUN"
	bundle b '.annotations.memfd_noexec = "2" | del(.linux.uidMappings, .linux.gidMappings)'
	touch "$T/forged"
	# shellcheck disable=SC2016 # expanded by the inner sh
	run crun_ns 0 sh -c '
		u=$1
		# Another PID namespace, the user'"'"'s own, which root set to 2.
		setpriv --reuid="$u" --regid="$u" --clear-groups unshare --user --map-root-user --pid --fork --kill-child sleep 1000 &
		until s=$(pgrep -P $! sleep); do sleep 0.05; done
		nsenter --target "$s" --pid sh -c "echo 2 >/proc/sys/vm/memfd_noexec" || exit 1
		# The user'"'"'s own user and mount namespace, where /proc/self/ns/pid
		# is that namespace (opened before, as a user namespace of its
		# own may not open another'"'"'s).
		setpriv --reuid="$u" --regid="$u" --clear-groups sh -c "exec 9</proc/$s/ns/pid &&
			exec unshare --user --map-root-user --mount sh -c \"
			mount --bind /proc/self/fd/9 $T/forged && exec 9<&- &&
			mount -t tmpfs forged /proc && mkdir -p /proc/self/ns && touch /proc/self/ns/pid &&
			mount --bind $T/forged /proc/self/ns/pid && exec sleep 1000\"" &
		h=$!
		until [ "$(cat /proc/$h/comm 2>/dev/null)" = sleep ]; do
			kill -0 $h 2>/dev/null || { echo "the forging helper failed"; exit 1; }
			sleep 0.05
		done
		jq --arg u "/proc/$h/ns/user" --arg m "/proc/$h/ns/mnt" \
			".linux.namespaces |= map(if .type == \"user\" then .path = \$u elif .type == \"mount\" then .path = \$m else . end)" \
			"$T/b/config.json" >"$T/b/c" && mv "$T/b/c" "$T/b/config.json" && chmod a+r "$T/b/config.json"
		"$T/runc" run -b "$T/b" "$ID" </dev/null || echo "run=$?"
		echo "forged=$(nsenter --target "$s" --pid cat /proc/sys/vm/memfd_noexec)"
		kill $h' sh "$(id -u "$TEST_USER")"
	assert_line run=1
	assert_line forged=2
	assert_output --partial 'the PID namespace passed for it could not be proved to be the one the kernel says it is in (it is another namespace)'
	refute_output --partial 'memfdprobe:'
	assert_nothing_left
}

@test "rootless + memfd-noexec service: host levels 0, 1, 2 x annotations none, 0, 1, 2: the container reads the stricter" {
	start_default_service "$T/serve.log" || return 1
	assert_level_matrix rootless
	# One request per raise (annotation above the level): 0->1, 0->2, 1->2.
	local uid n
	uid=$(id -u "$TEST_USER")
	n=$(grep -cE "^memfd-noexec serve: uid $uid pid [0-9]+: raise [12] pid:\[[0-9]+\]: ok" "$T/serve.log" || true)
	[ "$n" -eq 3 ] || fail "expected 3 raises in the service's log, which has: $(cat "$T/serve.log")"
}

# ---- rootless podman with the rebuilt crun as its default runtime --------------

@test "rootless podman, the rebuilt crun as the default runtime + service: annotation 2 at level 0 reads 2; none keeps 0" {
	podman_requires podman-rootless || return 1
	grep -qxF 'runtime = "crun"' "$PODMAN_T/rootless/containers.conf" ||
		fail "the rootless containers.conf does not make crun the default: $(cat "$PODMAN_T/rootless/containers.conf")"
	start_default_service "$T/serve.log" || return 1
	# No hook: the runtime itself applies the annotation.
	run rpodman 0 run --rm --network none --annotation "$(annotation 2)" "$PODMAN_IMAGE" \
		sh -c "cat /proc/self/uid_map; $PROBES"
	assert_success
	assert_memfd_level 2
	with_output "$(cat "$T/serve.log")" assert_line --regexp \
		"^memfd-noexec serve: uid $(id -u "$TEST_USER") pid [0-9]+: raise 2 pid:\[[0-9]+\]: ok"
	# crun under /tmp: root's file shows as the overflow uid in podman's
	# user namespace, as any unmapped user's would, so a sealed copy,
	# with the reason; the overlay is for crun at its packaged path (below).
	with_output "$(cat "$PODMAN_T/rootless/crun.log")" assert_output --partial 'the overflow uid'
	with_output "$(cat "$PODMAN_T/rootless/crun.log")" assert_marker memfd-exec
	with_output "$(cat "$PODMAN_T/rootless/crun.log")" refute_line 'cloned_binary: using overlay'
	with_output "$(cat "$PODMAN_T/rootless/crun.log")" assert_line --regexp "^$(set_msg 2 0)\$"
	run rpodman 0 run --rm --network none "$PODMAN_IMAGE" sh -c "$PROBES"
	assert_success
	assert_memfd_level 0
	run rpodman inherit info --format '{{.Host.OCIRuntime.Path}}'
	assert_success
	assert_output "$USER_BIN/crun-logged"
	assert_rootless_clean
}

# Where global root is unmapped (rootless podman's user namespace, or
# unshare -U -r) root's crun shows as the overflow uid, as any unmapped
# user's file would: only crun at the path its package installs it at,
# /usr/bin/crun, is taken as root's, and runs from the overlay; elsewhere
# crun runs from a sealed copy, and says why.  /usr/bin/crun is a copy of
# the rebuilt crun on root's tmpfs over /usr/bin, in a mount namespace of
# the test's own (with setpriv, unshare and busybox beside it, since the
# tmpfs hides the rest).
@test "where global root is unmapped, the rebuilt crun at its packaged path runs from the overlay; elsewhere from a sealed copy, with the reason" {
	as rootful "$U_CRUN"
	local s uid
	uid=$(id -u "$TEST_USER")
	s=$(mktemp -d /tmp/crun-packaged.XXXXXX)
	chmod 0755 "$s"
	cp "$USER_BIN/crun" /usr/bin/setpriv /usr/bin/unshare /bin/busybox "$s/"
	# shellcheck disable=SC2016 # expanded by the inner sh
	run unshare -m --propagation private "$s/busybox" sh -c '
		s=$1 uid=$2
		"$s/busybox" mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /usr/bin || exit 125
		for f in crun setpriv unshare busybox; do "$s/busybox" cp "$s/$f" "/usr/bin/$f" || exit 125; done
		as_user() { CRUN_MEMFD_TOOLKIT_DEBUG=1 /usr/bin/setpriv --reuid="$uid" --regid="$uid" --clear-groups --inh-caps=-all /usr/bin/unshare -U -r "$@"; }
		echo ---- packaged
		as_user /usr/bin/crun --version 2>&1
		echo ---- elsewhere
		as_user "$s/crun" --version 2>&1' sh "$s" "$uid"
	rm -rf "$s"
	assert_success
	local packaged="${output#*---- packaged}" elsewhere="${output#*---- elsewhere}"
	packaged="${packaged%%---- elsewhere*}"
	with_output "$packaged" assert_line 'cloned_binary: using overlay'
	with_output "$packaged" refute_output --partial 'the overflow uid'
	with_output "$packaged" assert_line "crun version $CRUN_REBUILD"
	with_output "$elsewhere" assert_output --partial 'shows as owned by uid'
	with_output "$elsewhere" assert_output --partial 'the overflow uid'
	with_output "$elsewhere" refute_line 'cloned_binary: using overlay'
	with_output "$elsewhere" assert_line --regexp '^cloned_binary: using (memfd-exec|tmpfile)$'
}
