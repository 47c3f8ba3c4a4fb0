#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# What a packager gets: `cmake --install` into a DESTDIR installs the whole
# set (programs, library, man pages, units, hooks.d, the sysctl.d example
# and crun-sealed's podman recipe as documentation), with the installed
# program's path in the files that name it.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/packaging-bats.XXXXXX")
}

teardown() {
	[ -z "${T:-}" ] || rm -rf "$T"
}

# installed_files PREFIX: cmake --install BUILD_DIR into $T/root with
# PREFIX, then every file and symlink under it, one per line, sorted.
installed_files() {
	rm -rf "$T/root"
	DESTDIR="$T/root" cmake --install "$BUILD_DIR" --prefix "$1" >"$T/install.log" 2>&1 ||
		fail "cmake --install failed: $(cat "$T/install.log")"
	(cd "$T/root" && find . \( -type f -o -type l \) | sed 's|^\./|/|' | LC_ALL=C sort)
}

@test "cmake --install into a DESTDIR installs the full set, and only it" {
	requires cmd:cmake cmd:scdoc cmd:man cmd:jq || return 1
	[ -x "$BUILD_DIR/memfd-noexec/memfd-noexec" ] || fail "no build in $BUILD_DIR"
	local libdir
	libdir=$(sed -n 's/^CMAKE_INSTALL_LIBDIR:PATH=//p' "$BUILD_DIR/CMakeCache.txt")
	run installed_files /usr
	assert_success
	LC_ALL=C sort >"$T/want" <<-EOF_LIST
		/usr/bin/memfd-noexec
		/usr/bin/sealexec
		/usr/include/memfd-toolkit/cloned-binary.h
		/usr/include/memfd-toolkit/errors.h
		/usr/include/memfd-toolkit/kernel-features.h
		/usr/include/memfd-toolkit/macro.h
		/usr/$libdir/libcloned_binary.a
		/usr/$libdir/libmtcommon.a
		/usr/lib/systemd/system/memfd-noexec.service
		/usr/lib/systemd/system/memfd-noexec.socket
		/usr/libexec/memfd-toolkit/crun-sealed
		/usr/share/containers/oci/hooks.d/memfd-noexec.json
		/usr/share/doc/memfd-toolkit/examples/50-crun-sealed.conf
		/usr/share/doc/memfd-toolkit/examples/50-memfd-noexec.conf
		/usr/share/man/man1/sealexec.1
		/usr/share/man/man8/memfd-noexec.8
		/usr/share/memfd-toolkit/seccomp/deny-hugetlb-memfd.jq
	EOF_LIST
	diff -u "$T/want" - <<<"$output" || fail "installed set differs (- expected, + installed)"
	local r="$T/root"
	# Nothing enabled: no sysctl.d or unit symlink anywhere.
	run find "$r" -path '*sysctl.d*' -o -name '*.wants'
	assert_output ''
	# The files that run the program name the installed one.
	run grep -h 'memfd-noexec' "$r/usr/lib/systemd/system/memfd-noexec.service" \
		"$r/usr/share/containers/oci/hooks.d/memfd-noexec.json"
	assert_line 'ExecStart=/usr/bin/memfd-noexec serve'
	assert_line --partial '"path": "/usr/bin/memfd-noexec"'
	refute_output --partial /usr/local
	jq -e '.hook.path == "/usr/bin/memfd-noexec" and .hook.args == ["memfd-noexec", "hook"]' \
		"$r/usr/share/containers/oci/hooks.d/memfd-noexec.json"
	# The podman recipe names crun-sealed where it was installed.
	grep -qxF 'crun = ["/usr/libexec/memfd-toolkit/crun-sealed"]' \
		"$r/usr/share/doc/memfd-toolkit/examples/50-crun-sealed.conf" ||
		fail "the installed podman recipe does not name /usr/libexec/memfd-toolkit/crun-sealed: $(cat "$r/usr/share/doc/memfd-toolkit/examples/50-crun-sealed.conf")"
	diff <(sed 's|/usr/local/libexec/memfd-toolkit/crun-sealed|/usr/libexec/memfd-toolkit/crun-sealed|g' \
		"$REPO_ROOT/contrib/crun/containers.conf") \
		"$r/usr/share/doc/memfd-toolkit/examples/50-crun-sealed.conf"
	# Otherwise the sources, unchanged.
	cmp "$REPO_ROOT/contrib/systemd/memfd-noexec.socket" "$r/usr/lib/systemd/system/memfd-noexec.socket"
	cmp "$REPO_ROOT/contrib/seccomp/deny-hugetlb-memfd.jq" \
		"$r/usr/share/memfd-toolkit/seccomp/deny-hugetlb-memfd.jq"
	cmp "$REPO_ROOT/contrib/sysctl.d/50-memfd-noexec.conf" \
		"$r/usr/share/doc/memfd-toolkit/examples/50-memfd-noexec.conf"
	diff <(sed 's|/usr/local/bin/memfd-noexec|/usr/bin/memfd-noexec|g' \
		"$REPO_ROOT/contrib/systemd/memfd-noexec.service") \
		"$r/usr/lib/systemd/system/memfd-noexec.service"
	# The man pages are roff that man renders without a warning.
	local page
	for page in man1/sealexec.1 man8/memfd-noexec.8; do
		head -c 200 "$r/usr/share/man/$page" | grep -q '^\.TH ' || fail "$page is not roff"
		run env LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings=w -l "$r/usr/share/man/$page"
		assert_success
		refute_output --partial 'warning:'
	done
	[ -x "$r/usr/bin/memfd-noexec" ] && [ -x "$r/usr/bin/sealexec" ]
}

@test "cmake --install --prefix P: the units, the hook and the crun-sealed recipe name P's programs" {
	requires cmd:cmake cmd:scdoc cmd:man cmd:jq || return 1
	run installed_files /opt/mt
	assert_success
	assert_line /opt/mt/lib/systemd/system/memfd-noexec.service
	assert_line /opt/mt/share/containers/oci/hooks.d/memfd-noexec.json
	run grep -h '/memfd-noexec' "$T/root/opt/mt/lib/systemd/system/memfd-noexec.service" \
		"$T/root/opt/mt/share/containers/oci/hooks.d/memfd-noexec.json"
	assert_line 'ExecStart=/opt/mt/bin/memfd-noexec serve'
	assert_line --partial '"path": "/opt/mt/bin/memfd-noexec"'
	refute_output --partial /usr/
	run grep -h 'crun-sealed' "$T/root/opt/mt/share/doc/memfd-toolkit/examples/50-crun-sealed.conf"
	assert_line 'crun = ["/opt/mt/libexec/memfd-toolkit/crun-sealed"]'
	[ -x "$T/root/opt/mt/libexec/memfd-toolkit/crun-sealed" ] || fail "no crun-sealed where the recipe points"
}

# The man pages against the programs.  An option is "--name" or, with its
# short form, "--name/-x"; a list is one sorted line, space-separated.

# c_tables DIR: one list per C file of DIR with a getopt_long() option
# table: its long options, each with the short form its getopt string
# gives the same value.  The truth of what the program accepts.
c_tables() {
	local f shorts
	for f in "$1"/*.c; do
		grep -q 'struct option' "$f" || continue
		shorts=$(sed -n 's/.*getopt_long([^"]*"\([^"]*\)".*/\1/p' "$f" | tr -d '+:')
		grep -oE "\\{\"[a-z][a-z0-9-]*\", *[a-z_]+, *NULL, *'.'" "$f" |
			sed -E "s/^\\{\"([^\"]*)\".*'(.)'$/\\1 \\2/" |
			while read -r name c; do
				case "$shorts" in
				*"$c"*) echo "--$name/-$c" ;;
				*) echo "--$name" ;;
				esac
			done | LC_ALL=C sort | xargs
	done
}

# man_section PAGE HEADING: the lines below the scdoc heading line HEADING
# ("# OPTIONS", "## status") up to the next heading.
man_section() {
	awk -v h="$2" '$0 == h { on = 1; next } on && /^#/ { exit } on' "$1"
}

# man_options: the option list of the definition heads on stdin
# ("*-x*, *--name* _ARG_", "*--name*=_ARG_").
man_options() {
	grep -E '^\*(-[a-zA-Z]\*, \*)?--[a-z][a-z0-9-]*\*(=?_[A-Z]+_| _[A-Z]+_)?$' |
		sed -E 's/^\*(-([a-zA-Z])\*, \*)?(--[a-z][a-z0-9-]*)\*.*/\3 \2/' |
		while read -r name c; do echo "$name${c:+/-$c}"; done | LC_ALL=C sort | xargs
}

# long_only LIST: LIST without the short forms.
long_only() {
	tr ' ' '\n' <<<"$1" | sed 's|/.*||' | LC_ALL=C sort -u | xargs
}

# help_options CMD...: the long options of CMD --help, and --help: those
# of its usage lines (up to the first empty line) and the first of each
# option line ("  -x, --name ...", "      --name ..."), not those that the
# prose mentions.
help_options() {
	{
		"$@" --help | awk '!/./ { exit } { print }' | grep -oE -- '--[a-z][a-z0-9-]*'
		"$@" --help | grep -oE -- '^ +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' | grep -oE -- '--.*'
		echo --help
	} | LC_ALL=C sort -u | xargs
}

# help_pairs CMD...: the "-x, --name" pairs of CMD --help, as "--name/-x".
help_pairs() {
	"$@" --help | grep -oE -- '-[a-zA-Z], --[a-z][a-z0-9-]*' |
		sed -E 's/^(-.), (--.*)/\2\/\1/' | LC_ALL=C sort -u | xargs
}

# check_options WHAT MANLIST TABLES CMD...: MANLIST (the page's list for
# WHAT) has the long options of CMD --help, no more and no fewer; it is one
# of the C option tables TABLES (one per line), short forms included; and
# every "-x, --name" of CMD --help is in it.
check_options() {
	local what="$1" man="$2" tables="$3" help pair
	shift 3
	help=$(help_options "$@")
	[ "$(long_only "$man")" = "$help" ] ||
		fail "$what: the man page has '$(long_only "$man")', --help has '$help'"
	grep -qxF -- "$man" <<<"$tables" ||
		fail "$what: the man page has '$man'; no option table in the sources is that (they are: $(paste -sd '|' <<<"$tables"))"
	for pair in $(help_pairs "$@"); do
		[[ " $man " == *" $pair "* ]] || fail "$what: --help has ${pair#*/}, ${pair%/*}; the man page has '$man'"
	done
}

@test "sealexec(1) documents exactly the options of sealexec --help and of its option table" {
	local page="$REPO_ROOT/man/sealexec.1.scd" man
	man=$(man_section "$page" "# OPTIONS" | man_options)
	[ -n "$man" ] || fail "no option in the OPTIONS section of $page"
	check_options sealexec "$man" "$(c_tables "$REPO_ROOT/sealexec")" "$SEALEXEC"
	local s
	for s in SYNOPSIS DESCRIPTION OPTIONS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES; do
		grep -qxF "# $s" "$page" || fail "$page has no $s section"
	done
}

@test "memfd-noexec(8) has one section per command, each with exactly its options" {
	local page="$REPO_ROOT/man/memfd-noexec.8.scd" mn="$BUILD_DIR/memfd-noexec/memfd-noexec"
	local tables verbs man_verbs verb man body
	tables=$(c_tables "$REPO_ROOT/memfd-noexec")
	# The commands: memfd-noexec --help's list, and the page's sections.
	verbs=$("$mn" --help | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit }
		on && /^  [a-z]/ { print $1 }' | xargs)
	man_verbs=$(awk '/^# COMMANDS$/ { on = 1; next }
		on && /^# / { exit } on && /^## / { print $2 }' "$page" | xargs)
	[ -n "$verbs" ] || fail "no command list in memfd-noexec --help"
	[ "$verbs" = "$man_verbs" ] || fail "commands: --help has '$verbs', the man page '$man_verbs'"
	for verb in $verbs; do
		body=$(man_section "$page" "## $verb")
		man=$(man_options <<<"$body")
		[ -n "$man" ] || fail "$verb: no option in its section of $page"
		check_options "memfd-noexec $verb" "$man" "$tables" "$mn" "$verb"
		local s
		for s in "Options:" "Exit status:" "Example"; do
			grep -q "^$s" <<<"$body" || fail "$verb: its section of $page has no '$s'"
		done
	done
	for s in SYNOPSIS DESCRIPTION COMMANDS "EXIT STATUS" ENVIRONMENT FILES EXAMPLES; do
		grep -qxF "# $s" "$page" || fail "$page has no $s section"
	done
}

# The Debian package (debian/, contrib/build-deb.sh).

@test "one version: CMakeLists.txt's project(VERSION) is debian/changelog's and --version's" {
	requires cmd:dpkg-parsechangelog || return 1
	local v d
	v=$(sed -n 's/^project(memfd-toolkit VERSION \([^ )]*\).*/\1/p' "$REPO_ROOT/CMakeLists.txt")
	[ -n "$v" ] || fail "no version in CMakeLists.txt's project()"
	d=$(dpkg-parsechangelog -l "$REPO_ROOT/debian/changelog" -S Version)
	[ "$d" = "$v" ] || [ "${d%-*}" = "$v" ] ||
		fail "CMakeLists.txt says $v, debian/changelog's latest entry $d"
	run "$BUILD_DIR/memfd-noexec/memfd-noexec" --version
	assert_output "memfd-noexec $v"
	run "$SEALEXEC" --version
	assert_output "sealexec $v"
}

@test "apt-get build-dep ./ reads debian/control" {
	requires cmd:apt-get || return 1
	run env -C "$REPO_ROOT" apt-get build-dep -s ./
	assert_success
	refute_output --partial 'E:'
}

@test "contrib/build-deb.sh builds memfd-toolkit.deb: the set, units not enabled, lintian clean, nothing outside build/deb" {
	requires cmd:dpkg-buildpackage cmd:dh cmd:lintian cmd:git || return 1
	local v arch parent_before
	v=$(sed -n 's/^project(memfd-toolkit VERSION \([^ )]*\).*/\1/p' "$REPO_ROOT/CMakeLists.txt")
	arch=$(dpkg-architecture -qDEB_HOST_ARCH)
	# dpkg-buildpackage writes its results (memfd-toolkit_*, and
	# memfd-toolkit-dbgsym_*) into the parent of the tree it builds.  The
	# clone's parent may be /tmp, where other processes, lintian
	# included, come and go meanwhile: only the names a package build
	# writes count.  TMPDIR is the test's own, so the build's temporary
	# files (lintian's mldbm-elf-*) stay out of the shared /tmp.
	parent_files() {
		find "$REPO_ROOT/.." -mindepth 1 -maxdepth 1 -name 'memfd-toolkit[_-]*' -printf '%f\n' |
			LC_ALL=C sort
	}
	parent_before=$(parent_files)
	mkdir "$T/tmp"
	run env TMPDIR="$T/tmp" DEB_BUILD_OPTIONS="parallel=2${DEB_BUILD_OPTIONS:+ $DEB_BUILD_OPTIONS}" \
		"$REPO_ROOT/contrib/build-deb.sh"
	assert_success
	local deb="$REPO_ROOT/build/deb/memfd-toolkit_${v}_$arch.deb"
	[ -f "$deb" ] || fail "no $deb"
	# dpkg-buildpackage's leftovers: none in the clone's parent, no stage.
	[ "$(parent_files)" = "$parent_before" ] ||
		fail "the build wrote into $REPO_ROOT/..: $(diff <(echo "$parent_before") <(parent_files))"
	[ ! -e "$REPO_ROOT/build/deb/stage" ] || fail "build/deb/stage left behind"
	# Exactly the set, in Debian's places; the units where the host's
	# systemd.pc says (Debian 12: /lib/systemd/system).
	local unitdir
	unitdir=$(pkg-config --variable=systemdsystemunitdir systemd)
	[ -n "$unitdir" ] || fail "pkg-config has no systemdsystemunitdir for systemd"
	assert_deb_files "$deb" "$unitdir"
	run dpkg-deb -f "$deb" Package Version Depends
	assert_line "Package: memfd-toolkit"
	assert_line "Version: $v"
	assert_line --partial "libyajl2"
	# The unpacked programs run, and the unit and hook name /usr/bin's.
	dpkg-deb -x "$deb" "$T/x"
	run "$T/x/usr/bin/memfd-noexec" --version
	assert_output "memfd-noexec $v"
	run "$T/x/usr/bin/sealexec" --debug /bin/true
	assert_success
	grep -qx 'ExecStart=/usr/bin/memfd-noexec serve' "$T/x$unitdir/memfd-noexec.service"
	# The huge-page filter for stock runtimes, as the README runs it.
	cmp "$REPO_ROOT/contrib/seccomp/deny-hugetlb-memfd.jq" \
		"$T/x/usr/share/memfd-toolkit/seccomp/deny-hugetlb-memfd.jq"
	echo '{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": []}' |
		jq -e -f "$T/x/usr/share/memfd-toolkit/seccomp/deny-hugetlb-memfd.jq" |
		jq -e '.syscalls[] | select(.names == ["memfd_create"] and .action == "SCMP_ACT_ERRNO" and .args[0].value == 4)' >/dev/null ||
		fail "the packaged filter adds no memfd_create rule"
	jq -e '.hook.path == "/usr/bin/memfd-noexec"' "$T/x/usr/share/containers/oci/hooks.d/memfd-noexec.json"
	# The packaged podman recipe names the packaged crun-sealed.
	grep -qxF 'crun = ["/usr/libexec/memfd-toolkit/crun-sealed"]' \
		"$T/x/usr/share/doc/memfd-toolkit/examples/50-crun-sealed.conf" ||
		fail "the packaged podman recipe does not name /usr/libexec/memfd-toolkit/crun-sealed"
	# Installed, never enabled or started: the maintainer scripts start
	# nothing, and enable a unit only where the administrator had
	# (was-enabled: an upgrade keeps their choice).
	dpkg-deb -e "$deb" "$T/ctl"
	run cat "$T/ctl/postinst"
	refute_output --partial 'deb-systemd-invoke'
	refute_output --partial 'systemctl'
	run awk '/was-enabled/ { guard = 1 } /deb-systemd-helper enable/ && !guard { print "unguarded: " $0 }
		/^\t\tfi$/ { guard = 0 }' "$T/ctl/postinst"
	assert_output ''
	# lintian: no error (build-deb.sh's own check) and no warning either.
	run lintian "$REPO_ROOT/build/deb/memfd-toolkit_${v}_$arch.changes"
	assert_success
	refute_output --regexp '^[EW]: '
}

# in_scratch_root DEB SCRIPT: runs the sh SCRIPT (set -e) as root in a
# chroot of a throw-away copy of the root filesystem, with DEB at
# /tmp/pkg.deb there: an overlay whose lower layer is / and whose upper
# layer is a tmpfs, in a private mount namespace, with a /proc, /dev, and
# empty /run (no systemd seen) and /tmp.  Whatever dpkg does there (its
# database, the files, the maintainer scripts) goes with the namespace;
# the host's own packages and files are never touched.
in_scratch_root() {
	mkdir "$T/scratch"
	SCRATCH="$T/scratch" DEB="$1" unshare --mount --fork -- sh -ec '
		mount --make-rprivate /
		mount -t tmpfs -o mode=0700 scratch "$SCRATCH"
		mkdir "$SCRATCH/up" "$SCRATCH/work" "$SCRATCH/root"
		r="$SCRATCH/root"
		mount -t overlay overlay -o "lowerdir=/,upperdir=$SCRATCH/up,workdir=$SCRATCH/work" "$r"
		mount -t proc proc "$r/proc"
		mount --rbind /dev "$r/dev"
		mount -t tmpfs tmpfs "$r/run"
		mount -t tmpfs tmpfs "$r/tmp"
		cp "$DEB" "$r/tmp/pkg.deb"
		exec chroot "$r" /bin/sh -ec "$0"' "$2"
}

# The podman of Debian 12 skips a hooks.d file whose program is missing
# (an annotated container then runs unprotected), others refuse every
# container: the package must never leave the hook without its program.
@test "the package: the hooks.d file goes with its program on dpkg -r, is no conffile, and dpkg -P leaves nothing; an admin's /etc copy is warned about" {
	requires root cmd:dpkg-buildpackage cmd:dh cmd:lintian cmd:git cmd:jq cmd:unshare || return 1
	local v arch deb
	v=$(sed -n 's/^project(memfd-toolkit VERSION \([^ )]*\).*/\1/p' "$REPO_ROOT/CMakeLists.txt")
	arch=$(dpkg-architecture -qDEB_HOST_ARCH)
	deb="$REPO_ROOT/build/deb/memfd-toolkit_${v}_$arch.deb"
	# The test above builds it; build it here when run alone.
	if [ ! -f "$deb" ]; then
		run env DEB_BUILD_OPTIONS="parallel=2" "$REPO_ROOT/contrib/build-deb.sh"
		assert_success
	fi
	# In the package itself: no conffiles at all, and the hook beside the
	# program it names.
	dpkg-deb -e "$deb" "$T/ctl"
	[ ! -s "$T/ctl/conffiles" ] || fail "the package has conffiles: $(cat "$T/ctl/conffiles")"
	dpkg-deb -x "$deb" "$T/x"
	jq -e '.hook.path == "/usr/bin/memfd-noexec"' "$T/x/usr/share/containers/oci/hooks.d/memfd-noexec.json"
	[ -x "$T/x/usr/bin/memfd-noexec" ]
	# Installed, removed, reinstalled with an admin's copy, removed and
	# purged, for real, in a throw-away root.  After each step: the
	# package's state, and whether every hooks.d file names a program
	# that exists.
	run in_scratch_root "$deb" '
		hooks() {
			for f in /usr/share/containers/oci/hooks.d/*.json /etc/containers/oci/hooks.d/*.json; do
				[ -e "$f" ] || continue
				p=$(jq -r .hook.path "$f")
				if [ -x "$p" ]; then echo "hook $f -> $p: present"; else echo "hook $f -> $p: MISSING"; fi
			done
		}
		state() { echo "state $1: $(dpkg-query -W -f "\${db:Status-Abbrev}" memfd-toolkit 2>/dev/null || echo none)"; }
		dpkg -i /tmp/pkg.deb >/dev/null
		state installed
		echo "conffiles: [$(dpkg-query -W -f "\${Conffiles}" memfd-toolkit)]"
		hooks
		dpkg -r memfd-toolkit >/dev/null
		state removed
		[ ! -e /usr/bin/memfd-noexec ] && echo "program gone"
		[ ! -e /usr/share/containers/oci/hooks.d/memfd-noexec.json ] && echo "hook gone"
		hooks
		dpkg -i /tmp/pkg.deb >/dev/null
		mkdir -p /etc/containers/oci/hooks.d
		cp /usr/share/containers/oci/hooks.d/memfd-noexec.json /etc/containers/oci/hooks.d/
		echo "---- admin copy"
		dpkg -r memfd-toolkit 2>&1
		echo "---- purge"
		rm /etc/containers/oci/hooks.d/memfd-noexec.json
		dpkg -P memfd-toolkit >/dev/null
		state purged
		dpkg -L memfd-toolkit >/dev/null 2>&1 || echo "no files listed"
		hooks
		echo "all steps done"'
	assert_success
	assert_line 'state installed: ii '
	assert_line 'conffiles: []'
	assert_line 'hook /usr/share/containers/oci/hooks.d/memfd-noexec.json -> /usr/bin/memfd-noexec: present'
	# Removed, not purged: the program and the hook are both gone.
	assert_line --regexp '^state removed: (rc|un) $'
	assert_line 'program gone'
	assert_line 'hook gone'
	refute_output --partial MISSING
	# The admin's copy outlives the package, with a warning that names it.
	local admin="${output#*---- admin copy}"
	with_output "${admin%%---- purge*}" assert_line --partial 'memfd-toolkit: warning: /etc/containers/oci/hooks.d/memfd-noexec.json names /usr/bin/memfd-noexec, which is now removed'
	assert_line --regexp '^state purged: (un |none)$'
	assert_line 'no files listed'
	assert_line "all steps done"
}

@test "contrib/build-deb.sh refuses an unknown option or suite, naming the ones it takes, and builds nothing" {
	local out="$REPO_ROOT/build/deb"
	find "$out" -maxdepth 2 -newer "$REPO_ROOT/CMakeLists.txt" 2>/dev/null | LC_ALL=C sort >"$T/before"
	run "$REPO_ROOT/contrib/build-deb.sh" --suite buster
	assert_failure 1
	assert_output "build-deb.sh: unknown suite 'buster'; allowed: bookworm, trixie, sid"
	run "$REPO_ROOT/contrib/build-deb.sh" --trixie
	assert_failure 1
	assert_line --index 0 "usage: contrib/build-deb.sh [--suite bookworm|trixie|sid]"
	assert_line --index 1 "build-deb.sh: unknown argument '--trixie'; allowed: --suite bookworm|trixie|sid, --help"
	run "$REPO_ROOT/contrib/build-deb.sh" --suite
	assert_failure 1
	assert_line "build-deb.sh: --suite needs a value; allowed: bookworm, trixie, sid"
	run "$REPO_ROOT/contrib/build-deb.sh" --help
	assert_success
	assert_output "usage: contrib/build-deb.sh [--suite bookworm|trixie|sid]"
	find "$out" -maxdepth 2 -newer "$REPO_ROOT/CMakeLists.txt" 2>/dev/null | LC_ALL=C sort >"$T/after"
	diff -u "$T/before" "$T/after" || fail "a refused call wrote into build/deb"
}
