#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
#
# Memory: N containers created (`runc create`, `crun create`, not
# started: each one's init waits on its exec fifo) per arm, rootful and
# rootless, for the two families of lib.sh, one after the other, each with
# its own table: runc (stock, ours, ours forced to a memfd, ours without a
# clone), then crun (stock, crun-sealed, ours rebuilt).
# BENCH_FAMILIES=runc (or crun) runs one family only.  A benchmark: it
# prints numbers and exits 0 unless it cannot run at all.
#
#   memory.sh [N]               (default 100; contrib/runc/compare.sh memory)
#   BENCH_LEVEL=2 BENCH_FAMILIES=crun memory.sh [N]
#                               the same in PID namespaces at 2 (crun,
#                               runc13; lib.sh)
#
# Per arm, one after the other, in a child PID namespace with its own
# /proc at vm.memfd_noexec 0, or BENCH_LEVEL (set there, never in the
# initial namespace; for crun also without the hybrid layout's cgroup2
# mount).  Above 0, an arm whose first create fails is shown as failing,
# with the last line of its error (stock crun run by a user, whose memfd
# copy cannot execute); any other failure ends the benchmark:
#   Shmem   /proc/meminfo's Shmem after creating the N containers minus
#           before, divided by N (a memfd copy is Shmem; the machine is
#           shared, so a few hundred kB of noise either way is possible)
#   Slab    the same for /proc/meminfo's Slab: kernel objects (mounts,
#           superblocks, namespaces, inodes), even noisier
#   Cached  the same for /proc/meminfo's Cached, the page cache (it
#           includes Shmem; a copy in a file on disk shows here only)
#   Pss     each container init's Pss (/proc/PID/smaps_rollup): median and
#           mean.  The init is `runc init`, or for crun the crun process
#           that `crun create` forked into the container's namespaces
#   copies  distinct inodes among the inits' /proc/PID/exe that are memfds
#           or unlinked files (a copy of the binary); "binary" counts the
#           inits whose exe is the staged binary's own inode (lib.sh's
#           bench_binary: for crun-sealed the crun behind the wrapper),
#           directly (a bind mount, as stock crun makes rootful, or no
#           clone) or through an overlayfs
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

cached_kb() {
	awk '/^Cached:/ { print $2 }' /proc/meminfo
}

# ---- one mode, inside the namespace (as root) -----------------------------
if [ "${1:-}" = __mem ]; then
	# __mem FAMILY MODE N WORK OUT
	family=$2 mode=$3 n=$4 WORK=$5 out=$6
	bench_family "$family"
	for arm in "${BENCH_ARMS[@]}"; do
		bin=$(stat -c '%d:%i' "$(bench_binary "$arm")")
		before=$(shmem_kb) slab_before=$(slab_kb) cached_before=$(cached_kb)
		for ((i = 0; i < n; i++)); do
			bench_runtime "$mode" "$arm" create -b "$WORK/bundle-$mode" "m-$arm-$i" \
				</dev/null >/dev/null 2>"$WORK/err" || {
				if ((i == 0)) && [ "$(bench_level)" != 0 ]; then
					echo "fails $arm $(grep . "$WORK/err" | tail -1)" >>"$out"
					continue 2
				fi
				echo "$family-$arm ($mode) create failed after $i containers:" >&2
				cat "$WORK/err" >&2
				exit 1
			}
		done
		after=$(shmem_kb) slab_after=$(slab_kb) cached_after=$(cached_kb)
		echo "arm $arm $before $after $bin $slab_before $slab_after $cached_before $cached_after" >>"$out"
		# Each arm lists its own: at 1 or 2 stock crun may not run.
		bench_runtime "$mode" "$arm" list -f json |
			jq -r --arg p "m-$arm-" '.[] | select(.id | startswith($p)) |
				"\(.pid) \(.status)"' >"$WORK/pids"
		while read -r pid status; do
			[ "$status" = created ] || {
				echo "$family-$arm ($mode): a container is $status, not created" >&2
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
			bench_runtime "$mode" "$arm" delete -f "m-$arm-$i" >/dev/null 2>"$WORK/err" || {
				echo "$family-$arm ($mode) delete -f m-$arm-$i failed:" >&2
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
host_before=$(cat /proc/sys/vm/memfd_noexec)
start=$SECONDS

for family in "${BENCH_FAMILIES[@]}"; do
	bench_family "$family"
	bench_stage /bin/sleep 3600
	[ "$family" = "${BENCH_FAMILIES[0]}" ] || echo
	echo "== $family: $n created (not started) busybox sleep containers per arm; arms one after the other"
	bench_versions
	for mode in rootful rootless; do
		declare -A method=()
		for arm in "${BENCH_ARMS[@]}"; do
			method[$arm]=$(bench_method "$mode" "$arm")
		done
		out=$WORK/mem-$mode
		: >"$out"
		bench_in_pidns bash "$HERE/memory.sh" __mem "$family" "$mode" "$n" "$WORK" "$out" ||
			bench_die "the $family $mode run failed"
		left=$(bench_leftovers "$mode")
		[ -z "$left" ] || bench_die "$family containers left over in $mode mode: $left"
		echo
		args=()
		for arm in "${BENCH_ARMS[@]}"; do
			args+=("$arm=${method[$arm]}")
		done
		python3 "$HERE/stats.py" memory --family="$family" "$mode" "$out" "${args[@]}"
		unset method
	done
	case $family in
	runc | runc13) echo "goal: ours 0 copies, Shmem and Pss <= stock's" ;;
	crun) echo "goal: ours and sealed 0 copies, Shmem and Pss <= stock's" ;;
	esac
	bench_cleanup
done
[ "$(cat /proc/sys/vm/memfd_noexec)" = "$host_before" ] ||
	bench_die "the host's vm.memfd_noexec changed (was $host_before)"
echo
echo "took $((SECONDS - start)) s (after the builds)"
