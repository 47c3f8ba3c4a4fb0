#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# contrib/crun/build-deb.sh: Debian 12's crun package rebuilt with our
# series (build/deb/bookworm/crun_VERSION+memfdtoolkit1_ARCH.deb).  The
# package is built here (a few minutes), checked with dpkg-deb and
# lintian, its Depends compared with Debian's crun's, unpacked, and its
# crun run: --version names the loader, and it starts a container from
# the overlay at annotation 2.

bats_require_minimum_version 1.5.0

load helpers
load podman
load crun

# shellcheck disable=SC2034 # crun.bash's as reads it
CRUN_ENV=(CRUN_MEMFD_TOOLKIT_DEBUG=1)

# depends_names: a Depends field on stdin as the sorted package names it
# lists (versions and architecture qualifiers dropped, alternatives each).
depends_names() {
	tr ',|' '\n' | sed -e 's/(.*//' -e 's/:any//' -e 's/^[[:space:]]*//' -e 's/[[:space:]]*$//' |
		sed '/^$/d' | LC_ALL=C sort -u
}

setup_file() {
	crun_stage || return 0
}

teardown_file() {
	unstage_user_binaries
}

setup() {
	crun_setup || return 1
}

teardown() {
	crun_teardown
}

@test "contrib/crun/build-deb.sh: Debian's crun rebuilt with our quilt series, above Debian's version, lintian clean, its crun names the loader and starts from the overlay" {
	requires cmd:dpkg-buildpackage cmd:lintian cmd:quilt || return 1
	local parent before after deb debian_version version
	parent="$(dirname "$REPO_ROOT")"
	# Only what a package build names (crun_*.changes, crun-dbgsym_*, a
	# crun-1.8.1 source tree) counts: the clone's parent may be /tmp,
	# where other programs write at the same time (another run's
	# crun-bats.*); lintian's temporary files go to the build's own TMPDIR.
	parent_files() {
		find "$parent" -mindepth 1 -maxdepth 1 \( -name 'crun_*' -o -name 'crun-dbgsym_*' -o -name 'crun-[0-9]*' \) \
			-printf '%f\n' | LC_ALL=C sort
	}
	before="$(parent_files)"
	mkdir "$T/tmp"
	run env TMPDIR="$T/tmp" "$REPO_ROOT/contrib/crun/build-deb.sh"
	assert_success
	deb="$(sed -n 's/^build-deb.sh: built //p' <<<"$output")"
	[ -f "$deb" ] || fail "build-deb.sh named no .deb: $output"
	[[ "$deb" == "$REPO_ROOT/build/deb/bookworm/crun_"*"+memfdtoolkit1_"*.deb ]] ||
		fail "the .deb is not in build/deb/bookworm/: $deb"
	after="$(parent_files)"
	[ "$before" = "$after" ] || fail "build-deb.sh wrote beside the clone: $(diff <(echo "$before") <(echo "$after"))"
	[ ! -e "$REPO_ROOT/build/deb/bookworm/crun-src" ] || fail "the source tree was left in build/deb/bookworm/crun-src"

	# Debian's name, a version that sorts above Debian's 1.8.1.
	[ "$(dpkg-deb -f "$deb" Package)" = crun ]
	version="$(dpkg-deb -f "$deb" Version)"
	debian_version="$(apt-cache showsrc crun | sed -n 's/^Version: \(1\.8\.1-.*\)/\1/p' | sort -V | tail -n1)"
	[[ "$version" == "$debian_version+memfdtoolkit1" ]] || fail "version $version is not Debian's $debian_version with our suffix"
	dpkg --compare-versions "$version" gt "$debian_version"
	run dpkg-deb -c "$deb"
	assert_success
	assert_line --regexp ' \./usr/bin/crun$'

	# No lintian error (its status and what it said, if it fails).
	run lintian --allow-root --fail-on error "$deb"
	[ "$status" -eq 0 ] || fail "lintian exited $status: $output"
	if [ -n "$output" ]; then refute_line --regexp '^E: '; fi

	# It depends on nothing Debian's crun does not (package names; the
	# versions follow the symbols each build uses).
	local ours stock extra
	ours="$(dpkg-deb -f "$deb" Depends | depends_names)"
	stock="$(apt-cache show "crun=$debian_version" | sed -n 's/^Depends: //p' | head -n1 | depends_names)"
	[ -n "$stock" ] || fail "apt-cache show crun=$debian_version gives no Depends"
	extra="$(comm -23 <(echo "$ours") <(echo "$stock"))"
	[ -z "$extra" ] || fail "our crun depends on ${extra//$'\n'/ }, which Debian's crun $debian_version does not; ours: ${ours//$'\n'/ }; Debian's: ${stock//$'\n'/ }"

	# Unpacked: --version names the loader, and the crun starts a
	# container from its overlay at annotation 2.
	dpkg-deb -x "$deb" "$T/deb"
	run "$T/deb/usr/bin/crun" --version
	assert_success
	assert_line --index 0 'crun version 1.8.1'
	assert_line "loader: sealed W^X (memfd-toolkit $(sed -n 's/^project(memfd-toolkit VERSION \([^ )]*\).*/\1/p' "$REPO_ROOT/CMakeLists.txt"))"
	install -m 0755 "$T/deb/usr/bin/crun" "$USER_BIN/crun-deb"
	as rootful "$USER_BIN/crun-deb"
	bundle b '.annotations.memfd_noexec = "2"'
	run crun_ns 0 "$T/runc" run -b "$T/b" "$ID"
	assert_success
	assert_marker overlay
	assert_memfd_level 2
	rm -f "$USER_BIN/crun-deb"
	assert_nothing_left
}
