#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Memory: N containers created (`runc create`, not started: each one's
# runc init waits on its exec fifo) per arm (lib.sh: stock, ours, ours
# forced to a memfd, ours without a clone), rootful and rootless.  A
# benchmark: it prints numbers and exits 0 unless it cannot run at all.
#
#   memory.sh [N]               (default 100; contrib/runc/compare.sh memory)
#
# Per arm, one after the other, in a child PID namespace with its own
# /proc at vm.memfd_noexec 0 (set there, never in the initial namespace):
#   Shmem   /proc/meminfo's Shmem after creating the N containers minus
#           before, divided by N (a memfd copy is Shmem; the machine is
#           shared, so a few hundred kB of noise either way is possible)
#   Slab    the same for /proc/meminfo's Slab: kernel objects (mounts,
#           superblocks, namespaces, inodes), even noisier
#   Pss     each runc init's Pss (/proc/PID/smaps_rollup): median and mean
#   copies  distinct inodes among the runc inits' /proc/PID/exe that are
#           memfds or unlinked files (a copy of the binary); "binary"
#           counts the inits whose exe is the staged binary's own inode,
#           directly (bind mount, no clone) or through an overlayfs
# Every container is deleted (delete -f) before the next arm starts, and
# the script checks that none is left.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/bench/lib.sh
. "$HERE/lib.sh"

shmem_kb() {
	awk '/^Shmem:/ { print $2 }' /proc/meminfo
}

slab_kb() {
	awk '/^Slab:/ { print $2 }' /proc/meminfo
}

# ---- one mode, inside the namespace (as root) -----------------------------
if [ "${1:-}" = __mem ]; then
	# __mem MODE N WORK OUT
	mode=$2 n=$3 WORK=$4 out=$5
	for arm in "${BENCH_ARMS[@]}"; do
		bin=$(stat -c '%d:%i' "$WORK/bin/runc-$arm")
		before=$(shmem_kb) slab_before=$(slab_kb)
		for ((i = 0; i < n; i++)); do
			bench_runc "$mode" "$arm" create -b "$WORK/bundle-$mode" "m-$arm-$i" \
				</dev/null >/dev/null 2>"$WORK/err" || {
				echo "runc-$arm ($mode) create failed after $i containers:" >&2
				cat "$WORK/err" >&2
				exit 1
			}
		done
		after=$(shmem_kb) slab_after=$(slab_kb)
		echo "arm $arm $before $after $bin $slab_before $slab_after" >>"$out"
		bench_runc "$mode" stock list -f json |
			jq -r --arg p "m-$arm-" '.[] | select(.id | startswith($p)) |
				"\(.pid) \(.status)"' >"$WORK/pids"
		while read -r pid status; do
			[ "$status" = created ] || {
				echo "runc-$arm ($mode): a container is $status, not created" >&2
				exit 1
			}
			pss=$(awk '/^Pss:/ { print $2 }' "/proc/$pid/smaps_rollup")
			rss=$(awk '/^Rss:/ { print $2 }' "/proc/$pid/smaps_rollup")
			link=$(readlink "/proc/$pid/exe")
			read -r ino nlink dev < <(stat -L -c '%i %h %d' "/proc/$pid/exe")
			fstype=$(stat -L -f -c %T "/proc/$pid/exe")
			kind='file'
			case "$link" in
			/memfd:*) kind=memfd ;;
			*) [ "$nlink" -ne 0 ] || kind=unlinked ;;
			esac
			# The binary itself: its own inode (a bind mount, no
			# clone), or that inode through an overlayfs, which
			# shows its own st_dev.
			if [ "$dev:$ino" = "$bin" ]; then
				kind=binary
			elif [ "$fstype" = overlayfs ] && [ "$ino" = "${bin#*:}" ]; then
				kind=binary-via-overlay
			fi
			devino=$dev:$ino
			echo "init $arm $pss $rss $devino $kind ${link// /_}" >>"$out"
		done <"$WORK/pids"
		for ((i = 0; i < n; i++)); do
			bench_runc "$mode" "$arm" delete -f "m-$arm-$i" >/dev/null 2>"$WORK/err" || {
				echo "runc-$arm ($mode) delete -f m-$arm-$i failed:" >&2
				cat "$WORK/err" >&2
				exit 1
			}
		done
		echo "deleted $arm $(shmem_kb)" >>"$out"
	done
	exit 0
fi

n=${1:-100}
[[ "$n" =~ ^[1-9][0-9]*$ ]] || bench_die "N must be a positive number, not '$n'"

bench_check_host
bench_build
trap bench_cleanup EXIT
bench_stage /bin/sleep 3600
host_before=$(cat /proc/sys/vm/memfd_noexec)
start=$SECONDS

echo "$n created (not started) busybox sleep containers per arm; arms one after the other"
bench_versions
for mode in rootful rootless; do
	declare -A method=()
	for arm in "${BENCH_ARMS[@]}"; do
		method[$arm]=$(bench_method "$mode" "$arm")
	done
	out=$WORK/mem-$mode
	: >"$out"
	bench_in_pidns bash "$HERE/memory.sh" __mem "$mode" "$n" "$WORK" "$out" ||
		bench_die "the $mode run failed"
	left=$(bench_leftovers "$mode")
	[ -z "$left" ] || bench_die "containers left over in $mode mode: $left"
	echo
	args=()
	for arm in "${BENCH_ARMS[@]}"; do
		args+=("$arm=${method[$arm]}")
	done
	python3 "$HERE/stats.py" memory "$mode" "$out" "${args[@]}"
	unset method
done
[ "$(cat /proc/sys/vm/memfd_noexec)" = "$host_before" ] ||
	bench_die "the host's vm.memfd_noexec changed (was $host_before)"
echo
echo "goal: ours 0 copies, Shmem and Pss <= stock's"
echo "took $((SECONDS - start)) s (after the builds)"
