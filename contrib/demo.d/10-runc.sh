#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Demo part: runc 1.1.5 rebuilt with the loader and the policy.  It runs a
# busybox container rootful and rootless at every vm.memfd_noexec level
# (each in a child PID namespace) from the overlay, applies the
# memfd_noexec annotation rootful and, through the memfd-noexec service,
# rootless; then the memory per created container, and stock runc against
# it.  Called by contrib/demo.sh.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${BUILD_DIR:-$REPO/build}"
MN="$BUILD/memfd-noexec/memfd-noexec"
USER_NAME=cbtest
SOCK=/run/memfd-noexec.sock

echo "== runc 1.1.5 with the loader (contrib/runc) =="
"$REPO/contrib/runc/build.sh" >/dev/null
RUNC="$REPO/build/runc"
"$RUNC" --version | sed 's/^/  /'

W="$(mktemp -d /tmp/demo-runc.XXXXXX)"
SERVE_PID=
cleanup() {
	if [ -n "$SERVE_PID" ]; then
		kill -TERM "$SERVE_PID" 2>/dev/null || true
		wait "$SERVE_PID" 2>/dev/null || true
	fi
	rm -rf "$W"
}
trap cleanup EXIT
chmod 755 "$W"
install -m 0755 "$RUNC" "$W/runc"
install -m 0755 "$MN" "$W/memfd-noexec"
mkdir -p "$W/rootfs/bin" "$W/rootfs/proc" "$W/rootfs/dev" "$W/rootfs/sys" \
	"$W/spec" "$W/xdg" "$W/state" "$W/state-rootful" "$W/rootful" "$W/rootless"
cp /bin/busybox "$W/rootfs/bin/busybox"
for a in sh cat readlink; do ln -s busybox "$W/rootfs/bin/$a"; done
install -m 0755 "$BUILD/tests/helpers/memfdprobe-static" "$W/rootfs/bin/memfdprobe"
chown "$USER_NAME:" "$W/spec" "$W/xdg" "$W/state"
(cd "$W/spec" && setpriv --reuid="$USER_NAME" --regid="$USER_NAME" --init-groups -- \
	"$W/runc" spec --rootless && mv config.json rootless.json && "$W/runc" spec)

# config MODE ANNOTATION ARGS_JSON: the bundle $W/MODE for rootful or
# rootless, with the annotation (or none, "").
config() {
	local spec="$W/spec/config.json"
	[ "$1" = rootful ] || spec="$W/spec/rootless.json"
	jq --arg a "$2" --arg root "$W/rootfs" --argjson args "$3" '.root.path = $root |
		.root.readonly = true | .process.terminal = false |
		.process.args = $args |
		if $a == "" then . else .annotations = {"memfd_noexec": $a} end' \
		"$spec" >"$W/$1/config.json"
	chmod -R a+rX "$W/$1"
}

# in_ns LEVEL MODE CMD...: CMD in a child PID namespace at LEVEL (with its
# own /proc, for runc), as root or as the user.
in_ns() {
	local level="$1" mode="$2"
	shift 2
	local -a who=()
	[ "$mode" = rootful ] || who=(setpriv --reuid="$USER_NAME" --regid="$USER_NAME"
		--init-groups --inh-caps=-all -- env XDG_RUNTIME_DIR="$W/xdg")
	"$MN" run --level "$level" --proc -- "${who[@]}" "$@"
}

state_of() {
	[ "$1" = rootful ] && echo "$W/state-rootful" || echo "$W/state"
}

echo
echo "== runc --debug run: how runc init runs, rootful and rootless, levels 0-2 =="
for mode in rootful rootless; do
	config "$mode" "" '["/bin/sh", "-c", "echo exe=$(readlink /proc/1/exe)"]'
	for level in 0 1 2; do
		out=$(in_ns "$level" "$mode" "$W/runc" --debug --root "$(state_of "$mode")" \
			run -b "$W/$mode" "demo-$mode" 2>&1) || true
		marker=$(grep -oE 'msg="(nsexec\[[0-9]+\]: )?cloned_binary: using [a-z-]+' <<<"$out" |
			sed 's/.*cloned_binary: //' | head -1 || true)
		sealed=$(grep -c 'cloned_binary: running from sealed clone' <<<"$out" || true)
		printf '  %-8s level %s: %-14s runc init recognised its clone: %s   container: %s\n' \
			"$mode" "$level" "${marker:-?}" "$([ "$sealed" -gt 0 ] && echo yes || echo NO)" \
			"$(grep -o 'exe=.*' <<<"$out" || echo 'did not run')"
	done
done

PROBES='echo "inside: vm.memfd_noexec=$(cat /proc/sys/vm/memfd_noexec)"; echo "inside: $(memfdprobe exec)   (MFD_EXEC refused)"'
echo
echo "== the annotation memfd_noexec=2, rootful (host and runc's namespace at 0) =="
config rootful 2 "$(jq -cn --arg p "$PROBES" '["/bin/sh", "-c", $p]')"
in_ns 0 rootful "$W/runc" --root "$W/state-rootful" run -b "$W/rootful" demo-2 2>&1 | sed 's/^/  /'
echo "  host:   vm.memfd_noexec=$(cat /proc/sys/vm/memfd_noexec)"
echo "  a bad value is refused before anything is created:"
jq '.annotations = {"memfd_noexec": "3"}' "$W/rootful/config.json" >"$W/bad.json"
mv "$W/bad.json" "$W/rootful/config.json"
in_ns 0 rootful "$W/runc" --root "$W/state-rootful" run -b "$W/rootful" demo-bad 2>&1 |
	sed 's/^/    /' || true

echo
echo "== the same rootless: refused without the memfd-noexec service, set with it =="
config rootless 2 "$(jq -cn --arg p "$PROBES" '["/bin/sh", "-c", $p]')"
if [ -e "$SOCK" ]; then
	echo "  (this host already has $SOCK; the demo leaves it alone)"
else
	out=$(in_ns 0 rootless "$W/runc" --root "$W/state" run -b "$W/rootless" demo-rl 2>&1 || true)
	echo "    without: $(grep -o 'The memfd-noexec service, which could raise it, is not running at [^ ]* ([^)]*)' <<<"$out" | head -1)"
	"$W/memfd-noexec" serve 2>"$W/serve.log" &
	SERVE_PID=$!
	for _ in $(seq 100); do [ -S "$SOCK" ] && break; sleep 0.05; done
	echo "  with \`memfd-noexec serve\` on $SOCK:"
	in_ns 0 rootless "$W/runc" --root "$W/state" run -b "$W/rootless" demo-rl 2>&1 | sed 's/^/    /'
	sed 's/^/    service log: /' "$W/serve.log" | grep raise || true
	kill -TERM "$SERVE_PID" && wait "$SERVE_PID" || true
	SERVE_PID=
fi
echo "  host:   vm.memfd_noexec=$(cat /proc/sys/vm/memfd_noexec)"

echo
echo "== memory per created container: stock runc, ours (overlay), ours forced to copy =="
echo "   (tests/bench/memory.sh 10: 10 x runc create per arm, then deleted)"
BENCH_FAMILIES=runc "$REPO/tests/bench/memory.sh" 10 2>&1 | sed -n '/^rootful\|^rootless\|^  /p' | sed 's/^/  /'

echo
echo "== stock Debian runc against the patched one (contrib/runc/compare.sh) =="
"$REPO/contrib/runc/compare.sh" table | sed 's/^/  /'
