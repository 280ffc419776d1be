#!/usr/bin/env bash
# Run the tree's own scripts/checkpatch.pl --strict over every patch of the
# series; one TAP line per patch and a closing "N passed, M failed".
#
# A patch passes with no ERROR and no WARNING, except the one exception
# below.  CHECKs (--strict) are printed, not counted: the remaining ones
# follow the style of the surrounding, pre-existing code.
#
# Exception: "added, moved or deleted file(s), does MAINTAINERS need
# updating?" -- the files added and removed by the series all lie under
# fs/verity/ and include/{,uapi/}linux/fsverity.h, which the existing
# "FSVERITY" MAINTAINERS entry already covers (as it does the removed
# fs/{ext4,f2fs,btrfs}/verity.c through their filesystems' entries).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ -x "$PRISTINE/scripts/checkpatch.pl" ] || die "no $PRISTINE/scripts/checkpatch.pl: run 'make tree'"
mapfile -t patches < <(sed -e 's/#.*//' -e 's/[[:space:]]*$//' -e '/^$/d' "$ROOT/patches/series")
allowed='does MAINTAINERS need updating\?'
pass=0
fail=0
n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	out=$(cd "$PRISTINE" && ./scripts/checkpatch.pl --strict --terse -q "$ROOT/patches/$p" 2>&1 || true)
	bad=$(grep -E ': (ERROR|WARNING):' <<<"$out" | grep -Ev "$allowed" || true)
	checks=$(grep -c ': CHECK:' <<<"$out" || true)
	if [ -z "$bad" ]; then
		echo "ok $n - checkpatch --strict: $p ($checks checks)"
		pass=$((pass + 1))
	else
		echo "not ok $n - checkpatch --strict: $p"
		sed 's/^/# /' <<<"$bad"
		fail=$((fail + 1))
	fi
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
