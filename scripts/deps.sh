#!/usr/bin/env bash
# Install (as root) or list (otherwise) the Debian packages the project uses.
# Quiet when everything is already installed.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

PACKAGES=(
	linux-source-6.1 linux-config-6.1
	gcc make bc bison flex libelf-dev libssl-dev dwarves cpio xz-utils
	quilt ccache sparse git python3 perl rsync file time
	qemu-system-x86 busybox-static e2fsprogs f2fs-tools openssl keyutils
	valgrind gnuplot-nox cryptsetup-bin
)

missing=()
for p in "${PACKAGES[@]}"; do
	status=$(dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null || true)
	[[ $status == ii* ]] || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
	die "missing packages: ${missing[*]}; run as root: apt-get install ${missing[*]}"
fi
info "installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || die "apt-get update failed: is the package registry reachable?"
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
	die "apt-get install ${missing[*]} failed"
