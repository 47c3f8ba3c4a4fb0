#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# contrib/containerd's recipes under the containerd of each newer Debian
# release, in a root of that suite (contrib/lib.sh): trixie's containerd
# 1.7 with config.toml (version 2), sid's 2.x with config-v3.toml
# (version 3).  Each containerd is started in the root (its own PID and
# mount namespaces, /run a tmpfs there) with the recipe merged into a
# private config: the CRI plugin loads, and the handler, as containerd
# decoded it, lets the pod's memfd_noexec through to /usr/sbin/runc.
# containerd comes from the suite's archive (apt inside the root).
#
# Not covered here: containers under these containerds (containerd.bats
# runs them under Debian 12's containerd 1.6 on the host).

bats_require_minimum_version 1.5.0

load helpers

setup() {
	requires root cmd:python3 || return 1
	PROG=containerd-suites.bats
	# shellcheck source=contrib/lib.sh
	. "$REPO_ROOT/contrib/lib.sh"
	T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/containerd-suites-bats.XXXXXX")
}

teardown() {
	[ -z "${ROOT:-}" ] || suite_remove "$ROOT"
	[ -z "${T:-}" ] || rm -rf "$T"
}

# load_recipe SUITE RECIPE PLUGIN: containerd of SUITE, in a fresh root,
# started with RECIPE (a file of contrib/containerd/) below a private
# base; prints "version ...", then CRI's line of `ctr plugins ls`, then
# `config dump` after a "---- dump" line.
load_recipe() {
	local suite="$1" recipe="$2"
	ROOT=$REPO_ROOT/build/roots/$suite-containerd
	suite_unpack "$suite" "$ROOT"
	{
		echo "version = $(sed -n 's/^version = //p' "$REPO_ROOT/contrib/containerd/$recipe")"
		cat <<-'EOF'
			root = "/var/lib/mt-containerd"
			state = "/run/mt-containerd"
			[grpc]
			  address = "/run/mt-containerd/containerd.sock"
			[ttrpc]
			  address = ""
		EOF
		grep -v '^version' "$REPO_ROOT/contrib/containerd/$recipe"
	} >"$ROOT/config.toml"
	run suite_run "$ROOT" 300 env DEBIAN_FRONTEND=noninteractive sh -ec '
		rm -f /var/lib/man-db/auto-update
		apt-get install -y -qq --no-install-recommends containerd >/tmp/apt.log 2>&1 ||
			{ tail -5 /tmp/apt.log; exit 1; }
		echo "version $(containerd --version)"
		containerd --config /config.toml >/tmp/containerd.log 2>&1 &
		pid=$!
		i=0
		until ctr -a /run/mt-containerd/containerd.sock version >/dev/null 2>&1; do
			i=$((i + 1))
			[ "$i" -lt 100 ] || { echo "containerd did not answer"; tail -20 /tmp/containerd.log; exit 1; }
			sleep 0.2
		done
		ctr -a /run/mt-containerd/containerd.sock plugins ls | grep -E "\<cri\>"
		kill "$pid"
		wait "$pid" || :
		echo "---- dump"
		containerd --config /config.toml config dump'
	echo "$output" | sed -n '1,/^---- dump$/p'
	assert_success
}

# check_handler PLUGIN: the dump after "---- dump" in $output has the
# handler memfd-noexec under PLUGIN, with the pod annotation and our runc.
check_handler() {
	sed '1,/^---- dump$/d' <<<"$output" >"$T/dump.toml"
	run python3 -c '
import sys, tomllib
cfg = tomllib.load(open(sys.argv[1], "rb"))
rts = cfg["plugins"][sys.argv[2]]["containerd"]["runtimes"]
rt = rts["memfd-noexec"]
assert rt["runtime_type"] == "io.containerd.runc.v2", rt
assert rt["pod_annotations"] == ["memfd_noexec"], rt
assert not rt.get("container_annotations"), rt
assert rt["options"]["BinaryName"] == "/usr/sbin/runc", rt
assert "runc" in rts, rts.keys()
print("handler ok")' "$T/dump.toml" "$1"
	assert_success
	assert_output "handler ok"
}

@test "trixie's containerd 1.7 loads contrib/containerd/config.toml: CRI ok, the handler with pod_annotations and /usr/sbin/runc" {
	load_recipe trixie config.toml
	assert_line --regexp '^version containerd .* 1\.7\.'
	assert_line --regexp '^io\.containerd\.grpc\.v1 +cri +.* ok *$'
	check_handler io.containerd.grpc.v1.cri
}

@test "sid's containerd 2.x loads contrib/containerd/config-v3.toml: CRI ok, the handler with pod_annotations and /usr/sbin/runc" {
	load_recipe sid config-v3.toml
	assert_line --regexp '^version containerd .* 2\.'
	assert_line --regexp '^io\.containerd\.grpc\.v1 +cri +.* ok *$'
	check_handler io.containerd.cri.v1.runtime
}
