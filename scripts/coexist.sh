#!/usr/bin/env bash
# 'make coexist': verity files made by one kernel, met by another
# (tests/vm/coexist.sh): coexist.sh [SCENARIO...], default A B C.
#
# The series reuses the verity feature and inode flags of ext4 and f2fs for
# its 2018 on-disk format, which the upstream (5.4+) fs-verity of a stock
# kernel does not share.  Each scenario is three boots, one after the other
# on the same two disk images (ext4 on the first, f2fs on the second):
#
#   A  pristine -> series -> pristine: 5.4-format files
#   B  series -> pristine -> series: 2018-format files
#   C  series -> series built with CONFIG_EXT4_FS_VERITY=n and
#      CONFIG_F2FS_FS_VERITY=n -> series: 2018-format files
#
# The three scenarios run side by side.  The kernels: the pristine tree's
# and the no-glue variant's bzImages that make bisect copies out
# (build/bisect/pristine.bzImage, build/bisect/no-fs-glue.bzImage;
# COEXIST_PRISTINE, COEXIST_NOGLUE), and the series' test kernel (KOBJ's,
# make kernel; COEXIST_SERIES).  COEXIST_TAG names the logs
# (build/logs/{console,results}-TAG-PHASE.log, default coexist).  Prints
# every boot's tests, renumbered, one more per scenario for the kernel
# logs of its boots, and "N passed, M failed".
set -euo pipefail
. "$(dirname "$0")/lib.sh"

pristine_kernel=${COEXIST_PRISTINE:-$BUILD/bisect/pristine.bzImage}
noglue_kernel=${COEXIST_NOGLUE:-$BUILD/bisect/no-fs-glue.bzImage}
series_kernel=${COEXIST_SERIES:-$OBJ/arch/x86/boot/bzImage}
tag=${COEXIST_TAG:-coexist}
# Each scratch disk: room for a few small files, and quick to fsck.
DISK_SIZE=512M
# Seconds a boot may take (one takes about a minute under TCG).
BOOT_LIMIT=${VTEST_TIMEOUT:-600}
STEPS="1 2 3"
# One CPU per guest: the tests run one at a time, and the three guests
# side by side on two host cores would otherwise starve each other's
# virtual CPUs into RCU stall reports.
GUEST_CPUS=1

scenarios=("$@")
[ ${#scenarios[@]} -gt 0 ] || scenarios=(A B C)
for s in "${scenarios[@]}"; do
	case $s in A|B|C) ;; *) die "unknown scenario '$s': A, B or C" ;; esac
done

# kernel_of PHASE: the bzImage that boots PHASE (tests/vm/coexist.sh)
kernel_of() {
	case $1 in
	A1|A3|B2) echo "$pristine_kernel" ;;
	C2) echo "$noglue_kernel" ;;
	*) echo "$series_kernel" ;;
	esac
}
for s in "${scenarios[@]}"; do
	for step in $STEPS; do
		k=$(kernel_of "$s$step")
		[ -f "$k" ] || die "no kernel at $k: 'make kernel' builds the series' kernel, 'make bisect' the others"
	done
done

diskroot=$BUILD/disks/coexist.$$
trap 'rm -rf "$diskroot"' EXIT
mkdir -p "$diskroot" "$LOGS"

# chain SCENARIO: its boots, one after the other; output in $diskroot/S.out
chain() {
	local s=$1 step
	for step in $STEPS; do
		VTEST_DISKDIR=$diskroot/$s VTEST_DISK_SIZE=$DISK_SIZE VTEST_SMP=$GUEST_CPUS VTEST_KERNEL=$(kernel_of "$s$step") \
			BOOT_TAG=$tag-$s$step VTEST_TIMEOUT=$BOOT_LIMIT \
			VTEST_CMDLINE="vtest.coexist=$s$step${VTEST_CMDLINE:+ $VTEST_CMDLINE}" \
			"$ROOT/scripts/boot.sh" coexist || echo "phase $s$step: boot.sh failed"
	done >"$diskroot/$s.out" 2>&1
}
start=$(date +%s)
for s in "${scenarios[@]}"; do
	chain "$s" &
done
wait

for s in "${scenarios[@]}"; do
	boots=()
	for step in $STEPS; do
		boots+=("coexist $s$step: the boot" "$LOGS/results-$tag-$s$step.log")
	done
	tap_merge_boots "$diskroot/$s.out" \
		"coexist $s: every boot ends cleanly, kernel logs clean (no oops, BUG, WARNING)" "${boots[@]}"
done
echo "# make coexist took $(($(date +%s) - start)) s"
tap_closing
[ "$tap_fail" -eq 0 ]
