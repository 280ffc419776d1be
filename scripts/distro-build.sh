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
xzcat "$config" >"$obj/.config.new"
if ! cmp -s "$obj/.config.new" "$obj/.config.debian" 2>/dev/null; then
	mv "$obj/.config.new" "$obj/.config.debian"
	cp "$obj/.config.debian" "$obj/.config"
fi
rm -f "$obj/.config.new"
cc=gcc
command -v ccache >/dev/null && cc="ccache gcc"
log=$LOGS/distro-$name.log
make -C "$src" O="$obj" -s olddefconfig >/dev/null
existing=()
for d in "${dirs[@]}"; do [ -d "$src/$d" ] && existing+=("$d"); done
make -C "$src" O="$obj" -j"$JOBS" CC="$cc" ${SPARSE:+C=2} "${existing[@]}" >"$log" 2>&1 ||
	{ grep -E 'error' "$log" | head -n 20 >&2; die "distro-config build of ${existing[*]} failed; log: $log"; }
grep -E 'warning:' "$log" || true
