#!/usr/bin/env bash
# 'make crash': crash consistency of FS_IOC_ENABLE_VERITY (tests/vm/crash.sh).
#
# For ext4 and for f2fs, side by side: a first boot makes verity files and
# enables them, some synced, some not; when it prints "vtest: crash point"
# QEMU is killed (SIGKILL) with the filesystem mounted.  A second boot on
# the same disk images checks every file (verity and intact, or not verity
# with its metadata intact for a retry) and fsck.  Logs:
# build/logs/{console,results}-crash{1,2}-FS.log.  Prints the tests of both
# boots, renumbered, and "N passed, M failed".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

diskroot=$BUILD/disks/crash.$$
trap 'rm -rf "$diskroot"' EXIT
mkdir -p "$LOGS"

# pair FS: the two boots on FS; output in $diskroot/FS.out
pair() {
	local fs=$1 dir=$diskroot/$1
	mkdir -p "$dir"
	{
		VTEST_DISKDIR=$dir/disks VTEST_KILL_ON="vtest: crash point" BOOT_TAG=crash1-$fs \
			VTEST_CMDLINE="vtest.fs=$fs${VTEST_CMDLINE:+ $VTEST_CMDLINE}" VTEST_TIMEOUT=600 \
			"$ROOT/scripts/boot.sh" crash1 || echo "phase 1 on $fs: boot.sh failed"
		VTEST_DISKDIR=$dir/disks BOOT_TAG=crash2-$fs \
			VTEST_CMDLINE="vtest.fs=$fs${VTEST_CMDLINE:+ $VTEST_CMDLINE}" VTEST_TIMEOUT=600 \
			"$ROOT/scripts/boot.sh" crash2 || echo "phase 2 on $fs: boot.sh failed"
	} >"$dir.out" 2>&1
}
pair ext4 &
pair f2fs &
wait

for fs in ext4 f2fs; do
	tap_merge_boots "$diskroot/$fs.out" \
		"$fs: crash: both boots end cleanly (the first killed at its crash point), kernel logs clean" \
		"$fs: crash: phase 1" "$LOGS/results-crash1-$fs.log" \
		"$fs: crash: phase 2" "$LOGS/results-crash2-$fs.log"
done
tap_closing
[ "$tap_fail" -eq 0 ]
