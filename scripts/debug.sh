#!/usr/bin/env bash
# 'make debug': the core groups of the suite on the debug kernel
# (configs/debug.config: KASAN, UBSAN, lockdep, DEBUG_LIST, DEBUG_OBJECTS,
# DEBUG_PAGEALLOC, kmemleak), where a use-after-free, an out-of-bounds
# access, a lock-order inversion or a leak on fs-verity's paths is a report
# in the kernel log, which fails the run (scripts/check-log.sh; /init scans
# for leaks once more after the suite).
#
# FLAVOR=debug builds build/obj-debug from the same patched tree, then the
# usual two VMs (ext4, f2fs) run the groups of DEBUG_GROUPS (default: the
# core groups, 10 roundtrip, 20 corrupt, 30 errors, 50 signatures, and the
# error paths, where use-after-frees and leaks live: 35 hardening, 36
# fs hardening, 37 error paths, 38 allocation faults, 39 write paths, 80
# power cuts, this one with fewer replay points, DEBUG_PCUT; DEBUG_GROUPS=all
# runs the whole suite).  Output: the suite's lines and its closing line.
set -euo pipefail
export FLAVOR=debug
. "$(dirname "$0")/lib.sh"

groups=${DEBUG_GROUPS:-10,20,30,35,36,37,38,39,50,80}
# The power cuts replay a point in seconds on the test kernel, many times
# that on this one: a sample of the flush points and random ones
pcut=${DEBUG_PCUT:-pcut.max=12 pcut.random=4}
# The debug kernel runs the groups five to nine times slower than the test one
export VTEST_TIMEOUT_SCALE=${VTEST_TIMEOUT_SCALE:-4}
"$ROOT/scripts/kernel.sh"
"$ROOT/scripts/initramfs.sh"

cmdline="$pcut${VTEST_CMDLINE:+ $VTEST_CMDLINE}"
[ "$groups" = all ] || cmdline="vtest.groups=$groups $cmdline"
VTEST_CMDLINE=$cmdline exec "$ROOT/scripts/boot.sh" test
