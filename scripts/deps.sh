#!/usr/bin/env bash
# Install (as root) or list (otherwise) the Debian packages the project uses.
# Quiet when everything is already installed.  linux-source-6.1 is
# installed in the version of BASE_VERSION, the one the series is made for,
# when the archive offers it, otherwise in the newest version (scripts/tree.sh
# says so when it extracts the tree).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PACKAGES=(
	linux-source-6.1 linux-config-6.1
	gcc make bc bison flex libelf-dev libssl-dev dwarves cpio xz-utils
	quilt ccache sparse git python3 perl rsync file time
	qemu-system-x86 busybox-static e2fsprogs f2fs-tools openssl keyutils
	valgrind gnuplot-nox cryptsetup-bin lcov
	gcc-multilib libc6-dev-i386
	dmsetup procps
)

# FLAVOR=i386's guest runs i386 packages (busybox-static, e2fsprogs...),
# which scripts/initramfs.sh downloads and extracts, never installs: apt
# needs the i386 architecture and its package lists for 'apt-get download'.
if ! dpkg --print-foreign-architectures | grep -qx i386 ||
	! apt-cache show busybox-static:i386 >/dev/null 2>&1; then
	[ "$(id -u)" -eq 0 ] || die "apt does not know i386 packages; run as root: dpkg --add-architecture i386 && apt-get update"
	info "adding the i386 architecture to apt (for FLAVOR=i386's guest tools)"
	dpkg --add-architecture i386
	apt_update
fi

missing=()
for p in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	[[ $status == ii* ]] || missing+=("$p")
done

# The kernel source in the version the series wants (when apt knows one).
want=$(wanted_src_version)
have=$(dpkg-query -W -f='${Version}' "$SRC_PKG" 2>/dev/null || true)
if [ -n "$want" ] && [ -n "$have" ] && [ "$have" != "$want" ]; then
	if [ "$(id -u)" -eq 0 ]; then
		missing+=("$SRC_PKG=$want")
	else
		info "$SRC_PKG $have is installed; the series wants $want: as root, apt-get install $SRC_PKG=$want"
	fi
fi
for i in "${!missing[@]}"; do
	[ "${missing[$i]}" != "$SRC_PKG" ] || [ -z "$want" ] || missing[i]=$SRC_PKG=$want
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	die "missing packages: ${missing[*]}; run as root: apt-get install ${missing[*]}"
fi
info "installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt_update
apt_install "${missing[@]}" ||
	die "apt-get install ${missing[*]} failed $APT_INSTALL_TRIES times: is the package registry reachable?"
