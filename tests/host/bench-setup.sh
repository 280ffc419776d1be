#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Benchmark of 'fsverity setup' (not part of run.sh).
#
#   tests/host/bench-setup.sh              build tools/ into build/tools first
#   FSVERITY=/path/to/fsverity BENCH_DIR=/dir tests/host/bench-setup.sh
#
# On a 256 MiB file in the page cache, prints the throughput of sha256sum,
# of 'setup --threads=1' and 'setup --threads=2' (in place, sha256, median
# of 3 runs) and their ratios; then the peak RSS of setup on a 1 GiB
# sparse-ish file.  BENCH_DIR defaults to a directory in /dev/shm (page
# cache only, so no disk time is measured).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)

if [ -z "${FSVERITY:-}" ]; then
	mkdir -p "$REPO/build/tools"
	make -s -C "$REPO/tools" O="$REPO/build/tools" >/dev/null 2>&1
	FSVERITY="$REPO/build/tools/fsverity"
fi
[ -x /usr/bin/time ] || { echo "$0: needs /usr/bin/time (apt-get install time)" >&2; exit 1; }

base=/dev/shm
[ -d "$base" ] || base=/tmp
DIR=$(mktemp -d "${BENCH_DIR:-$base}/fsverity-bench.XXXXXX")
trap 'rm -rf "$DIR"' EXIT

SIZE_MIB=256
DATA="$DIR/data"
head -c ${SIZE_MIB}M /dev/urandom >"$DATA"
cat "$DATA" >/dev/null

# Elapsed nanoseconds of one run of the command.
elapsed_ns() {
	local start end
	start=$(date +%s%N)
	"$@" >/dev/null
	end=$(date +%s%N)
	echo $((end - start))
}

# Median of 3 runs, in nanoseconds.
median_ns() {
	local _
	for _ in 1 2 3; do
		elapsed_ns "$@"
	done | sort -n | sed -n 2p
}

setup_in_place() {
	"$FSVERITY" setup "$DATA" --hash=sha256 "$@"
	truncate -s ${SIZE_MIB}M "$DATA"
}

mib_per_s() {
	echo "$SIZE_MIB $1" | awk '{ printf "%.0f", $1 / ($2 / 1e9) }'
}

ratio() {
	echo "$1 $2" | awk '{ printf "%.2f", $2 / $1 }'
}

sum_ns=$(median_ns sha256sum "$DATA")
t1_ns=$(median_ns setup_in_place --threads=1)
t2_ns=$(median_ns setup_in_place --threads=2)

echo "file: $SIZE_MIB MiB in $(df --output=fstype "$DIR" | tail -n 1), $(nproc) CPUs, median of 3," \
	"load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-28s %6s MiB/s\n' "sha256sum" "$(mib_per_s "$sum_ns")"
printf '%-28s %6s MiB/s  (%sx sha256sum)\n' "setup --threads=1 (sha256)" \
	"$(mib_per_s "$t1_ns")" "$(ratio "$t1_ns" "$sum_ns")"
printf '%-28s %6s MiB/s  (%sx sha256sum)\n' "setup --threads=2 (sha256)" \
	"$(mib_per_s "$t2_ns")" "$(ratio "$t2_ns" "$sum_ns")"
rm -f "$DATA"

# Peak RSS on 1 GiB: sparse, with 16 MiB of random data in 4 places.
BIG="$DIR/big"
truncate -s 1G "$BIG"
for off in 0 300 600 1000; do
	head -c 4M /dev/urandom | dd of="$BIG" bs=1M seek=$off conv=notrunc status=none
done
for threads in 1 2; do
	rss=$(/usr/bin/time -v "$FSVERITY" setup "$BIG" --threads=$threads \
	      2>&1 >/dev/null | awk -F: '/Maximum resident set size/ { print $2 + 0 }')
	truncate -s 1G "$BIG"
	printf 'peak RSS, setup of 1 GiB, --threads=%s: %s MiB\n' "$threads" \
		"$(awk -v k="$rss" 'BEGIN { printf "%.1f", k / 1024 }')"
done
