#!/usr/bin/env bash
# 'make debug': the core groups of the suite on the debug kernel
# (configs/debug.config: KASAN, UBSAN, lockdep, DEBUG_LIST, DEBUG_OBJECTS,
# DEBUG_PAGEALLOC, kmemleak), where a use-after-free, an out-of-bounds
# access, a lock-order inversion or a leak on fs-verity's paths is a report
# in the kernel log, which fails the run (scripts/check-log.sh; /init scans
# for leaks once more after the suite).
#
# FLAVOR=debug builds build/obj-debug from the same patched tree, then the
# usual two VMs (ext4, f2fs) run the tests of DEBUG_TESTS (a VTEST_FILTER:
# by default the error paths, where use-after-frees and leaks live, and
# the corruption, errors and signature groups: 20 corrupt, 30 errors, 35
# hardening, 36 fs hardening but its timing of 1000 stat()s, 37 error
# paths, 38 allocation faults on unsigned files at ENABLE and at the first
# open (the signed ones add 200 points of PKCS#7 code per filesystem; the
# open before MEASURE repeats the first open's), 50 signatures (on f2fs
# only the tests of its own paths: the signed files' reads,
# require_signatures, stat() and the open of a damaged signature; the
# checks of the PKCS#7 message at ENABLE, 50.03 to 50.15, are the core's,
# run on ext4), and 80 power cuts on fewer replay points (DEBUG_PCUT: four
# flush points inside ENABLEs and a random one).  The debug kernel runs a
# group four to twenty-five times slower than the test kernel: 10
# roundtrip (200 s per filesystem), 39 write paths (150 s) and 38's signed
# files (300 s) are left to the test kernel.  DEBUG_TESTS=all runs the
# whole suite.
# Output: the suite's lines and its closing line.
set -euo pipefail
export FLAVOR=debug
. "$(dirname "$0")/lib.sh"

tests=${DEBUG_TESTS:-*/20.*|*/30.*|*/35.*|*/36.0[1-46-9]|*/36.1?|*/37.*|*/38.0[126]|ext4/50.*|f2fs/50.0[12]|f2fs/50.1[6-9]|f2fs/50.2?|*/80.*|end/*}
# The power cuts replay a point in seconds on the test kernel, many times
# that on this one: a sample of the flush points and random ones
pcut=${DEBUG_PCUT:-pcut.max=4 pcut.random=1}
# The debug kernel runs the groups five to nine times slower than the test one
export VTEST_TIMEOUT_SCALE=${VTEST_TIMEOUT_SCALE:-4}
"$ROOT/scripts/kernel.sh"
"$ROOT/scripts/initramfs.sh"

[ "$tests" = all ] || export VTEST_FILTER=$tests
VTEST_CMDLINE="$pcut${VTEST_CMDLINE:+ $VTEST_CMDLINE}" exec "$ROOT/scripts/boot.sh" test
