#!/usr/bin/env bash
# The builds of CHECK_ALL=1 make check's later parts, made ahead at idle
# priority while the earlier parts run: the i386 and debug kernels, then
# every build of make bisect (BISECT_BOOTS=0: not its boots).
#
# The parts leave part of the two cores idle: a guest that waits on its
# disk or a timer, one VM of a pair ending before the other, checkpatch on
# one core beside the host tests.  These builds take only that: make check
# starts this script in a session of its own (setsid), so it has an
# autogroup of its own, whose weight it sets to the lowest
# (/proc/self/autogroup: the scheduler shares the CPU between autogroups
# before it looks at nice values), and nice 19 where autogroups are off.
# A part that then wants a kernel waits for the build of its folder still
# running here (kernel.sh, bisect.sh: one build of a folder at a time),
# and finds it made; a build that failed here is made again, and reported,
# by its part.  Output: a line per build; their logs are
# build/logs/prebuild-{i386,debug,bisect}.log (and kernel.sh's
# build-prebuild-FLAVOR.log).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

echo 19 >/proc/self/autogroup 2>/dev/null || true
renice -n 19 -p $$ >/dev/null
ionice -c 3 -p $$ 2>/dev/null || true

start=$(date +%s)
for flavor in i386 debug; do
	t0=$(date +%s)
	if FLAVOR=$flavor BUILD_TAG=prebuild-$flavor "$ROOT/scripts/kernel.sh" >"$LOGS/prebuild-$flavor.log" 2>&1; then
		echo "prebuild: the $flavor kernel, $(($(date +%s) - t0)) s"
	else
		echo "prebuild: the $flavor kernel failed after $(($(date +%s) - t0)) s (its part builds it again)"
	fi
done
t0=$(date +%s)
if BISECT_BOOTS=0 "$ROOT/scripts/bisect.sh" >"$LOGS/prebuild-bisect.log" 2>&1; then
	echo "prebuild: make bisect's builds, $(($(date +%s) - t0)) s"
else
	echo "prebuild: make bisect's builds failed after $(($(date +%s) - t0)) s (make bisect reports them)"
fi
echo "prebuild: done in $(($(date +%s) - start)) s"
