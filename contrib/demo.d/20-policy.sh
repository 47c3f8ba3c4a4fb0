#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# Demo part: the per-container vm.memfd_noexec policy.  memfd-noexec runs
# a command as PID 1 of a new PID namespace at level 2; inside, an
# executable memfd is refused while the host stays at its own level.
# Called by contrib/demo.sh.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/../.." && pwd)"
BUILD="${BUILD_DIR:-$REPO/build}"
MN="$BUILD/memfd-noexec/memfd-noexec"
PROBE="$BUILD/tests/helpers/memfdprobe"

echo "== memfd-noexec status (the host) =="
"$MN" status | sed 's/^/  /'
echo
echo "== memfd-noexec run --level 2: a new PID namespace at 2 =="
# shellcheck disable=SC2016 # expanded inside the namespace
"$MN" run --level 2 -- sh -c '
	echo "  inside: vm.memfd_noexec=$(cat /proc/sys/vm/memfd_noexec)"
	echo "  inside: $("$0" exec)   (MFD_EXEC is refused)"
	echo "  inside: $("$0" none)   (no flag: 0666, sealed F_SEAL_EXEC)"' "$PROBE"
echo "  host:   vm.memfd_noexec=$(cat /proc/sys/vm/memfd_noexec)   $("$PROBE" exec)"
echo
echo "== nested: a parent namespace at 1 wins over a request for 0 =="
unshare --pid --fork --kill-child -- sh -c \
	'echo 1 > /proc/sys/vm/memfd_noexec && exec "$0" run --level 0 -- cat /proc/sys/vm/memfd_noexec' "$MN" 2>&1 |
	sed 's/^/  /'
