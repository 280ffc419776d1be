#!/usr/bin/env bash
# 'make lowmem': the core groups of the suite (10-roundtrip, 20-corrupt)
# and the concurrency group (70-stress: sequential, random and mmap readers
# with drop_caches in a loop, racing ENABLEs) in guests with 128 MiB of
# memory, so that the page cache cannot hold the 100 MiB verity file and
# its tree: pages are evicted and verified again (t_lowmem in
# 10-roundtrip.sh checks that a second read comes from the disk), and the
# readers' verification allocates under memory pressure.  The usual two
# VMs, logs build/logs/{console,results}-lowmem*.log.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

VTEST_MEM=${LOWMEM_MIB:-128} BOOT_TAG=lowmem \
	VTEST_CMDLINE="vtest.groups=10,20,70${VTEST_CMDLINE:+ $VTEST_CMDLINE}" \
	exec "$ROOT/scripts/boot.sh" test
