#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# The demo: builds the toolkit and shows the sealed W^X loader at every
# vm.memfd_noexec level and under emulated older kernels, then runc with it
# (contrib/demo.d).  Run as root on Debian 12.  vm.memfd_noexec is only
# ever written inside child PID namespaces (memfd-noexec run, unshare
# --pid --fork); the host's value is shown unchanged at the end.
set -euo pipefail

REPO="$(cd "$(dirname "$0")/.." && pwd)"
BUILD="${BUILD_DIR:-$REPO/build}"

if [ "$(id -u)" -ne 0 ]; then
	echo "demo: run as root (it creates PID namespaces and a test user)" >&2
	exit 1
fi

"$REPO/contrib/install-deps.sh" demo
cmake -S "$REPO" -B "$BUILD" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$BUILD" -j"$(nproc)" >/dev/null

SEALEXEC="$BUILD/sealexec/sealexec"
SELFCHECK="$BUILD/tests/helpers/selfcheck"
FAKEKERNEL="$BUILD/tests/fakekernel/fakekernel"
MN="$BUILD/memfd-noexec/memfd-noexec"
HOST_BEFORE="$(cat /proc/sys/vm/memfd_noexec 2>/dev/null || echo absent)"

seal_names() {
	local s=$(($1)) out=""
	local -a names=(SEAL SHRINK GROW WRITE FUTURE_WRITE EXEC)
	for i in "${!names[@]}"; do
		if ((s & (1 << i))); then out+="${out:+|}${names[$i]}"; fi
	done
	echo "${out:-none}"
}

# show LABEL CMD...: runs CMD (which ends in sealexec --debug selfcheck)
# and prints the method, seals and verdict on one line (an overlay has no
# seals: it is the binary itself, on a read-only mount).
show() {
	local label="$1" out method seals mode verdict what
	shift
	out="$("$@" 2>&1)" || true
	method="$(sed -n 's/^cloned_binary: using //p' <<<"$out" | tail -1)"
	seals="$(sed -n 's/.* seals=\(0x[0-9a-f]*\).*/\1/p' <<<"$out")"
	mode="$(sed -n 's/.* mode=\([0-7]*\).*/\1/p' <<<"$out")"
	verdict="$(sed -n 's/^selfcheck: \(ok\|FAILED\).*/\1/p' <<<"$out")"
	if [ "$method" = overlay ]; then
		what="(no copy: read-only overlay)"
	else
		what="seals=${seals:-?} ($(seal_names "${seals:-0}"))"
	fi
	printf '  %-31s method=%-11s %-54s mode=%-5s selfcheck=%s\n' \
		"$label" "${method:-?}" "$what" "${mode:-?}" "${verdict:-FAILED}"
	[ "$verdict" = ok ] || { echo "$out" | sed 's/^/    | /'; return 1; }
}

# at_level N CMD...: CMD as PID 1 of a new PID namespace at level N
# (memfd-noexec run: never the initial namespace).
at_level() {
	local level="$1"
	shift
	"$MN" run --level "$level" -- "$@"
}

echo "== The kernel here =="
"$SEALEXEC" --features | sed 's/^/  /'
echo
echo "== sealexec at each vm.memfd_noexec level (each in a child PID namespace) =="
for level in 0 1 2; do
	show "root, level $level" at_level "$level" "$SEALEXEC" --debug "$SELFCHECK"
	# Forced copies: the W^X memfd, or at 2 (no executable memfd) a file.
	copy=memfd
	[ "$level" != 2 ] || copy=tmpfile
	show "root, level $level, --method=$copy" at_level "$level" "$SEALEXEC" \
		--debug --method="$copy" "$SELFCHECK"
done
id -u cbtest >/dev/null 2>&1 || useradd --system --create-home \
	--home-dir /var/lib/cbtest --shell /bin/sh cbtest
for level in 0 1 2; do
	show "user cbtest, level $level" at_level "$level" setpriv --reuid=cbtest \
		--regid=cbtest --init-groups --inh-caps=-all -- \
		"$SEALEXEC" --debug "$SELFCHECK"
done
echo
echo "== Emulated older kernels (seccomp, tests/fakekernel) =="
show "before 5.2 (no mount API)" "$FAKEKERNEL" --kernel=nofsopen -- "$SEALEXEC" --debug "$SELFCHECK"
show "6.1 without overlayfs" "$FAKEKERNEL" --kernel=6.1,nooverlay -- "$SEALEXEC" --debug "$SELFCHECK"
show "before 3.17 (no memfd)" "$FAKEKERNEL" --kernel=nomemfd -- "$SEALEXEC" --debug "$SELFCHECK"
show "no memfd, no O_TMPFILE" "$FAKEKERNEL" --kernel=nomemfd,notmpfile -- "$SEALEXEC" --debug "$SELFCHECK"
show "6.3-6.5.2 bug at level 2" "$FAKEKERNEL" --kernel=6.3-level2,nofsopen -- "$SEALEXEC" --debug "$SELFCHECK"
echo
echo "== A CVE-2019-5736-style attack on /proc/<pid>/exe =="
victim="$(mktemp /tmp/demo-victim.XXXXXX)"
trap 'rm -f "$victim"' EXIT
install -m 0755 "$SELFCHECK" "$victim"
"$BUILD/tests/helpers/cbtest-attack" "$victim" -- "$SEALEXEC" "$victim" --hold |
	grep '^attack:' | sed 's/^/  /'

for part in "$REPO"/contrib/demo.d/*.sh; do
	[ -e "$part" ] || continue
	echo
	BUILD_DIR="$BUILD" bash "$part"
done

echo
HOST_AFTER="$(cat /proc/sys/vm/memfd_noexec 2>/dev/null || echo absent)"
echo "== Host vm.memfd_noexec: before $HOST_BEFORE, after $HOST_AFTER (never written) =="
[ "$HOST_BEFORE" = "$HOST_AFTER" ]
