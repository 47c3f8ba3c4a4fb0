#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The toolkit's package for each Debian release: contrib/build-deb.sh
# --suite bookworm (on the host), trixie and sid (in their roots, with
# their own debhelper and lintian) builds it lintian-clean, with the
# units where that suite keeps them; and in a trixie root, the Debian 12
# layout (units under /lib) upgrades to the trixie package (under /usr/lib)
# without losing them.
#
# Each build takes minutes (a root's unpack, its Build-Depends, the
# build); run-all makes the roots before the bats suites.

bats_require_minimum_version 1.5.0

load helpers

setup() {
	requires root cmd:dpkg-buildpackage cmd:git || return 1
	T=$(mktemp -d "${BATS_TMPDIR:-/tmp}/packaging-suites-bats.XXXXXX")
	V=$(sed -n 's/^project(memfd-toolkit VERSION \([^ )]*\).*/\1/p' "$REPO_ROOT/CMakeLists.txt")
	ARCH=$(dpkg-architecture -qDEB_HOST_ARCH)
}

teardown() {
	[ -z "${T:-}" ] || rm -rf "$T"
	if [ -n "${UPGRADE_ROOT:-}" ]; then
		(PROG=packaging-suites.bats && . "$REPO_ROOT/contrib/lib.sh" && suite_remove "$UPGRADE_ROOT")
	fi
}

# build_suite SUITE UNITDIR: contrib/build-deb.sh --suite SUITE succeeds;
# its lintian (the suite's) says nothing, not even a warning; the package
# holds the set, with the units in UNITDIR and the seccomp filter.
build_suite() {
	local suite="$1" unitdir="$2" out="$REPO_ROOT/build/deb/$1"
	run env TMPDIR="$T" DEB_BUILD_OPTIONS="parallel=2${DEB_BUILD_OPTIONS:+ $DEB_BUILD_OPTIONS}" \
		"$REPO_ROOT/contrib/build-deb.sh" --suite "$suite"
	echo "$output" | tail -20
	assert_success
	[ -f "$out/lintian.log" ] || fail "no $out/lintian.log"
	echo "# lintian ($suite): $(wc -l <"$out/lintian.log") lines" >&3
	run cat "$out/lintian.log"
	refute_output --regexp '^[EWI]: '
	local deb="$out/memfd-toolkit_${V}_$ARCH.deb"
	[ -f "$deb" ] || fail "no $deb"
	assert_deb_files "$deb" "$unitdir" "$suite: "
	# The units' maintainer-script snippets (debhelper found the units):
	# enabled again on upgrade only where the administrator had them.
	dpkg-deb -e "$deb" "$T/ctl"
	grep -q 'deb-systemd-helper.*was-enabled.*memfd-noexec.socket' "$T/ctl/postinst" ||
		fail "$suite: no unit snippet in postinst (dh_installsystemd did not see $unitdir)"
}

@test "build-deb.sh --suite bookworm: on the host, lintian-clean, units in /lib/systemd/system (Debian 12's debhelper sees no other)" {
	build_suite bookworm /lib/systemd/system
}

@test "build-deb.sh --suite trixie: in a trixie root, trixie's lintian clean, units in /usr/lib/systemd/system" {
	build_suite trixie /usr/lib/systemd/system
}

@test "build-deb.sh --suite sid: in a sid root, sid's lintian clean, units in /usr/lib/systemd/system" {
	build_suite sid /usr/lib/systemd/system
}

# Debian 12's package (units under /lib/systemd/system, as every package
# built before the per-suite unit directory) installs on Debian 13 with apt,
# and the trixie package upgrades it with dpkg -i: on a merged /usr, /lib
# and /usr/lib are one directory, and the files the old package listed
# under /lib must not take the new package's units with them.
@test "in a trixie root: the bookworm package installs with apt, the trixie package upgrades it with dpkg -i, and the units stay" {
	local old="$REPO_ROOT/build/deb/bookworm/memfd-toolkit_${V}_$ARCH.deb"
	local new="$REPO_ROOT/build/deb/trixie/memfd-toolkit_${V}_$ARCH.deb"
	# The tests above build them; build them here when run alone.
	[ -f "$old" ] || build_suite bookworm /lib/systemd/system
	[ -f "$new" ] || build_suite trixie /usr/lib/systemd/system
	# The old package: the bookworm build, one version lower, so that the
	# trixie package's install is an upgrade.
	dpkg-deb -R "$old" "$T/old"
	sed -i "s/^Version: .*/Version: ${V}~old1/" "$T/old/DEBIAN/control"
	dpkg-deb -b --root-owner-group "$T/old" "$T/memfd-toolkit_old.deb" >/dev/null
	PROG=packaging-suites.bats
	# shellcheck source=contrib/lib.sh
	. "$REPO_ROOT/contrib/lib.sh"
	UPGRADE_ROOT=$REPO_ROOT/build/roots/trixie-upgrade
	suite_unpack trixie "$UPGRADE_ROOT"
	mkdir -m 0777 "$UPGRADE_ROOT/pkgs"
	cp "$T/memfd-toolkit_old.deb" "$new" "$UPGRADE_ROOT/pkgs/"
	run suite_run "$UPGRADE_ROOT" 300 env -C /pkgs DEBIAN_FRONTEND=noninteractive NEW="$(basename "$new")" sh -ec '
		rm -f /var/lib/man-db/auto-update
		apt-get install -y -qq --no-install-recommends ./memfd-toolkit_old.deb >apt.log 2>&1 ||
			{ tail -5 apt.log; exit 1; }
		echo "old: $(dpkg-query -W -f "\${Version} \${db:Status-Abbrev}" memfd-toolkit)"
		dpkg -L memfd-toolkit | grep "systemd/system/memfd" | sed "s/^/old lists /"
		dpkg -i "$NEW" >dpkg.log 2>&1 || { cat dpkg.log; exit 1; }
		echo "new: $(dpkg-query -W -f "\${Version} \${db:Status-Abbrev}" memfd-toolkit)"
		dpkg -L memfd-toolkit | grep "systemd/system/memfd" | sed "s/^/new lists /"
		for u in memfd-noexec.service memfd-noexec.socket; do
			for d in /usr/lib/systemd/system /lib/systemd/system; do
				if [ -s "$d/$u" ]; then echo "present $d/$u"; else echo "MISSING $d/$u"; fi
			done
			echo "owner $(dpkg -S "/usr/lib/systemd/system/$u")"
		done
		grep -x "ExecStart=/usr/bin/memfd-noexec serve" /usr/lib/systemd/system/memfd-noexec.service
		dpkg --audit && echo "audit clean"'
	echo "$output"
	assert_success
	assert_line "old: ${V}~old1 ii "
	assert_line "old lists /lib/systemd/system/memfd-noexec.socket"
	assert_line "new: $V ii "
	assert_line "new lists /usr/lib/systemd/system/memfd-noexec.service"
	assert_line "new lists /usr/lib/systemd/system/memfd-noexec.socket"
	refute_line --partial "new lists /lib/"
	refute_line --partial MISSING
	assert_line "present /usr/lib/systemd/system/memfd-noexec.service"
	assert_line "present /usr/lib/systemd/system/memfd-noexec.socket"
	assert_line "owner memfd-toolkit: /usr/lib/systemd/system/memfd-noexec.service"
	assert_line "audit clean"
}
