#!/usr/bin/env bats
# SPDX-License-Identifier: Apache-2.0
# The packager's recipe in contrib/runc/README.md, followed exactly as
# written (the lines between its recipe markers) on a copy of Debian's
# runc 1.1.5 source, then built the way build.sh builds: the recipe alone
# must give a runc with the loader, the annotation and the overlay start.

load helpers

RUNC_SRC=/usr/share/gocode/src/github.com/opencontainers/runc

setup() {
	requires root memfd_noexec cmd:go cmd:patch cmd:jq cmd:busybox || return 1
	[ -f "$RUNC_SRC/main.go" ] ||
		missing "Debian's runc source at $RUNC_SRC (golang-github-opencontainers-runc-dev)" ||
		return 1
	T=$(mktemp -d /tmp/packager-bats.XXXXXX)
	chmod 755 "$T"
	HOST_LEVEL_BEFORE="$(host_level)"
}

teardown() {
	if [ -n "${T:-}" ] && [ -d "$T" ]; then
		[ ! -x "$T/runc" ] || "$T/runc" --root "$T/state" delete -f pkg >/dev/null 2>&1 || true
		[ ! -x "$T/deb/usr/sbin/runc" ] ||
			"$T/deb/usr/sbin/runc" --root "$T/state" delete -f pkg >/dev/null 2>&1 || true
		rm -rf "$T"
	fi
	assert_host_level_unchanged "${HOST_LEVEL_BEFORE:-}"
}

# starts_at_annotation_2 RUNC: RUNC runs a busybox container with
# annotation memfd_noexec=2 from its overlay clone; the container reads 2.
starts_at_annotation_2() {
	local runc="$1"
	mkdir -p "$T/b/rootfs/bin" "$T/b/rootfs/proc" "$T/b/rootfs/dev" "$T/b/rootfs/sys"
	cp /bin/busybox "$T/b/rootfs/bin/"
	ln -sf busybox "$T/b/rootfs/bin/sh"
	ln -sf busybox "$T/b/rootfs/bin/cat"
	(cd "$T/b" && rm -f config.json && "$runc" spec)
	jq '.root.readonly = true | .process.terminal = false |
		.annotations.memfd_noexec = "2" |
		.process.args = ["/bin/cat", "/proc/sys/vm/memfd_noexec"]' \
		"$T/b/config.json" >"$T/b/c.json" && mv "$T/b/c.json" "$T/b/config.json"
	run at_level --proc 0 "$runc" --debug --root "$T/state" run -b "$T/b" pkg
	assert_success
	assert_output --partial 'msg="cloned_binary: using overlay"'
	assert_output --partial 'cloned_binary: running from sealed clone'
	assert_line 2
}

# The recipe: the sh block between the markers, nothing added.
recipe() {
	sed -n '/^<!-- recipe:begin -->$/,/^<!-- recipe:end -->$/p' \
		"$REPO_ROOT/contrib/runc/README.md" | sed '1,2d;$d' | sed '$d'
}

@test "the README's packager recipe, followed by hand, builds a runc with the loader and the policy" {
	recipe >"$T/recipe.sh"
	# Guard the extraction itself: the block is the recipe, whole.
	grep -q '^rm libcontainer/nsenter/cloned_binary.c$' "$T/recipe.sh"
	grep -q 'patch -p1 --fuzz=0' "$T/recipe.sh"
	local tree="$T/gopath/src/github.com/opencontainers/runc"
	mkdir -p "$(dirname "$tree")"
	cp -a "$RUNC_SRC" "$tree"
	run bash -ec "cd '$tree' && TOOLKIT='$REPO_ROOT' && . '$T/recipe.sh'"
	assert_success
	# "Build as you build runc": GOPATH mode against Debian's Go packages.
	local cache="${GOCACHE:-$REPO_ROOT/build/go-cache}"
	run env -C "$tree" GO111MODULE=off GOPATH="$T/gopath:/usr/share/gocode" \
		GOFLAGS= GOCACHE="$cache" CGO_ENABLED=1 \
		go build -tags "seccomp urfave_cli_no_docs" -o "$T/runc" .
	assert_success
	# It starts a container from the overlay and applies the annotation.
	starts_at_annotation_2 "$T/runc"
}

@test "contrib/runc/build-deb.sh: Debian's runc rebuilt with a quilt series, above Debian's version, starting from the overlay" {
	requires cmd:dpkg-buildpackage cmd:lintian cmd:quilt || return 1
	local parent before after deb debian_version version
	parent="$(dirname "$REPO_ROOT")"
	# The clone's parent may be /tmp, where other processes come and go:
	# only the names a runc package build writes there count (runc_*,
	# runc-dbgsym_*, golang-github-opencontainers-runc-dev_*), and the
	# build gets a TMPDIR of its own, so that lintian's temporary files
	# (mldbm-elf-*) stay out of the shared /tmp.
	parent_files() {
		find "$parent" -mindepth 1 -maxdepth 1 \( -name 'runc_*' -o -name 'runc-dbgsym_*' \
			-o -name 'golang-github-opencontainers-runc*' \) -printf '%f\n' | LC_ALL=C sort
	}
	before="$(parent_files)"
	mkdir "$T/tmp"
	run env TMPDIR="$T/tmp" "$REPO_ROOT/contrib/runc/build-deb.sh"
	assert_success
	deb="$(sed -n 's/^build-deb.sh: built //p' <<<"$output")"
	[ -f "$deb" ] || fail "build-deb.sh named no .deb: $output"
	# bookworm is the default suite, and each suite has its folder.
	[ "$(dirname "$deb")" = "$REPO_ROOT/build/deb/bookworm" ] || fail "the bookworm .deb is not in build/deb/bookworm/: $deb"
	after="$(parent_files)"
	[ "$before" = "$after" ] || fail "build-deb.sh wrote beside the clone: $(diff <(echo "$before") <(echo "$after"))"
	[ ! -e "$REPO_ROOT/build/deb/bookworm/runc-src" ] || fail "the source tree was left in build/deb/bookworm/runc-src"

	# Debian's name, a version that sorts above Debian 12's (the host's
	# runc: with trixie's and sid's deb-src entries, showsrc lists theirs
	# too), and exactly Debian's Depends (libc6, libseccomp2): the loader
	# adds no library.
	[ "$(dpkg-deb -f "$deb" Package)" = runc ]
	version="$(dpkg-deb -f "$deb" Version)"
	debian_version="$(apt-cache policy runc | sed -n 's/^  Candidate: //p')"
	[[ "$version" == "$debian_version+memfdtoolkit"* ]] || fail "version $version is not Debian's $debian_version with our suffix"
	dpkg --compare-versions "$version" gt "$debian_version"
	local ours stock
	ours="$(dpkg-deb -f "$deb" Depends)"
	stock="$(apt-cache show "runc=$debian_version" | sed -n 's/^Depends: //p' | head -n1)"
	[ -n "$stock" ] || fail "apt-cache show runc=$debian_version gives no Depends"
	[ "$ours" = "$stock" ] || fail "our runc depends on '$ours', Debian's on '$stock'"
	assert_output --partial "build-deb.sh: Depends: $stock (Debian's runc $debian_version: the same)"

	# No lintian error (the warnings are Debian's own runc's too).
	run lintian --allow-root --fail-on error "$deb"
	assert_success
	refute_line --regexp '^E: '

	# Unpacked: --version names the loader, and it starts a container
	# from its overlay at annotation 2.
	dpkg-deb -x "$deb" "$T/deb"
	run "$T/deb/usr/sbin/runc" --version
	assert_success
	assert_line "commit: $version, loader: sealed W^X (memfd-toolkit $(sed -n 's/^project(memfd-toolkit VERSION \([^ )]*\).*/\1/p' "$REPO_ROOT/CMakeLists.txt"))"
	starts_at_annotation_2 "$T/deb/usr/sbin/runc"
}

@test "contrib/runc/build-deb.sh refuses a suite or a version its series was not made for, naming the allowed ones" {
	run "$REPO_ROOT/contrib/runc/build-deb.sh" --suite buster
	assert_failure 1
	assert_output "build-deb.sh: unknown suite 'buster'; allowed: bookworm, trixie, sid"
	run "$REPO_ROOT/contrib/runc/build-deb.sh" --suite trixie --version 1.1.14+ds1-1
	assert_failure 1
	assert_output --partial "build-deb.sh: runc 1.1.14+ds1-1 for trixie: the series contrib/runc/1.1/ was made and tested for Debian's runc 1.1.15+ds1-2 in trixie alone; allowed: --version 1.1.15+ds1-2 (or no --version)"
	run "$REPO_ROOT/contrib/runc/build-deb.sh" --version 1.3.6+ds1-1
	assert_failure 1
	assert_output --partial "runc 1.3.6+ds1-1 for bookworm: the series contrib/runc/1.1/ was made and tested for Debian's runc 1.1.5+ds1-1+deb12u1 in bookworm alone"
	# Refused before anything was fetched or made: the message is all.
	[ "${#lines[@]}" -eq 1 ] || fail "more than the refusal: $output"
}
