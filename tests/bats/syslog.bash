# SPDX-License-Identifier: Apache-2.0
# with_dev_log OUT CMD...: runs CMD (a program, or a function of the
# caller's shell) in a private mount namespace whose
# /dev/log is a datagram socket held by a python3 listener, which writes
# each message it gets to OUT, one per line; CMD's output and exit status
# are its own.  /dev there is a tmpfs whose entries link to the real ones
# (bound at $OUT.dev, which is left empty afterwards: remove it with OUT),
# so that nothing of the host's /dev changes.  Load after `load helpers`.

DEV_LOG_PY='
import os, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("/dev/log")
os.chmod("/dev/log", 0o666)
with open(sys.argv[1], "ab", buffering=0) as out:
    out.write(b"")
    open(sys.argv[1] + ".ready", "w").close()
    while True:
        m = s.recv(65536)
        out.write(m.rstrip(b"\0\n").replace(b"\n", b"\\n") + b"\n")
'

with_dev_log() {
	local out="$1"
	shift
	mkdir -p "$out.dev"
	: >"$out"
	# shellcheck disable=SC2016 # expanded by the inner bash
	unshare --mount --propagation private -- bash -c '
		out="$1" py="$2"
		eval "$3" # the functions of the caller
		shift 3
		mount --rbind /dev "$out.dev" || exit 125
		mount -t tmpfs -o mode=0755 tmpfs /dev || exit 125
		for e in "$out.dev"/*; do ln -s "$e" "/dev/${e##*/}"; done
		/usr/bin/python3 -c "$py" "$out" &
		l=$!
		for _ in $(seq 100); do
			[ -e "$out.ready" ] && break
			sleep 0.05
		done
		rc=0
		"$@" || rc=$?
		sleep 0.2
		kill "$l"
		wait "$l" 2>/dev/null
		rm -f "$out.ready"
		exit "$rc"' bash "$out" "$DEV_LOG_PY" "$(declare -f)" "$@"
}
