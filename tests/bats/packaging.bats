#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# What a packager gets: `cmake --install` into a DESTDIR installs the whole
# set (programs, library, man pages, units, hooks.d, the sysctl.d example
# as documentation), with the installed program's path in the files that
# name it.

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
		/usr/include/cloned_binary.h
		/usr/include/errors.h
		/usr/include/kernel-features.h
		/usr/include/macro.h
		/usr/$libdir/libcloned_binary.a
		/usr/$libdir/libmtcommon.a
		/usr/lib/systemd/system/memfd-noexec.service
		/usr/lib/systemd/system/memfd-noexec.socket
		/usr/share/containers/oci/hooks.d/memfd-noexec.json
		/usr/share/doc/memfd-toolkit/examples/50-memfd-noexec.conf
		/usr/share/man/man1/sealexec.1
		/usr/share/man/man8/memfd-noexec.8
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
	# Otherwise the sources, unchanged.
	cmp "$REPO_ROOT/contrib/systemd/memfd-noexec.socket" "$r/usr/lib/systemd/system/memfd-noexec.socket"
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

@test "cmake --install --prefix P: the units and the hook name P's program" {
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
}
