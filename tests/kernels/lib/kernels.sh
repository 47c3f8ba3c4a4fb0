# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash
#
# Sourced by tests/kernels/run.sh: the Debian packages it needs.  The host's
# tools are installed when missing; each kernel is resolved from its
# metapackage, fetched with `apt-get download` and cached in $CACHE
# (vmlinuz, config, and overlay.ko, decompressed, where overlayfs is a
# module).  When apt cannot answer (KTEST_OFFLINE=1, or
# the archive moved on), the last kernel cached for that flavor is used.
#
# Uses from run.sh: OUT, CACHE, log, die.

# flavor -> metapackage that depends on the current linux-image-<abi> package
declare -A META=(
	[6.1]=linux-image-cloud-amd64
	[6.12]=linux-image-6.12-cloud-amd64
)

# Kernel config options the initramfs relies on; all must be built in.
CONFIG_NEEDED=(
	DEVTMPFS TMPFS SHMEM MEMFD_CREATE PID_NS USER_NS NAMESPACES
	SECCOMP SECCOMP_FILTER SERIAL_8250 SERIAL_8250_CONSOLE
	BLK_DEV_INITRD RD_GZIP BINFMT_ELF BINFMT_SCRIPT PROC_FS PROC_SYSCTL SYSFS
)
# Options that may be modules too: the initramfs carries the module (see
# OVERLAY_KO) and guest.sh loads it.
CONFIG_MODULE_OK=(OVERLAY_FS)
# overlayfs's module in the package (Debian compresses it with xz from 6.12).
OVERLAY_KO=kernel/fs/overlayfs/overlay.ko

HOST_PACKAGES=(qemu-system-x86 busybox-static cpio gzip xz-utils gcc libc6-dev binutils)

# --- host packages (checked), and apt for the kernel images ------------------
APT_UPDATED=0
apt_update() {
	[ "$APT_UPDATED" = 1 ] && return 0
	[ "${KTEST_OFFLINE:-0}" = 1 ] && return 1
	log "apt-get update"
	apt-get update -qq >"$OUT/apt-update.log" 2>&1 || {
		log "apt-get update failed, see $OUT/apt-update.log"
		return 1
	}
	APT_UPDATED=1
}
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }

# install_host_packages: checks that HOST_PACKAGES are there; sets BUSYBOX.
install_host_packages() {
	local p missing=()
	for p in "${HOST_PACKAGES[@]}"; do installed "$p" || missing+=("$p"); done
	# The README's test command installs them (contrib/install-deps.sh
	# test); a test installs nothing itself.
	[ ${#missing[@]} -eq 0 ] ||
		die "missing packages: ${missing[*]} (run contrib/install-deps.sh test as root)"
	BUSYBOX=$(dpkg -L busybox-static | grep -E '/s?bin/busybox$' | head -n 1)
	[ -x "$BUSYBOX" ] || die "busybox-static installed but no busybox binary found"
}

# --- kernels -----------------------------------------------------------------
# resolve_kernel FLAVOR: sets PKG and PKG_VERSION from the metapackage.
resolve_kernel() {
	local meta=${META[$1]} try
	PKG='' PKG_VERSION=''
	[ "${KTEST_OFFLINE:-0}" = 1 ] && return 1
	for try in 1 2; do
		PKG=$(apt-cache depends "$meta" 2>/dev/null |
			awk '$1 ~ /Depends:$/ && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
		[ -n "$PKG" ] && break
		[ "$try" = 1 ] && { apt_update || return 1; }
	done
	[ -n "$PKG" ] || return 1
	PKG_VERSION=$(apt-cache show --no-all-versions "$PKG" 2>/dev/null |
		awk '/^Version:/ { print $2; exit }')
	[ -n "$PKG_VERSION" ]
}

# fetch_kernel FLAVOR: sets KDIR (holding vmlinuz, config, package) and KREL.
fetch_kernel() {
	local flavor=$1
	KDIR='' KREL=''
	if resolve_kernel "$flavor"; then
		KDIR=$CACHE/${PKG}_$PKG_VERSION
		KREL=${PKG#linux-image-}
		if [ -s "$KDIR/vmlinuz" ] && [ -s "$KDIR/config" ] &&
			{ ! overlay_is_module "$KDIR/config" || [ -s "$KDIR/overlay.ko" ]; }; then
			log "$flavor: $PKG $PKG_VERSION (cached)"
			printf '%s\n' "${PKG}_$PKG_VERSION" >"$CACHE/$flavor.current"
			return 0
		fi
		download_kernel "$flavor" && return 0
	fi
	cached_kernel "$flavor"
}

overlay_is_module() { grep -qx 'CONFIG_OVERLAY_FS=m' "$1"; }

# unpack_overlay_ko DEB TMP: where the config in TMP makes overlayfs a
# module, unpacks it from DEB into TMP/overlay.ko, decompressed (the guest's
# busybox insmod takes plain modules only).  Fails, saying so, if it cannot.
unpack_overlay_ko() {
	local deb=$1 tmp=$2 ko
	overlay_is_module "$tmp/boot/config-$KREL" || return 0
	ko=./lib/modules/$KREL/$OVERLAY_KO
	dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$tmp" "$ko" "$ko.xz" 2>/dev/null
	if [ -s "$tmp/$ko" ]; then
		mv "$tmp/$ko" "$tmp/overlay.ko"
	elif [ -s "$tmp/$ko.xz" ]; then
		xz -dc "$tmp/$ko.xz" >"$tmp/overlay.ko"
	else
		log "$PKG: overlayfs is a module but $ko(.xz) is not in the package"
		return 1
	fi
}

# download_kernel FLAVOR: fetches PKG=PKG_VERSION and unpacks its vmlinuz,
# config and overlay.ko into KDIR.
download_kernel() {
	local flavor=$1 tmp deb
	log "$flavor: $PKG $PKG_VERSION: apt-get download"
	tmp=$(mktemp -d "$CACHE/dl.XXXXXX")
	# The cache is root's; apt's _apt sandbox user could not write it.
	if (cd "$tmp" && apt-get download -qq -o APT::Sandbox::User=root \
		"$PKG=$PKG_VERSION") >"$OUT/$flavor-download.log" 2>&1 &&
		deb=$(ls "$tmp"/*.deb) &&
		dpkg-deb --fsys-tarfile "$deb" |
		tar -x -C "$tmp" "./boot/vmlinuz-$KREL" "./boot/config-$KREL"; then
		rm -rf "$KDIR"
		mkdir -p "$KDIR"
		# Without it the kernel still boots; the overlay checks fail.
		if unpack_overlay_ko "$deb" "$tmp" && [ -s "$tmp/overlay.ko" ]; then
			mv "$tmp/overlay.ko" "$KDIR/overlay.ko"
		fi
		mv "$tmp/boot/config-$KREL" "$KDIR/config"
		printf '%s %s %s\n' "$PKG" "$PKG_VERSION" "$KREL" >"$KDIR/package"
		mv "$tmp/boot/vmlinuz-$KREL" "$KDIR/vmlinuz" # last: marks it complete
		rm -rf "$tmp"
		printf '%s\n' "${PKG}_$PKG_VERSION" >"$CACHE/$flavor.current"
		return 0
	fi
	rm -rf "$tmp"
	log "$flavor: download or extraction failed, see $OUT/$flavor-download.log"
	return 1
}

# cached_kernel FLAVOR: no apt (offline, or the archive changed): falls
# back to the last kernel cached for FLAVOR.
cached_kernel() {
	local flavor=$1
	if [ -s "$CACHE/$flavor.current" ] && [ -s "$CACHE/$(cat "$CACHE/$flavor.current")/vmlinuz" ]; then
		KDIR=$CACHE/$(cat "$CACHE/$flavor.current")
		read -r PKG PKG_VERSION KREL <"$KDIR/package"
		log "$flavor: ${META[$flavor]} not available from apt$([ "${KTEST_OFFLINE:-0}" = 1 ] && echo ' (KTEST_OFFLINE=1)'), using cached $PKG $PKG_VERSION"
		return 0
	fi
	log "$flavor: cannot resolve ${META[$flavor]} and nothing is cached"
	return 1
}

# check_config FILE: prints the problems, empty if none.
check_config() {
	local opt val problems=()
	for opt in "${CONFIG_NEEDED[@]}"; do
		val=$(sed -n "s/^CONFIG_$opt=//p" "$1")
		case $val in
		y) ;;
		m) problems+=("CONFIG_$opt=m (a module; the initramfs carries none for it)") ;;
		*) problems+=("CONFIG_$opt is not set") ;;
		esac
	done
	for opt in "${CONFIG_MODULE_OK[@]}"; do
		grep -Eq "^CONFIG_$opt=[ym]\$" "$1" || problems+=("CONFIG_$opt is not set")
	done
	[ ${#problems[@]} -eq 0 ] || printf '%s; ' "${problems[@]}"
}
