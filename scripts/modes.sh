#!/usr/bin/env bash
# 'make modes': the core groups of the suite (20 corrupt, 30 errors, 35
# hardening; 10 roundtrip with MODES_GROUPS=10,20,30,35: it doubles the
# time) again in the mount modes users run, each a pass of
# tests/vm/run (VTEST_FS words FS:MODE, tests/vm/lib.sh's
# vt_mode_features and vt_mode_options): ext4 with data=journal,
# data=writeback, nodelalloc and without a journal, f2fs with compression
# on (for *.cmpr files: a compressed file is refused) and without inline
# data or dentries.  The default modes (ext4 data=ordered, f2fs with inline
# data) are the suite's own; DAX, and the modes the series refuses (blocks
# smaller than a page, checkpoint=disable), have tests of their own in
# 36-fs-hardening.  The passes are shared out between the usual two VMs,
# three each; the test IDs carry the mode (ext4-journal/20.06).
# MODES_GROUPS changes the groups (scripts/lib.sh).  Output: the suite's lines and its
# closing line; logs build/logs/{console,results}-modes*.log (BOOT_TAG
# names them otherwise).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

VTEST_PASSES_EXT4=$MODES_PASSES_VM1 VTEST_PASSES_F2FS=$MODES_PASSES_VM2 \
	BOOT_TAG=${BOOT_TAG:-modes} VTEST_CMDLINE="vtest.groups=$MODES_GROUPS${VTEST_CMDLINE:+ $VTEST_CMDLINE}" \
	exec "$ROOT/scripts/boot.sh" test
