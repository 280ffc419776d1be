#!/usr/bin/env bash
# Build the directories the series touches with Debian's own kernel config:
# distro-build.sh [SRC] (default: the patched tree build/linux).
# Prints the compiler warnings; the log is build/logs/distro-<name>.log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

src=${1:-$LINUX}
name=${DISTRO_NAME:-$(basename "$src")}
config=${DISTRO_CONFIG:-/usr/src/linux-config-6.1/config.amd64_none_amd64.xz}
dirs=(fs/verity/ fs/ext4/ fs/f2fs/ fs/btrfs/ security/integrity/)
[ -f "$config" ] || die "$config is missing: install linux-config-6.1 (make deps)"
obj=$BUILD/obj-distro-$name
mkdir -p "$obj" "$LOGS"
# Debian's config, plus the per-filesystem options of this series: Debian
# enables fs-verity (for ext4, f2fs and btrfs) through CONFIG_FS_VERITY,
# which the series has ext4 and f2fs select.  The .config is replaced only
# when it changes, so rebuilds stay incremental.
{
	xzcat "$config"
	printf 'CONFIG_EXT4_FS_VERITY=y\nCONFIG_F2FS_FS_VERITY=y\n'
} >"$obj/.config.new"
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
log=$LOGS/distro-$name.log
make -C "$src" O="$obj" -s KCONFIG_CONFIG=.config.new olddefconfig >/dev/null
rm -f "$obj/.config.new.old"
if cmp -s "$obj/.config.new" "$obj/.config"; then
	rm "$obj/.config.new"
else
	mv "$obj/.config.new" "$obj/.config"
fi
for opt in CONFIG_FS_VERITY CONFIG_FS_VERITY_BUILTIN_SIGNATURES CONFIG_EXT4_FS_VERITY CONFIG_F2FS_FS_VERITY; do
	grep -q "^$opt=y" "$obj/.config" || die "$opt is not set in the distro-config build ($obj/.config)"
done
existing=()
for d in "${dirs[@]}"; do [ -d "$src/$d" ] && existing+=("$d"); done
make -C "$src" O="$obj" -j"$JOBS" CC="$cc" ${SPARSE:+C=2} "${existing[@]}" >"$log" 2>&1 ||
	{ grep -E 'error' "$log" | head -n 20 >&2; die "distro-config build of ${existing[*]} failed; log: $log"; }
grep -E 'warning:' "$log" || true
