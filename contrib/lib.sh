# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Sourced by contrib's build scripts (bash, set -euo pipefail), never run.
#
#   PROG=build-deb.sh          # optional: the name messages start with
#   . "$(dirname "$0")/../lib.sh"
#
# Gives:
#   die MSG...                 print "PROG: MSG" on stderr, exit 1
#   HERE, TOP                  the calling script's folder; the repository
#   install_deps SET...        contrib/install-deps.sh SET, or die
# and the Debian suite roots (trixie and sid are built and tested in roots
# of their own, since their binaries need a newer glibc than the host's):
#   suite_check SUITE          die unless SUITE is bookworm, trixie or sid
#   suite_mirror               the URI of the host's bookworm deb entry
#   suite_host_entry           "URI KEYRING" of that entry
#   suite_tar SUITE            the path of SUITE's cached root tar, made
#                              with mmdebstrap when absent (below)
#   suite_unpack SUITE DIR     a fresh root of SUITE in DIR (under build/)
#   suite_run DIR SECONDS CMD...  CMD inside the root DIR, bounded (below)
#   suite_remove DIR           DIR removed, refused while anything is
#                              mounted below it
# and, for contrib/runc:
#   runc_series_install SERIES TREE  the library folders and a series'
#                              C and Go files copied into a runc tree

PROG=${PROG:-$(basename "$0")}
# shellcheck disable=SC2034 # for the sourcing script
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

die() {
	echo "$PROG: $*" >&2
	exit 1
}

install_deps() {
	local set
	for set in "$@"; do
		"$TOP/contrib/install-deps.sh" "$set" ||
			die "cannot install what $PROG needs (contrib/install-deps.sh $set)"
	done
}

# ---- Debian suite roots -------------------------------------------------------

SUITES="bookworm trixie sid"

suite_check() {
	case " $SUITES " in
	*" $1 "*) ;;
	*) die "unknown suite '$1'; allowed: ${SUITES// /, }" ;;
	esac
}

# What every suite root holds besides the buildd variant (build-essential,
# apt): the Build-Depends of SUITE_BUILD_DEP (runc: build-deb.sh), what our
# loader adds to them, lintian, and what the bats suites run inside
# (bats and its libraries, busybox-static for the container rootfs, uidmap,
# jq, procps for pgrep, util-linux, and podman's default seccomp profile,
# which runc-memfd-noexec.bats extends); then what one suite's root alone
# holds (suite_include).  A change here is a new root: the tar's name
# carries a hash of its recipe, package list included.
SUITE_INCLUDE=(lintian quilt pkgconf libcap-dev libseccomp-dev libyajl-dev
	bats bats-support bats-assert busybox-static uidmap jq procps util-linux
	golang-github-containers-common)
SUITE_BUILD_DEP=(runc)

# suite_include SUITE: the packages of SUITE's root, comma-separated:
# SUITE_INCLUDE, and for trixie Debian 13's own crun 1.21, which crun.bats
# runs in that root (stock, and behind crun-sealed), with strace to show
# why stock crun fails there.  Only trixie's recipe, so only its hash,
# changes with them.
suite_include() {
	local -a p=("${SUITE_INCLUDE[@]}")
	case $1 in
	trixie) p+=(crun strace) ;;
	esac
	(
		IFS=,
		echo "${p[*]}"
	)
}

# suite_mirror: the URI of the host's bookworm entry; the suites' roots
# take their packages from the same archive.
suite_mirror() {
	local entry
	entry=$(suite_host_entry)
	[ -n "$entry" ] || die "no bookworm deb entry in /etc/apt/sources.list{,.d} to take the URI of the suites' archive from"
	echo "${entry%% *}"
}

# suite_host_entry: "URI KEYRING" of the machine's first deb entry for
# bookworm (KEYRING "-" when it names none): deb822 stanzas first, then
# one-line lists.
suite_host_entry() {
	local line
	line=$(awk 'BEGIN { RS = ""; FS = "\n" }
		{
			t = ""; u = ""; s = ""; k = "-"; off = 0
			for (i = 1; i <= NF; i++) {
				if ($i ~ /^Types:/) t = " " substr($i, 7) " "
				else if ($i ~ /^URIs:/) { split(substr($i, 6), a, " "); u = a[1] }
				else if ($i ~ /^Suites:/) s = " " substr($i, 8) " "
				else if ($i ~ /^Signed-By:/) { k = substr($i, 11); gsub(/ /, "", k) }
				else if ($i ~ /^Enabled: *no/) off = 1
			}
			if (!off && t ~ /[ \t]deb[ \t]/ && s ~ /[ \t]bookworm[ \t]/ && u != "") { print u, k; exit }
		}' /etc/apt/sources.list.d/*.sources 2>/dev/null || true)
	if [ -z "$line" ]; then
		line=$(sed -n 's/^deb[ \t]\+\(\[[^]]*\][ \t]\+\)\?\([^ \t]*\)[ \t]\+bookworm[ \t].*/\2 -/p' \
			/etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null | head -n1)
	fi
	echo "$line"
}

# suite_tar SUITE: prints the path of build/roots/SUITE-HASH.tar, SUITE's
# root as mmdebstrap makes it (variant buildd, the packages above, runc's
# Build-Depends installed, apt's lists kept), made only when absent.  A
# root is written as a temporary tar (--format=tar named explicitly: the
# name does not end in .tar) and renamed when mmdebstrap succeeded, so a
# half-written tar is never taken for a root.  Older tars of SUITE go.
suite_tar() {
	local suite="$1" mirror key out tmp log include
	suite_check "$suite"
	[ "$suite" != bookworm ] || die "bookworm builds on the host; no root needed"
	mirror=$(suite_mirror) || exit 1
	include=$(suite_include "$suite")
	local -a cmd=(mmdebstrap --quiet --format=tar --variant=buildd
		--aptopt='Acquire::Check-Valid-Until "false"'
		--skip=cleanup/apt/lists
		--include="$include"
		--customize-hook="chroot \"\$1\" env DEBIAN_FRONTEND=noninteractive apt-get build-dep -y -qq --no-install-recommends ${SUITE_BUILD_DEP[*]}"
		"$suite" TARGET "deb $mirror $suite main" "deb-src $mirror $suite main")
	key=$(printf '%s\n' "${cmd[@]}" | sha256sum | cut -c1-12)
	out=$TOP/build/roots/$suite-$key.tar
	if [ -f "$out" ]; then
		echo "$out"
		return 0
	fi
	command -v mmdebstrap >/dev/null || die "mmdebstrap is missing (contrib/install-deps.sh deb)"
	[ "$(id -u)" -eq 0 ] || die "making the $suite root needs root (mmdebstrap, then mounts to enter it)"
	mkdir -p "$TOP/build/roots"
	tmp=$out.part.$$ log=$TOP/build/roots/$suite.log
	cmd[${#cmd[@]} - 3]=$tmp
	echo "$PROG: making the $suite root (mmdebstrap, about 2 minutes): $out" >&2
	if ! "${cmd[@]}" >"$log" 2>&1; then
		rm -f "$tmp"
		tail -20 "$log" >&2
		die "mmdebstrap failed to make the $suite root (log: $log)"
	fi
	rm -f "$TOP/build/roots/$suite"-*.tar
	mv "$tmp" "$out"
	echo "$out"
}

# suite_unpack SUITE DIR: DIR (under build/) replaced by a fresh copy of
# SUITE's root, with the host's resolv.conf for apt.
suite_unpack() {
	local suite="$1" dir="$2" tar
	tar=$(suite_tar "$suite") || exit 1
	suite_remove "$dir"
	mkdir -p "$dir"
	tar -C "$dir" --numeric-owner --xattrs --xattrs-include='*' -xpf "$tar" ||
		die "cannot unpack $tar into $dir"
	rm -f "$dir/etc/resolv.conf"
	cp /etc/resolv.conf "$dir/etc/resolv.conf"
}

# suite_mounted DIR: the mount points at or below DIR in this mount
# namespace, one a line.
suite_mounted() {
	local d
	d=$(realpath -m "$1")
	awk -v d="$d" '$5 == d || index($5, d "/") == 1 { print $5 }' /proc/self/mountinfo
}

# suite_remove DIR: DIR removed, if it lies under build/ or under what
# build/roots resolves to (a machine may share one cache of roots among
# its clones through a symlink there).
suite_remove() {
	local dir="$1" left real roots
	[ -e "$dir" ] || return 0
	real=$(realpath -m "$dir")
	roots=$(realpath -m "$TOP/build/roots")
	case "$real" in
	"$TOP"/build/* | "$roots"/*) ;;
	*) die "refusing to remove $dir: not under $TOP/build or $roots" ;;
	esac
	left=$(suite_mounted "$dir")
	[ -z "$left" ] || die "refusing to remove $dir: mounted below it: $left"
	rm -rf --one-file-system "$dir"
}

# suite_run DIR SECONDS CMD...: CMD as root inside the root DIR, in a new
# mount namespace (private propagation) and a new PID namespace.  Not
# chroot(2): the kernel refuses unshare(CLONE_NEWUSER) to a chrooted
# process, and rootless runc needs it; so the root is bound on itself,
# gets its /proc (of the new PID namespace), /sys and /dev (recursive
# binds), tmpfs on /tmp and /run, and becomes / by pivot_root.  The
# hybrid host's /sys/fs/cgroup/unified is unmounted first, in the new
# namespace only.  SUITE_BINDS (space-separated absolute paths) are
# bound read-only at the same paths inside; SUITE_BINDS_RW read-write
# (each on its own, without what is mounted below it).
#
# Nothing outlives it: the mounts live in the namespace, and the PID
# namespace's init is a shell whose parent-death signal is SIGKILL; after
# SECONDS, timeout kills unshare, so the whole namespace dies and CMD
# fails with 137 instead of hanging CI.  Returns CMD's status.
suite_run() {
	local dir="$1" secs="$2"
	shift 2
	[ -d "$dir/usr/bin" ] || die "$dir is no suite root (suite_unpack makes one)"
	dir=$(realpath "$dir")
	# The caller's TMPDIR names a host directory, absent in the root
	# (which has a tmpfs /tmp): dpkg-deb and make fail on it there.
	env -u TMPDIR timeout --signal=KILL "$secs" \
		unshare --mount --propagation private --pid --fork --kill-child -- \
		bash -c "$SUITE_ENTER" suite-enter "$dir" "${SUITE_BINDS:-}" "${SUITE_BINDS_RW:-}" "$@"
}

# The namespace's init (bash -c): $1 the root, $2 and $3 the binds, then
# the command, run as a child so that the init stays root and stays the
# namespace's reaper.
# shellcheck disable=SC2016 # expanded by the inner bash
SUITE_ENTER='set -eu
root=$1 ro=$2 rw=$3
shift 3
if mountpoint -q /sys/fs/cgroup/unified; then umount /sys/fs/cgroup/unified; fi
mount --bind "$root" "$root"
mount -t proc proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --rbind /dev "$root/dev"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/tmp"
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs "$root/run"
for b in $rw $ro; do
	mkdir -p "$root$b"
	mount --bind "$b" "$root$b"
done
for b in $ro; do
	mount -o remount,bind,ro "$root$b"
done
cd "$root"
mkdir -p .old
pivot_root . .old
cd /
umount -l /.old
rmdir /.old
"$@"
exit "$?"
'

# ---- runc ---------------------------------------------------------------------

# runc_series_install SERIES TREE: into the runc source tree TREE, for
# the series contrib/runc/SERIES/:
#  - the three library folders a runtime takes whole (cloned_binary,
#    common, nsexec: their *.[ch]; never policy/, whose yajl and libcap
#    runc's package lacks) into libcontainer/nsenter/, with the shared shim
#    and header (contrib/runc/runc_loader_shim.c, runc_memfd_toolkit.h),
#    or the series' own nsenter/*.[ch] where it has them (a file there
#    overrides the shared one of the same name);
#  - the Go files every series shares (contrib/runc/go/), then the
#    series' own go/, over the tree (the two never name the same file).
# runc's own cloned_binary.c goes where the series replaces it (1.1); a
# file of runc's is never overwritten, nor one of ours by another.
runc_series_install() {
	local series="$1" tree="$2" f name
	local dir="$TOP/contrib/runc/$series" nsenter="$2/libcontainer/nsenter"
	[ -d "$dir/patches" ] || die "no series $dir (its patches/ is missing)"
	rm -f "$nsenter/cloned_binary.c"
	local -a files=("$TOP"/{cloned_binary,common,nsexec}/*.[ch])
	for f in "$TOP"/contrib/runc/runc_loader_shim.c "$TOP"/contrib/runc/runc_memfd_toolkit.h; do
		[ -e "$dir/nsenter/$(basename "$f")" ] || files+=("$f")
	done
	for f in "$dir"/nsenter/*.[ch]; do
		[ ! -e "$f" ] || files+=("$f")
	done
	for f in "${files[@]}"; do
		name=$(basename "$f")
		[ ! -e "$nsenter/$name" ] || die "$tree already has libcontainer/nsenter/$name"
		cp "$f" "$nsenter/"
	done
	local go
	for go in "$TOP/contrib/runc/go" "$dir/go"; do
		[ -d "$go" ] || continue
		while IFS= read -r -d '' f; do
			[ ! -e "$tree/$f" ] || die "$tree already has $f (from $go)"
			mkdir -p "$(dirname "$tree/$f")"
			cp "$go/$f" "$tree/$f"
		done < <(cd "$go" && find . -type f -name '*.go' -print0)
	done
}
