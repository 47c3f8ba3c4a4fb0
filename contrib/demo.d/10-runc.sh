#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Demo part: runc 1.1.5 rebuilt with the sealed loader runs a busybox
# container rootless at vm.memfd_noexec=2 (in a child PID namespace), and
# stock runc is compared at every level.  Called by contrib/demo.sh.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/../.." && pwd)"
USER_NAME=cbtest

echo "== runc 1.1.5 with the sealed loader (contrib/runc) =="
"$REPO/contrib/runc/build.sh" >/dev/null
RUNC="$REPO/build/runc"
"$RUNC" --version | sed 's/^/  /'

W="$(mktemp -d /tmp/demo-runc.XXXXXX)"
trap 'rm -rf "$W"' EXIT
chmod 755 "$W"
install -m 0755 "$RUNC" "$W/runc"
mkdir -p "$W/rootfs/bin" "$W/rootfs/proc" "$W/rootfs/dev" "$W/rootfs/sys" "$W/spec" "$W/xdg" "$W/state" "$W/state-rootful"
cp /bin/busybox "$W/rootfs/bin/busybox"
for a in sh cat readlink; do ln -s busybox "$W/rootfs/bin/$a"; done
chown "$USER_NAME:" "$W/spec" "$W/xdg" "$W/state"
(cd "$W/spec" && setpriv --reuid="$USER_NAME" --regid="$USER_NAME" --init-groups -- "$W/runc" spec --rootless)
jq --arg root "$W/rootfs" '.root.path = $root | .root.readonly = true |
	.process.terminal = false |
	.process.args = ["/bin/sh", "-c", "echo \"hello from a rootless container, uid $(cat /proc/self/uid_map | { read a b c; echo $b; }) on the host\""]' \
	"$W/spec/config.json" >"$W/config.json"
chmod -R a+rX "$W/rootfs" "$W/config.json"

echo "  rootless runc run, in a child PID namespace at vm.memfd_noexec=2:"
unshare --pid --fork --kill-child --mount-proc -- sh -c '
	echo 2 > /proc/sys/vm/memfd_noexec || exit 125
	exec setpriv --reuid="$1" --regid="$1" --init-groups --inh-caps=-all -- \
		env XDG_RUNTIME_DIR="$2/xdg" "$2/runc" --debug --root "$2/state" run -b "$2" demo' \
	sh "$USER_NAME" "$W" 2>&1 |
	grep -E 'hello from|cloned_binary: using|level=(error|fatal)' | sed 's/^/    /'

echo
echo "== a container with the annotation memfd_noexec=2 (patched runc, rootful) =="
install -m 0755 "${BUILD_DIR:-$REPO/build}/tests/helpers/memfdprobe-static" "$W/rootfs/bin/memfdprobe"
mkdir -p "$W/spec-rootful" && (cd "$W/spec-rootful" && "$W/runc" spec && mv config.json "$W/rootful.json")
mkdir -p "$W/annotated"
jq --arg root "$W/rootfs" '.root.path = $root | .root.readonly = true |
	.process.terminal = false | .annotations = {"memfd_noexec": "2"} |
	.process.args = ["/bin/sh", "-c", "echo \"inside: vm.memfd_noexec=$(cat /proc/sys/vm/memfd_noexec)\"; echo \"inside: $(memfdprobe exec)   (MFD_EXEC refused)\"; echo \"inside: $(memfdprobe none)\""]' \
	"$W/rootful.json" >"$W/annotated/config.json"
ln -s ../rootfs "$W/annotated/rootfs" 2>/dev/null || true
"$W/runc" --root "$W/state-rootful" run -b "$W/annotated" demo-annotated 2>&1 | sed 's/^/  /'
echo "  host:   vm.memfd_noexec=$(cat /proc/sys/vm/memfd_noexec)"
echo "  a bad value is refused before anything is created:"
jq '.annotations = {"memfd_noexec": "3"}' "$W/annotated/config.json" >"$W/annotated/bad.json"
mv "$W/annotated/bad.json" "$W/annotated/config.json"
"$W/runc" --root "$W/state-rootful" run -b "$W/annotated" demo-bad 2>&1 | sed 's/^/    /' || true

echo
echo "== stock Debian runc against the patched one (contrib/runc/compare.sh) =="
"$REPO/contrib/runc/compare.sh" table | sed 's/^/  /'
